"""What the ontology readers refuse, and what they must still read: entity tricks in RDF/XML,
remote JSON-LD contexts, inputs rdflib reads in quadratic time, OBO terms defined twice, CSV
cells over the csv module's limit and unterminated quotes, files over the size limit. Each
refusal is one line naming the file, within seconds, having touched nothing but that file."""
from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import invoke, ok
from tripartite.ontology.reader import OntologyError
from tripartite.ontology.sources import read_terms

# rdflib's JSON-LD parser warns about its own use of ConjunctiveGraph
pytestmark = pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated:DeprecationWarning")
FIXTURES = Path(__file__).parent / "fixtures" / "ontologies"
RDF_HEAD = ('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
            'xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#" xmlns:owl="http://www.w3.org/2002/07/owl#">\n')
TWO_CLASSES = ('<owl:Class rdf:about="http://x.org/a"><rdfs:label>{label}</rdfs:label></owl:Class>\n'
               '<owl:Class rdf:about="http://x.org/b"><rdfs:subClassOf rdf:resource="http://x.org/a"/></owl:Class>\n')


def rdf_xml(label: str = "a", doctype: str = "") -> str:
    """An RDF/XML file of two classes, b under a, with `label` as a's label after `doctype`."""
    return f'<?xml version="1.0"?>\n{doctype}{RDF_HEAD}{TWO_CLASSES.format(label=label)}</rdf:RDF>\n'


def billion_laughs() -> str:
    """Ten entities, each ten references to the one before: 3 GB of 'lol' from 1 KB."""
    entities = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)]
    return rdf_xml("&lol9;", "<!DOCTYPE rdf:RDF [\n" + "\n".join(entities) + "\n]>\n")


def run_import(path: Path, *extra: str, timeout: float = 60) -> tuple[subprocess.CompletedProcess, float]:
    """`ontology import` of path (root http://x.org/a unless --root is given) as a process, so
    that a hang fails the test instead of stalling the run; the process and its seconds."""
    root = [] if "--root" in extra else ["--root", "http://x.org/a"]
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "tripartite", "ontology", "import", str(path), *root, "--name", "x",
                           "--out", str(path.parent / "out"), "--json", *extra],
                          capture_output=True, text=True, timeout=timeout)
    return done, time.monotonic() - started


def one_line_error(path: Path, *extra: str, timeout: float = 60) -> tuple[str, float]:
    """The one line `ontology import` fails with, having written nothing, and its seconds."""
    done, seconds = run_import(path, *extra, timeout=timeout)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: "), done.stderr
    assert not (path.parent / "out").exists()
    return lines[0], seconds


def refused(path: Path, **kwargs) -> str:
    with pytest.raises(OntologyError) as caught:
        read_terms(path, **kwargs)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    return message


# ---- RDF/XML: entities ------------------------------------------------------------------------
def test_billion_laughs_is_refused_within_a_second_or_two(tmp_path):
    laughs = tmp_path / "laughs.owl"
    laughs.write_text(billion_laughs(), encoding="utf-8")
    line, seconds = one_line_error(laughs)
    assert "entity lol1 refers to another entity" in line and seconds < 3


@pytest.mark.parametrize("doctype, words", [
    ('<!ENTITY secret SYSTEM "file:///etc/passwd">', "entity secret is external"),
    ('<!ENTITY remote PUBLIC "-//X//Y" "http://127.0.0.1:9/x.dtd">', "entity remote is external"),
    ('<!ENTITY % p "x">', "parameter entity p"),
    ('<!ENTITY a "&#38;b;"><!ENTITY b "bbb">', "entity a refers to another entity"),
    ('<!ATTLIST owl:Class rdfs:label CDATA "default">', "<!ATTLIST"),
])
def test_entity_declarations_that_could_reach_out_or_multiply_are_refused(tmp_path, doctype, words):
    owl = tmp_path / "hostile.owl"
    owl.write_text(rdf_xml("&a;" if "&#38;" in doctype else "a", f"<!DOCTYPE rdf:RDF [{doctype}]>\n"),
                   encoding="utf-8")
    assert words in refused(owl)


def test_an_external_dtd_is_refused_rather_than_ignored(tmp_path):
    owl = tmp_path / "dtd.owl"
    owl.write_text(rdf_xml("a", '<!DOCTYPE rdf:RDF SYSTEM "http://127.0.0.1:9/rdf.dtd">\n'), encoding="utf-8")
    assert "external DTD" in refused(owl)


