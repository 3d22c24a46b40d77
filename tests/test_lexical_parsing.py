"""Reading and chunking documents, without a database."""
import re
from pathlib import Path

import pytest

from pdfgen import encrypted, make_pdf, with_outline
from tripartite.infra.config import load_settings
from tripartite.infra.paths import samples_dir
from tripartite.lexical.chunker import chunk_document
from tripartite.lexical.markdown import markdown_sections
from tripartite.lexical.ids import readable_ids
from tripartite.lexical.readers import EmptyDocument, IngestError, discover, hidden_line, read_document
from tripartite.lexical.sentences import split_paragraphs, split_sentences
from tripartite.lexical.token_counters import WordPieceCounter

SAMPLES = samples_dir() / "guidelines"


@pytest.fixture(scope="module")
def counter():
    return WordPieceCounter(load_settings(env={}).cache_dir)


# ---- sentences -------------------------------------------------------------------------------
def test_sentences_keep_abbreviations_decimals_and_initials():
    text = "Take 2.5 mg daily, e.g. with food. Dr. Smith agreed. J. R. Doe wrote Fig. 2 in the U.S. report! Is it ok? Yes."
    assert split_sentences(text) == [
        "Take 2.5 mg daily, e.g. with food.", "Dr. Smith agreed.",
        "J. R. Doe wrote Fig. 2 in the U.S. report!", "Is it ok?", "Yes."]


def test_paragraphs_list_items_and_code_blocks_are_boundaries():
    text = "One line\ncontinues here.\n\n- first item\n- second item\n\n```\ncode; here.\nMore code.\n```\nAfter."
    assert split_paragraphs(text) == ["One line\ncontinues here.", "- first item", "- second item",
                                      "```\ncode; here.\nMore code.\n```", "After."]


def test_a_table_is_one_block_whose_rows_are_its_sentences(counter):
    text = "Doses:\n| Drug | Dose |\n|---|---|\n| Apixaban | 5 mg |\nAfter the table.\n\n| Other | table |"
    assert split_paragraphs(text) == ["Doses:", "| Drug | Dose |\n|---|---|\n| Apixaban | 5 mg |", "After the table.",
                                      "| Other | table |"]
    assert split_sentences(split_paragraphs(text)[1]) == ["| Drug | Dose |", "|---|---|", "| Apixaban | 5 mg |"]
    # A chunk keeps the table as Markdown reads it: rows on consecutive lines, no blank line between.
    doc = read_document(SAMPLES / "hypertension.md", "x")
    from dataclasses import replace
    doc = replace(doc, sections=(replace(doc.sections[0], body=text),))
    assert [c.text for c in chunk_document(doc, counter).chunks] == [
        "Doses:\n\n| Drug | Dose |\n|---|---|\n| Apixaban | 5 mg |\n\nAfter the table.\n\n| Other | table |"]


# ---- markdown --------------------------------------------------------------------------------
def test_markdown_heading_tree():
    text = ("---\ntitle: x\n---\nPreamble text.\n\n# Top\nIntro.\n\n## A\nText A.\n\n### A1\nDeep.\n\n"
            "```\n# not a heading\n```\n\n## B\nText B.\n\nSetext\n------\nUnder setext.\n")
    sections = markdown_sections(text, "Doc")
    assert [(s.title, s.level, s.parent) for s in sections] == [
        ("Doc", 1, None), ("Top", 1, None), ("A", 2, 1), ("A1", 3, 2), ("B", 2, 1), ("Setext", 2, 1)]
    assert sections[3].path == ("Top", "A", "A1")
    assert "# not a heading" in sections[3].body
    assert sections[0].body == "Preamble text."


@pytest.mark.parametrize("opening", [
    "---\nA paragraph between two rules, not keys and values.\n---\n",
    "---\nkey: [never closed\n---\n",
])
def test_rules_at_the_start_that_hold_no_yaml_mapping_keep_their_text(opening):
    sections = markdown_sections(opening + "# Top\nIntro.\n", "Doc")
    assert sections[0].title == "Doc"
    assert opening.split("\n")[1] in sections[0].body
    assert [s.title for s in sections] == ["Doc", "Top"]


