"""Cypher script files: splitting them into statements, and the header every script carries."""
import pytest

from tripartite.infra.cypher import CypherScriptError, split_statements


def texts(source: str) -> list[str]:
    return [s.text for s in split_statements(source)]


def test_splits_on_semicolons_between_statements():
    assert texts("CREATE (a:A);\nCREATE (b:B);\n") == ["CREATE (a:A)", "CREATE (b:B)"]


def test_last_statement_needs_no_semicolon():
    assert texts("RETURN 1;\nRETURN 2") == ["RETURN 1", "RETURN 2"]


@pytest.mark.parametrize("literal", [
    "'a;b'", '"a;b"', "'it\\'s; fine'", '"say \\"hi\\"; bye"', "'a // not a comment; ok'",
    "'/* not; a comment */'",
])
def test_semicolons_inside_strings_do_not_split(literal):
    assert texts(f"RETURN {literal} AS x; RETURN 2") == [f"RETURN {literal} AS x", "RETURN 2"]


def test_semicolons_inside_quoted_identifiers_do_not_split():
    assert texts("MATCH (n:`odd;label`) RETURN n.`a``;b`; RETURN 1") == [
        "MATCH (n:`odd;label`) RETURN n.`a``;b`", "RETURN 1"]


def test_semicolons_inside_comments_do_not_split():
    source = "// first; still a comment\nRETURN 1 /* inline; block\n over lines; */ AS x;\nRETURN 2 // trailing; note\n"
    assert len(texts(source)) == 2
    assert texts(source)[0].endswith("AS x")


def test_comment_only_pieces_are_dropped():
    assert texts("// header\n;\n/* nothing */;\nRETURN 1;\n// footer\n") == ["RETURN 1"]


def test_browser_param_lines_are_skipped():
    source = ":param alpha => 0.9\n:param beta => 0.5;\nRETURN $alpha + $beta AS s;\n"
    assert texts(source) == ["RETURN $alpha + $beta AS s"]


def test_statement_lines_are_reported():
    statements = split_statements("// intro\n\nRETURN 1;\n\n  RETURN 'x\ny';\nRETURN 3")
    assert [s.line for s in statements] == [3, 5, 7]


@pytest.mark.parametrize("source, message", [
    ("RETURN 'open;", "string opened with ' is never closed"),
    ('RETURN "open', 'string opened with " is never closed'),
    ("MATCH (n:`open) RETURN n", "quoted identifier opened with ` is never closed"),
    ("RETURN 1 /* never closed", "block comment is never closed"),
])
def test_unterminated_literals_are_errors_naming_the_line(source, message):
    with pytest.raises(CypherScriptError, match=message) as info:
        split_statements("RETURN 0;\n" + source, origin="V009__x.cypher")
    assert "V009__x.cypher:2" in str(info.value)


def test_every_script_says_what_it_does_and_how_it_runs():
    from tripartite.infra.cypher import MODES, script
    from tripartite.infra.paths import cypher_dir

    root = cypher_dir()
    names = [str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.cypher")
             if p.relative_to(root).parts[0] != "migrations"]  # migrations follow their own runner
    assert len(names) > 40
    for name in names:
        loaded = script(name)
        assert loaded.mode in MODES and loaded.statements, name
        # a script that commits in batches must run as auto-commit statements
        batched = any("IN TRANSACTIONS" in s.text or "IN 2 CONCURRENT" in s.text for s in loaded.statements)
        assert loaded.mode == "auto" or not batched, name


def test_a_script_without_its_header_is_refused(tmp_path, monkeypatch):
    from tripartite.infra import cypher

    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "bare.cypher").write_text("// just a comment\nRETURN 1;")
    monkeypatch.setattr(cypher, "cypher_dir", lambda: tmp_path)
    cypher.script.cache_clear()
    with pytest.raises(CypherScriptError, match="first line must say how the script runs"):
        cypher.script("x/bare")
    cypher.script.cache_clear()