def test_one_long_entity_referenced_many_times_is_refused(tmp_path):
    """No nesting, but 10,000 references to 10 KB: 100 MB from a 40 KB file."""
    owl = tmp_path / "blowup.owl"
    owl.write_text(rdf_xml("&big;" * 10_000, f'<!DOCTYPE rdf:RDF [<!ENTITY big "{"x" * 10_000}">]>\n'),
                   encoding="utf-8")
    started = time.monotonic()
    assert "entities would expand" in refused(owl) and time.monotonic() - started < 2


def test_namespace_entities_as_protege_writes_them_still_read():
    terms = read_terms(FIXTURES / "machines-entities.owl")
    assert terms["http://example.org/machines#EncoderError"].name == "encoder & resolver error"
    assert terms["http://example.org/machines#DriveFault"].parents == ["http://example.org/machines#MachineFault"]
    # an XML literal is read as its text: a description is prose, not markup (an rdfs:comment is
    # a curator's note, not a definition: the report shows it)
    assert terms["http://example.org/machines#MotorOverload"].definition == ""
    assert "MotorOverload: 'The motor draws more current than rated.'" in terms.problems[0]


# ---- RDF/XML: shapes rdflib reads in quadratic time ---------------------------------------------
SLOW_SHAPES = {
    "many lines": lambda text: text.replace(">a<", ">" + "ab\n" * 400_000 + "<"),
    "xml literal": lambda text: text.replace("<rdfs:label>a",
                                             '<rdfs:label rdf:parseType="Literal">' + "<b>x</b>" * 50_000),
    "namespaces": lambda text: text.replace("<owl:Class ", "<owl:Class " + " ".join(
        f'xmlns:p{i}="http://x.org/{i}/"' for i in range(20_000)) + " ", 1),
    "a prefix bound again": lambda text: text.replace("</rdf:RDF>", "".join(
        f'<rdf:Description xmlns:p="http://x.org/{i}/" rdf:about="http://x.org/n{i}"/>' for i in range(20_000))
        + "</rdf:RDF>"),
}


@pytest.mark.parametrize("shape", SLOW_SHAPES)
def test_rdf_xml_shapes_rdflib_reads_in_quadratic_time_read_in_seconds(tmp_path, shape):
    """Each took half a minute or more: rdflib appends every piece of text expat hands it (each line,
    each entity) to the literal so far, parses an XML literal again at each of its elements,
    copies its namespace map at each declaration and tries prefix1, prefix2... for a prefix
    bound again."""
    owl = tmp_path / "slow.owl"
    owl.write_text(SLOW_SHAPES[shape](rdf_xml()), encoding="utf-8")
    done, seconds = run_import(owl, timeout=60)
    assert done.returncode == 0 and json.loads(done.stdout)["concepts"] == 1, done.stderr
    assert seconds < 8