def test_html_comments_are_no_text_and_hold_no_headings():
    text = "# Top\nIntro.\n\n<!--\n# Hidden\nEditor's note: do not publish.\n-->\n<!-- one line -->\nAfter.\n"
    sections = markdown_sections(text, "Doc")
    assert [s.title for s in sections] == ["Top"]
    assert "Hidden" not in sections[0].body and "note" not in sections[0].body and "<!--" not in sections[0].body
    assert "Intro." in sections[0].body and "After." in sections[0].body
    unclosed = markdown_sections("# Top\nIntro.\n\n<!-- never closed\n\nThe rest.\n", "Doc")
    assert "The rest." in unclosed[0].body  # kept, not swallowed to the end
    far = markdown_sections("<!-- TODO\n" + "Line of text.\n" * 40 + "## Flow\n```mermaid\nA --> B\n```\n", "Doc")
    assert [s.title for s in far] == ["Doc", "Flow"] and "Line of text." in far[0].body
    assert markdown_sections("# T\n<!-- a --> visible text\n", "Doc")[0].body == "visible text"


def test_a_fence_closes_only_on_its_own_kind():
    text = ("# Top\n~~~markdown\n```bash\n# install the tool\n```\n~~~\n\nAfter one.\n\n"
            "````\n```\n# not a heading\n```\n````\n\nAfter two.\n\n## Real\nText.\n")
    sections = markdown_sections(text, "Doc")
    assert [s.title for s in sections] == ["Top", "Real"]
    assert "# install the tool" in sections[0].body and "After two." in sections[0].body


def test_empty_front_matter_is_skipped():
    assert [(s.title, s.body) for s in markdown_sections("---\n---\n# Top\nIntro.\n", "Doc")] == [("Top", "Intro.")]


def test_skipped_heading_levels_nest_under_the_nearest_ancestor():
    sections = markdown_sections("# T\n#### Deep\nx\n## Back\ny", "Doc")
    assert [(s.title, s.parent) for s in sections] == [("T", None), ("Deep", 0), ("Back", 0)]


# ---- chunking ---------------------------------------------------------------------------------
def _words(text: str) -> list[str]:
    return text.split()


def test_chunks_fit_the_window_keep_every_word_and_end_on_sentences(counter):
    doc = read_document(SAMPLES / "hypertension.md", "hypertension")
    records = chunk_document(doc, counter, max_tokens=60)
    assert len(records.chunks) > len(doc.sections) - 2
    real = counter.count_many([c.text for c in records.chunks])
    assert real == [c.token_count for c in records.chunks]
    assert max(real) <= 60
    by_section = {}
    for chunk in records.chunks:
        by_section.setdefault(chunk.section_id, []).append(chunk.text)
        assert re.search(r"[.!?:)]$", chunk.text), chunk.text  # a sentence boundary
    for section, record in zip(doc.sections, records.sections):
        assert _words(" ".join(by_section.get(record.id, []))) == _words(" ".join(
            " ".join(p.split()) for p in split_paragraphs(section.body)))
    assert [c.index for c in records.chunks] == list(range(len(records.chunks)))


def test_overlong_sentence_is_split_between_words(counter):
    long_sentence = " ".join(f"word{i}" for i in range(600)) + "."
    doc_path = SAMPLES / "hypertension.md"
    doc = read_document(doc_path, "x")
    from dataclasses import replace
    doc = replace(doc, sections=(replace(doc.sections[0], body=long_sentence),))
    chunks = chunk_document(doc, counter, max_tokens=100).chunks
    assert len(chunks) > 5 and all(c.token_count <= 100 for c in chunks)
    assert _words(" ".join(c.text for c in chunks)) == _words(long_sentence)


def test_chunk_ids_are_stable_and_content_addressed(counter):
    first = chunk_document(read_document(SAMPLES / "heart-failure.md", "hf"), counter)
    second = chunk_document(read_document(SAMPLES / "heart-failure.md", "hf"), counter)
    assert [c.id for c in first.chunks] == [c.id for c in second.chunks]
    assert [s.id for s in first.sections] == [s.id for s in second.sections]
    assert len({c.id for c in first.chunks}) == len(first.chunks)
    assert all(c.id.startswith("hf:") for c in first.chunks)
    smaller = chunk_document(read_document(SAMPLES / "heart-failure.md", "hf"), counter, max_tokens=40)
    assert smaller.chunker != first.chunker  # a new size re-chunks on the next ingest


