"""RDF/XML guarded against what a hostile file can do to an XML parser, and read into an rdflib
graph without rdflib's quadratic paths.

Before any parser sees the file (checked_utf8, for rdflib and for rdfxml_stream.py's reader),
the DOCTYPE is checked with expat itself (so nothing it would read differently slips past):
internal entities with plain text, as Protégé writes them to
abbreviate namespaces (<!ENTITY owl "http://www.w3.org/2002/07/owl#">, used as &owl;Class),
are read; external entities and DTDs (a file or URL), parameter entities, entities whose text
refers to another entity (the billion laughs: 1 KB expanding to gigabytes) and attribute
defaults (<!ATTLIST>, repeated on every element) are refused, and so are entities whose
references in the file would expand it more than EXPANSION times. The file is transcoded to
UTF-8 first so that those references can be counted in its bytes.

Then rdflib's own handler reads it behind a filter (_TextRuns) that removes its quadratic
paths: it appends each piece of text expat delivers (every line, every entity) to the text so
far, parses an XML literal again at each of its elements, copies its namespace map at each
declaration, and tries prefix1, prefix2... for a prefix declared again. The filter hands it
each run of text in one piece, an XML literal as its text (a label or a definition is prose
to us, not markup), and no namespace declarations (rdflib needs them only for XML literals).
"""
from __future__ import annotations

import codecs
import io
import re
from collections import Counter
from pathlib import Path
from xml.parsers import expat
from typing import TYPE_CHECKING
from xml.sax import handler, xmlreader

from tripartite.ontology.reader import OntologyError

if TYPE_CHECKING:
    from rdflib import Graph

EXPANSION = 10          # entities may expand the file this many times over (Protégé's: about once)
EXPANSION_FLOOR = 2**20  # and a small file by this many bytes
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
DECLARATION = re.compile(r"""\A(<\?xml\s[^>]*?\bencoding\s*=\s*)(["'])([A-Za-z][A-Za-z0-9._-]*)\2""")
REFERENCE = re.compile(rb"&([^\s&;#<>\"'%]+);")


def checked_utf8(path: Path, data: bytes) -> bytes:
    """The document as UTF-8, its DOCTYPE checked: what any parser may then be given."""
    data = _as_utf8(path, data)
    _check_entities(path, data)
    return data


def parse_rdf_xml(path: Path, data: bytes, graph: Graph) -> None:
    """The document (as checked_utf8 gives it) into the graph by rdflib's parser."""
    from rdflib.plugins.parsers.rdfxml import create_parser
    source = xmlreader.InputSource(path.resolve().as_uri())  # the base of relative IRIs, as rdflib gives it
    source.setByteStream(_WholeRead(data))
    reader = create_parser(source, graph)
    reader.setContentHandler(_TextRuns(reader.getContentHandler()))
    reader.parse(source)