# ---- JSON-LD: contexts ------------------------------------------------------------------------
class Recorder(http.server.BaseHTTPRequestHandler):
    """Serves a valid context to anyone who asks, and remembers that they asked."""
    requests: list[str] = []

    def do_GET(self):  # noqa: N802 (the http.server API)
        Recorder.requests.append(self.path)
        body = json.dumps({"@context": {"label": "http://www.w3.org/2000/01/rdf-schema#label"}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/ld+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def context_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    Recorder.requests = []
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def jsonld(context) -> dict:
    return {"@context": context, "@graph": [
        {"@id": "http://x.org/a", "@type": "http://www.w3.org/2002/07/owl#Class", "label": "a"},
        {"@id": "http://x.org/b", "@type": "http://www.w3.org/2002/07/owl#Class",
         "http://www.w3.org/2000/01/rdf-schema#subClassOf": {"@id": "http://x.org/a"}}]}


@pytest.mark.parametrize("shape", ["string", "in a list", "in a list in a list", "@import", "scoped"])
def test_a_remote_json_ld_context_is_refused_without_a_request(tmp_path, context_server, shape):
    url = f"{context_server}/context.jsonld"
    context = {"string": url, "in a list": [{"x": "http://x.org/"}, url], "in a list in a list": [[url]],
               "@import": {"@import": url},
               "scoped": {"label": {"@id": "http://www.w3.org/2000/01/rdf-schema#label", "@context": url}}}[shape]
    document = tmp_path / "remote.jsonld"
    document.write_text(json.dumps(jsonld(context)), encoding="utf-8")
    line, _ = one_line_error(document, timeout=30)
    assert url in line and "inline" in line
    assert Recorder.requests == []


def test_a_file_context_is_refused_rather_than_opened(tmp_path):
    """The context file is valid: had rdflib been let open it, the document would have read."""
    context = tmp_path / "context.jsonld"
    context.write_text(json.dumps({"@context": {"label": "http://www.w3.org/2000/01/rdf-schema#label"}}))
    document = tmp_path / "local.jsonld"
    document.write_text(json.dumps(jsonld(context.as_uri())), encoding="utf-8")
    assert "inline" in refused(document)


def test_nested_contexts_are_refused_since_rdflib_copies_the_outer_one_for_each(tmp_path):
    document = {"@context": {"label": "http://www.w3.org/2000/01/rdf-schema#label"},
                "@graph": [{"@id": "http://x.org/a", "@context": {"x": "http://x.org/"}, "label": "a"}]}
    path = tmp_path / "nested.jsonld"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert "@context inside" in refused(path)


def test_json_ld_with_an_inline_context_reads():
    terms = read_terms(FIXTURES / "machines.jsonld")
    assert terms["http://example.org/machines#MotorOverload"].exact == ["overcurrent"]
    assert terms["http://example.org/machines#OldFault"].obsolete


# ---- OBO ----------------------------------------------------------------------------------------
def test_an_obo_term_defined_twice_is_reported_with_both_names(tmp_path):
    obo = tmp_path / "twice.obo"
    obo.write_text("format-version: 1.2\n\n[Term]\nid: X:0\nname: root\n\n[Term]\nid: X:1\nname: first name\n"
                   "is_a: X:0\n\n[Term]\nid: X:2\nname: child\nis_a: X:1\n\n"
                   "[Term]\nid: X:1\nname: second name\nsynonym: \"other\" EXACT []\n", encoding="utf-8")
    summary = json.loads(ok(["ontology", "import", str(obo), "--root", "X:0", "--name", "twice", "--out",
                             str(tmp_path / "out"), "--json"], {}))
    assert summary["problems"] == ["X:1 is defined in 2 [Term] frames, named 'first name' and 'second name'; "
                                   "read as one term named 'first name' with the is_a links and synonyms of both"]
    terms = read_terms(obo)
    assert terms["X:1"].name == "first name" and terms["X:1"].exact == ["other"] and terms["X:1"].parents == ["X:0"]


def test_a_line_holding_only_a_comment_inside_an_obo_frame_reads(tmp_path):
    """fastobo refused one in the header and panicked on one inside a frame (a Rust backtrace, then a
    PanicException, which no `except Exception` catches)."""
    obo = tmp_path / "comment.obo"
    obo.write_text("format-version: 1.2\n! made by hand\n\n[Term]\nid: X:0\nname: root\n\n[Term]\nid: X:1\n"
                   "! the first child\nname: child\nis_a: X:0\n", encoding="utf-8")
    assert read_terms(obo)["X:1"].parents == ["X:0"]


# ---- N-Triples -------------------------------------------------------------------------------------
def test_an_n_triples_line_of_megabytes_is_refused_at_once(tmp_path):
    """rdflib reads an N-Triples line 2 KB at a time, matching it from its start again after
    each read: a 4 MB line took 44 s. The same triples as Turtle read in a moment."""
    triples = (f'<http://x.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "{"a" * 4_000_000}" .\n'
               "<http://x.org/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
               "<http://www.w3.org/2002/07/owl#Class> .\n")
    nt = tmp_path / "long.nt"
    nt.write_text(triples, encoding="utf-8")
    line, seconds = one_line_error(nt, timeout=120)
    assert "save it as Turtle" in line and seconds < 5
    (tmp_path / "long.ttl").write_text(triples, encoding="utf-8")
    assert len(read_terms(tmp_path / "long.ttl")["http://x.org/a"].name) == 4_000_000


TURTLE_HEAD = ("@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
               "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n")


@pytest.mark.parametrize("literal, words", [
    ('"""' + "a\n" * 200_000 + '"""', "a literal (between triple quotes) of 391 KB"),
    ('"' + "\\t" * 1_000_000 + '"', "a line of more than 100,000 escapes"),
])
def test_turtle_literals_rdflib_reads_in_quadratic_time_are_refused_at_once(tmp_path, literal, words):
    """rdflib's Turtle reader is quadratic in a literal's lines and escapes (2 MB of escapes
    took 14 s): such a literal is refused before it starts."""
    ttl = tmp_path / "long.ttl"
    ttl.write_text(TURTLE_HEAD + f"<http://x.org/a> a owl:Class ; rdfs:comment {literal} .\n", encoding="utf-8")
    line, seconds = one_line_error(ttl, timeout=120)
    assert words in line and seconds < 5


def test_turtle_literals_far_apart_read(tmp_path):
    """Two short triple-quoted literals with a megabyte of triples between them: read."""
    middle = "".join(f"<http://x.org/c{i}> a owl:Class ; rdfs:subClassOf <http://x.org/a> .\n" for i in range(12_000))
    ttl = tmp_path / "apart.ttl"
    ttl.write_text(TURTLE_HEAD + '<http://x.org/a> a owl:Class ; rdfs:label """first""" .\n' + middle
                   + '<http://x.org/b> a owl:Class ; rdfs:label """last""" .\n', encoding="utf-8")
    terms = read_terms(ttl)
    assert terms["http://x.org/a"].name == "first" and terms["http://x.org/b"].name == "last" and len(terms) > 12_000


# ---- CSV ----------------------------------------------------------------------------------------
def test_a_csv_cell_over_the_csv_modules_limit_reads(tmp_path):
    table = tmp_path / "long.csv"
    description = "word " * 40_000  # 200 KB: csv's default field limit is 128 KB
    table.write_text(f'id,name,parent,description\nR,root,,\nK,kind,R,"{description}"\nT,thing,K,\n',
                     encoding="utf-8")
    assert read_terms(table)["K"].definition == description.strip()


def test_an_unterminated_quote_names_the_line_it_opens_on(tmp_path):
    table = tmp_path / "quote.csv"
    table.write_text('id,name,parent,description\nR,root,,\nK,kind,R,"fine\nover two lines"\n'
                     'T,thing,K,"never closed\nU,under,K,\n', encoding="utf-8")
    line, _ = one_line_error(table, "--root", "R")
    assert "line 5: the quote opening a cell is never closed" in line


def test_text_after_a_closing_quote_is_one_line(tmp_path):
    table = tmp_path / "after.csv"
    table.write_text('id,name\nR,"root" node\n', encoding="utf-8")
    assert "line 2" in refused(table)


# ---- size --------------------------------------------------------------------------------------
def big_table(path: Path) -> Path:
    """A CSV of 1.2 MB: three terms, one with a long description."""
    path.write_text(f"id,name,parent,description\nR,root,,\nK,kind,R,\nT,thing,K,{'long ' * 250_000}\n",
                    encoding="utf-8")
    return path


def test_a_file_over_the_size_limit_is_refused_until_the_limit_is_raised(tmp_path):
    table = big_table(tmp_path / "big.csv")
    line, _ = one_line_error(table, "--root", "R", "--max-mb", "1")
    assert "1.19 MB, above the 1 MB limit" in line and "--max-mb 2" in line
    summary = json.loads(ok(["ontology", "import", str(table), "--root", "R", "--name", "big", "--max-mb", "2",
                             "--out", str(tmp_path / "out2"), "--json"], {}))
    assert summary["terms_read"] == 3


@pytest.mark.neo4j
def test_draft_reads_its_seed_through_the_same_guards(migrated_env, tmp_path):
    guide = tmp_path / "guide.md"
    guide.write_text("# Faults\n\nA motor overload trips the drive. Check the encoder after a stall.\n")
    ok(["ingest", str(guide)], migrated_env)
    laughs = tmp_path / "laughs.owl"
    laughs.write_text(billion_laughs(), encoding="utf-8")
    started = time.monotonic()
    result = invoke(["ontology", "draft", "--name", "d", "--out", str(tmp_path / "out"), "--seed", str(laughs),
                     "--root", "http://x.org/a"], migrated_env)
    assert result.exit_code == 1 and "refers to another entity" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and time.monotonic() - started < 30
    big = big_table(tmp_path / "big.csv")
    limited = invoke(["ontology", "draft", "--name", "d", "--out", str(tmp_path / "out"), "--seed", str(big),
                      "--root", "R", "--max-mb", "1"], migrated_env)
    assert limited.exit_code == 1 and "--max-mb 2" in limited.stderr and not (tmp_path / "out").exists()