def test_list_items_written_as_headings_are_chunked_with_the_text_they_follow(tmp_path, counter):
    path = tmp_path / "converted.md"
    path.write_text("# Heart\n\n## Causes\n\nCauses include:\n\n### Diabetes\n\n### High blood pressure\n\n"
                    "## Lifestyle\n\nHabits include:\n\n## Alcohol\n\n## Quitting smoking\n\n"
                    "## Outlook\n\n### Early\n\n###\n\nMost people recover.\n\n"
                    "## Control\n\nExercise lowers it.\n\n## Factors You Can't Control\n\n## Heredity\n\nIt runs in families.\n")
    doc = read_document(path, "heart")
    records = chunk_document(doc, counter)
    by_section = {s.title: [c.text for c in records.chunks if c.section_id == s.id] for s in records.sections}
    # children of the text they follow, and siblings of it: the list's items, in reading order
    assert by_section["Causes"] == ["Causes include:\n\nDiabetes\n\nHigh blood pressure"]
    assert by_section["Lifestyle"] == ["Habits include:\n\nAlcohol\n\nQuitting smoking"]
    assert by_section["Diabetes"] == by_section["Alcohol"] == []
    # an empty heading with no text before it under its parent stays a section without chunks,
    # and a bare "###" adds no words of its own
    assert by_section["Early"] == [] and by_section["(untitled level 3)"] == ["Most people recover."]
    assert "Early" not in " ".join(c.text for c in records.chunks)
    # after a finished sentence, an empty heading is a heading whose subsections were flattened
    # beside it, not a list's item
    assert by_section["Control"] == ["Exercise lowers it."] and by_section["Factors You Can't Control"] == []
    # the chunks changed for this document, so its signature did; a document without such
    # headings keeps the signature it had, and is not re-chunked by the upgrade
    assert records.chunker.startswith("sentences-v2/")
    plain = chunk_document(read_document(SAMPLES / "heart-failure.md", "hf"), counter)
    assert plain.chunker.startswith("sentences-v1/")


def test_default_chunks_fit_minilm(counter):
    doc = read_document(SAMPLES / "atrial-fibrillation.md", "af")
    records = chunk_document(doc, counter)
    assert max(counter.count_many([c.text for c in records.chunks])) + 2 <= 256


# ---- readers and bad input ----------------------------------------------------------------------
def test_text_without_headings_is_one_section(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Just some notes. Nothing else.\n\nSecond paragraph.")
    doc = read_document(path, "notes")
    assert doc.format == "text" and [s.title for s in doc.sections] == ["notes"]
    md = tmp_path / "plain.md"
    md.write_text("No headings at all. Only text.")
    assert [s.title for s in read_document(md, "plain").sections] == ["plain"]


@pytest.mark.parametrize("content", [b"", b"   \n\n\t\n"])
def test_empty_files_are_skipped_not_fatal(tmp_path, content):
    path = tmp_path / "empty.md"
    path.write_bytes(content)
    with pytest.raises(EmptyDocument, match="empty.md: no text to ingest"):
        read_document(path, "empty")


@pytest.mark.parametrize("content, message", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file, not text"),
    ("Caf\xe9 au lait.".encode("latin-1"), r"not UTF-8 \(invalid byte 0xe9 at offset 3\)"),
])
def test_binary_and_non_utf8_files_are_one_line_errors(tmp_path, content, message):
    path = tmp_path / "bad.md"
    path.write_bytes(content)
    with pytest.raises(IngestError, match=message) as info:
        read_document(path, "bad")
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)


def test_utf8_bom_and_crlf_are_fine(tmp_path):
    path = tmp_path / "bom.md"
    path.write_bytes("\ufeff# Title\r\nBody text.\r\n".encode("utf-8"))
    doc = read_document(path, "bom")
    assert doc.title == "Title" and doc.sections[0].body == "Body text."