def _as_utf8(path: Path, data: bytes) -> bytes:
    """The document as UTF-8, its declaration saying so."""
    head = data[:4]
    if head.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    elif head[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        encoding = "utf-16"
    elif head == b"<\0?\0":
        encoding = "utf-16-le"
    elif head == b"\0<\0?":
        encoding = "utf-16-be"
    else:
        declared = DECLARATION.match(data[:200].decode("latin-1"))
        encoding = declared.group(3) if declared else "UTF-8"
    try:
        text = data.decode(encoding)
    except LookupError:
        raise OntologyError(f"{path}: declares the unknown encoding {encoding!r}; save it as UTF-8") from None
    except UnicodeDecodeError:
        raise OntologyError(f"{path}: not {encoding.removesuffix('-sig').upper()} text; save it as UTF-8") from None
    return DECLARATION.sub(r"\1\2UTF-8\2", text, count=1).encode("utf-8")


class _Prolog(Exception):
    """Raised at the first element: the DOCTYPE, if any, is behind."""


def _check_entities(path: Path, data: bytes) -> None:
    entities: dict[str, str] = {}

    def refuse(problem: str) -> None:
        raise OntologyError(f"{path}: {problem}")

    def xml_declaration(version, encoding, standalone) -> None:
        if encoding and encoding.lower().replace("-", "") != "utf8":  # _as_utf8 missed a declaration
            refuse(f"declares the encoding {encoding!r} in a way not understood here; save it as UTF-8")

    def doctype(name, system_id, public_id, has_internal_subset) -> None:
        if system_id or public_id:
            refuse(f"its DOCTYPE names an external DTD ({system_id or public_id}), which is not read; remove the "
                   "SYSTEM or PUBLIC part and write any entities it declares into the DOCTYPE")

    def entity(name, is_parameter, value, base, system_id, public_id, notation) -> None:
        if is_parameter:
            refuse(f"its DOCTYPE declares the parameter entity {name}, which is not read; write the declarations "
                   "it stands for out in full")
        if value is None:
            refuse(f"the entity {name} is external ({system_id or public_id}) and is not read; write its text in "
                   f"the declaration, <!ENTITY {name} \"...\">")
        if "&" in value or "%" in value:
            refuse(f"the entity {name} refers to another entity, which is not read (nested entities let 1 KB "
                   "expand to gigabytes); write each entity's text out in full")
        entities.setdefault(name, value)  # the first declaration counts, as in expat

    def attribute_defaults(*_) -> None:
        refuse("its DOCTYPE declares attribute defaults (<!ATTLIST>), which are not read; remove them")

    def first_element(*_) -> None:
        raise _Prolog

    parser = expat.ParserCreate(None, " ")  # set up as xml.sax sets up the parse that follows
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_UNLESS_STANDALONE)
    parser.ExternalEntityRefHandler = lambda *_: 1  # not read, as there
    parser.XmlDeclHandler = xml_declaration
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    parser.AttlistDeclHandler = attribute_defaults
    parser.StartElementHandler = first_element
    try:
        parser.Parse(data, True)
    except (_Prolog, expat.ExpatError):
        pass  # a malformed prolog fails the same way in rdflib's parse, with its words
    if entities:
        _check_expansion(path, data, entities)


def _check_expansion(path: Path, data: bytes, entities: dict[str, str]) -> None:
    """The text the file's entity references expand to, bounded relative to its size (it
    may count references in comments too: over, never under)."""
    counts = Counter(match.group(1) for match in REFERENCE.finditer(data))
    expansion = sum(counts[name.encode("utf-8")] * len(value.encode("utf-8")) for name, value in entities.items())
    if expansion > EXPANSION * len(data) + EXPANSION_FLOOR:
        raise OntologyError(f"{path}: its entities would expand to {expansion / 2**20:.1f} MB, "
                            f"{expansion / len(data):.0f} times the file; write their text out in place")


class _WholeRead(io.BytesIO):
    """Gives expat the whole document in one read: expat before 2.6 parses a token split over
    reads again from its start at each read, quadratic in a long attribute."""

    def read(self, size: int | None = -1) -> bytes:
        return super().read()


class _TextRuns(handler.ContentHandler):
    """Between expat and rdflib's handler: text in one piece per run, XML literals as their
    text, no namespace declarations (see the module's docstring for why)."""

    def __init__(self, inner: handler.ContentHandler):
        super().__init__()
        self.inner = inner
        self.text: list[str] = []
        self.literal_depth = 0  # > 0 inside an XML literal: its elements are left out

    def _flush(self) -> None:
        if self.text:
            text = "".join(self.text)
            self.text.clear()
            self.inner.characters(text)

    def setDocumentLocator(self, locator) -> None:  # noqa: N802 (the SAX API's names)
        self.inner.setDocumentLocator(locator)

    def startDocument(self) -> None:  # noqa: N802
        self.inner.startDocument()

    def endDocument(self) -> None:  # noqa: N802
        self._flush()
        self.inner.endDocument()

    def characters(self, content: str) -> None:
        self.text.append(content)

    def startElementNS(self, name, qname, attrs) -> None:  # noqa: N802
        if self.literal_depth:
            self.literal_depth += 1
            return
        self._flush()
        parse_type = attrs.get((RDF_NS, "parseType"), attrs.get((None, "parseType")))
        if parse_type is not None and parse_type not in ("Resource", "Collection"):  # rdflib: any other is Literal
            self.literal_depth = 1
            kept = [key for key in attrs.keys() if key[1] != "parseType" or key[0] not in (RDF_NS, None)]
            attrs = xmlreader.AttributesNSImpl({key: attrs[key] for key in kept},
                                               {key: attrs.getQNameByName(key) for key in kept})
        self.inner.startElementNS(name, qname, attrs)

    def endElementNS(self, name, qname) -> None:  # noqa: N802
        if self.literal_depth > 1:
            self.literal_depth -= 1
            return
        self.literal_depth = 0
        self._flush()
        self.inner.endElementNS(name, qname)
