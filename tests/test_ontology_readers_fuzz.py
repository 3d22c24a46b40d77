"""Every reader on inputs a user could be handed: the fixtures mutated (bytes cut, inserted,
repeated, the format's risky tokens spliced in) and random bytes. Each must read or stop
with an OntologyError, never another exception, and quickly (hypothesis' deadline); JSON-LD
documents built at random with contexts anywhere must make no request."""
from __future__ import annotations

import http.server
import json
import tempfile
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_ontology_readers import Recorder
from tripartite.ontology.branch import take_branch
from tripartite.ontology.reader import OntologyError
from tripartite.ontology.sources import read_terms

# rdflib's JSON-LD parser warns about its own use of ConjunctiveGraph
pytestmark = pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated:DeprecationWarning")
FIXTURES = Path(__file__).parent / "fixtures" / "ontologies"
FUZZ = settings(max_examples=60, deadline=timedelta(seconds=3))
CONTEXT_URL = "http://127.0.0.1:{port}/context.jsonld"

# Per format, tokens that change how the rest of the file is read.
TOKENS = {
    ".obo": [b"[Term]\n", b"[Typedef]\n", b"id: MF:0000011\n", b"is_a: MF:0000001\n", b"name: ",
             b'synonym: "x" EXACT []\n', b"is_obsolete: true\n", b"! a comment\n", b"!", b"\\", b"{", b'"', b"\n",
             b"\xff", b"intersection_of: MF:0000001\n", b'synonym: "y (disorder)" EXACT OMO:0003012 []\n', b"[",
             b"]"],
    ".owl": [b'<!DOCTYPE rdf:RDF [<!ENTITY a "&m;&m;">]>',
             b'<!DOCTYPE rdf:RDF [<!ENTITY m SYSTEM "file:///etc/hostname">]>',
             b"&m;", b"&owl;", b'rdf:parseType="Literal"', b'rdf:parseType="Collection"', b"<![CDATA[", b"]]>",
             b"&#0;", b'xmlns:p="http://x.org/"', b"<b>", b"</b>", b"<", b">", b'"',
             b'<?xml version="1.0" encoding="UTF-16"?>', b'rdf:nodeID="n1"', b'rdf:about="#a"', b'xml:base="x/"',
             b'xml:lang="de"', b"<owl:Axiom>", b"</owl:Axiom>", b'rdf:datatype="http://x.org/t"'],
    ".ttl": [b'"""', b"'''", b"@prefix m: <http://x.org/> .", b"@base <../> .", b"[", b"]", b"(", b")", b"\\u00",
             b"<", b">", b"#", b" . ", b" ; ", b"^^", b"@en"],
    ".jsonld": [b'"@context": "http://127.0.0.1:9/c", ', b'"@import": "file:///etc/hostname", ', b'"@context": {}, ',
                b"{", b"}", b"[", b"]", b'"', b",", b":", b'"@graph": [', b'"@list": ['],
    ".csv": [b'"', b'""', b",", b"\n", b"\r", b"|", b";", b"\x00", b"id,name\n", b"\xef\xbb\xbf"],
}
SEEDS = [("machines.obo", ".obo"), ("machines.owl", ".owl"), ("machines-entities.owl", ".owl"),
         ("machines.ttl", ".ttl"), ("machines.jsonld", ".jsonld"), ("machines.csv", ".csv"),
         # OWLAPI's shapes (axioms, equivalentClass lists), read by the stream, and its OBO twin
         ("defined.owl", ".owl"), ("defined.obo", ".obo"), ("thesaurus-codes.rdf", ".owl")]


@st.composite
def mutated(draw, seed: bytes, tokens: list[bytes]) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(["cut", "insert", "token", "repeat", "truncate"]))
        if edit == "cut":
            del data[at:at + draw(st.integers(1, 80))]
        elif edit == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=12))
        elif edit == "token":
            data[at:at] = draw(st.sampled_from(tokens))
        elif edit == "repeat":
            data[at:at] = data[at:at + draw(st.integers(1, 60))] * draw(st.integers(2, 200))
        else:
            del data[at:]
    return bytes(data)


def read_or_refuse(folder: Path, suffix: str, data: bytes) -> None:
    """Read the bytes as a file of that suffix, and take a branch of what was read."""
    path = folder / f"input{suffix}"
    path.write_bytes(data)
    try:
        terms = read_terms(path)
        if terms:
            take_branch(terms, next(iter(terms)), str(path))
    except OntologyError as exc:
        assert str(exc) and "\n" not in str(exc)


@pytest.fixture(scope="module")
def folder():
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


@pytest.mark.parametrize("seed, suffix", SEEDS)
def test_mutated_fixtures_read_or_raise_an_ontology_error(folder, seed, suffix):
    @FUZZ
    @given(mutated((FIXTURES / seed).read_bytes(), TOKENS[suffix]))
    def check(data: bytes) -> None:
        read_or_refuse(folder, suffix, data)

    check()


@pytest.mark.parametrize("suffix", sorted(TOKENS))
def test_random_bytes_read_or_raise_an_ontology_error(folder, suffix):
    @FUZZ
    @given(st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
    def check(data: bytes) -> None:
        read_or_refuse(folder, suffix, data)

    check()


def json_ld(url: str):
    """JSON values whose keys are JSON-LD's, with contexts of any kind anywhere, some remote."""
    keys = st.sampled_from(["@context", "@import", "@id", "@type", "@graph", "@list", "@value", "@language",
                            "@vocab", "@base", "label", "http://www.w3.org/2000/01/rdf-schema#label",
                            "http://www.w3.org/2000/01/rdf-schema#subClassOf"])
    leaves = st.none() | st.booleans() | st.integers() | st.sampled_from(
        [url, "http://x.org/a", "http://www.w3.org/2002/07/owl#Class", "@id", "en", "a label"])
    return st.recursive(leaves, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5),
                        max_leaves=25)


def test_json_ld_with_contexts_anywhere_reads_or_raises_and_fetches_nothing(folder):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    Recorder.requests = []
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        @settings(FUZZ, max_examples=150)
        @given(json_ld(CONTEXT_URL.format(port=server.server_address[1])))
        def check(document) -> None:
            read_or_refuse(folder, ".jsonld", json.dumps(document).encode())

        check()
    finally:
        server.shutdown()
        server.server_close()
    assert Recorder.requests == []