def test_files_above_the_size_limit_are_refused(tmp_path):
    path = tmp_path / "big.md"
    path.write_text("Words. " * 1000)
    with pytest.raises(IngestError, match="above the 0 MB limit; split the file or raise --max-mb"):
        read_document(path, "big", max_bytes=1000)


def test_pdf_pages_become_sections(tmp_path):
    path = tmp_path / "paper.pdf"
    path.write_bytes(make_pdf([["First page text."], [], ["Third page text."]]))
    doc = read_document(path, "paper")
    assert doc.format == "pdf"
    assert [s.title for s in doc.sections] == ["Page 1", "Page 3"]
    assert "Third page text." in doc.sections[1].body


def test_pdf_outline_becomes_the_section_tree(tmp_path):
    path = tmp_path / "outlined.pdf"
    pdf = make_pdf([["Introduction text."], ["Methods text."], ["Details of the methods."]])
    path.write_bytes(with_outline(pdf, [("Introduction", 0, 1), ("Methods", 1, 1), ("Details", 2, 2)]))
    doc = read_document(path, "outlined")
    assert [(s.title, s.level, s.parent) for s in doc.sections] == [
        ("Introduction", 1, None), ("Methods", 1, None), ("Details", 2, 1)]
    assert doc.sections[2].path == ("Methods", "Details")


@pytest.mark.parametrize("make, message", [
    (lambda: encrypted(make_pdf([["Secret."]]), "pw"), "encrypted PDF that needs a password"),
    (lambda: b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog", "broken or unreadable PDF"),
    (lambda: b"not a pdf at all", "broken or unreadable PDF"),
    (lambda: make_pdf([[], []]), "PDF has no text layer"),
])
def test_bad_pdfs_are_one_line_errors(tmp_path, make, message):
    path = tmp_path / "bad.pdf"
    path.write_bytes(make())
    with pytest.raises(IngestError, match=message) as info:
        read_document(path, "bad")
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)


def test_pdf_encrypted_without_user_password_opens(tmp_path):
    path = tmp_path / "open.pdf"
    path.write_bytes(encrypted(make_pdf([["Readable by anyone."]]), ""))
    assert "Readable by anyone." in read_document(path, "open").sections[0].body


def test_discover_lists_unsupported_and_missing(tmp_path):
    (tmp_path / "a.md").write_text("# A\nx")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("b")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    (tmp_path / ".hidden.md").write_text("# hidden")
    found = discover([tmp_path, tmp_path / "nope.md"])
    assert [p.name for p in found.supported] == ["a.md", "b.txt"]
    assert [p.name for p in found.unsupported] == ["image.png"]
    assert [p.name for p in found.missing] == ["nope.md"]
    assert [p.name for p in found.hidden] == [".hidden.md"]


def test_discover_names_each_hidden_entry_once_and_reads_a_hidden_file_named_itself(tmp_path):
    (tmp_path / ".git" / "objects").mkdir(parents=True)
    for n in range(5):
        (tmp_path / ".git" / "objects" / f"{n}.md").write_text("x")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / ".draft.md").write_text("# Draft\nx")
    (tmp_path / "docs" / "kept.md").write_text("# Kept\nx")
    found = discover([tmp_path])
    assert [p.relative_to(tmp_path).as_posix() for p in found.hidden] == [".git", "docs/.draft.md"]
    assert [p.name for p in found.supported] == ["kept.md"]
    line = hidden_line(found.hidden)
    assert line.startswith("skipped   2 hidden entries (names starting with '.'): ") and "\n" not in line
    assert hidden_line([]) is None
    named = discover([tmp_path / "docs" / ".draft.md"])
    assert [p.name for p in named.supported] == [".draft.md"] and not named.hidden


def test_document_ids_are_readable_and_unique():
    ids = readable_ids([Path("/x/guides/heart-failure.md"), Path("/y/guides/heart-failure.md"),
                        Path("/y/guides/Atrial Fibrillation.md")])
    assert ids[Path("/y/guides/Atrial Fibrillation.md")] == "atrial-fibrillation"
    assert len(set(ids.values())) == 3
