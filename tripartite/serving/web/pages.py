"""The pages as HTML, rendered on the server from what explain.py and the tools read: no
script, no build step. Every value is escaped; the numbers a reader (or a test) checks are
also data attributes."""
from __future__ import annotations

from html import escape
from urllib.parse import quote

from tripartite.serving.web.links import BrowserLinks
from tripartite.serving.web.mentions import concept_colour, marked_text
from tripartite.serving.web.plot import distribution_svg


def page(title: str, body: str, question: str = "") -> str:
    """A whole page: the header with the question box on every page, then `body`."""
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)} · Tripartite-GraphRAG</title>"
            "<link rel=\"stylesheet\" href=\"/static/ui.css\"></head><body>"
            "<header><a class=\"home\" href=\"/\">Tripartite-GraphRAG</a> <span>why a prompt says what it says</span>"
            f"{question_box(question)}</header><main>{body}</main></body></html>")


def error_page(line: str) -> str:
    return page("Not available", f'<p class="error" role="alert">{escape(line)}</p>'
                                 '<p><a href="/">Back to the objects and documents</a></p>')


def _browser(links: BrowserLinks, kind: str, node_id: str) -> str:
    return (f'<a class="browser" href="{escape(links.to(kind, node_id))}" target="_blank" rel="noopener" '
            f'title="Open in Neo4j Browser">Neo4j Browser</a>')


def _trail(document: str | None, path: list[str]) -> str:
    inner = [p for p in (path or []) if p != document]
    return " > ".join(escape(p) for p in [document or "?"] + inner)


def question_box(question: str = "") -> str:
    return ('<form class="question" action="/ask" method="get"><label for="q">Ask the documents</label>'
            f'<input id="q" name="q" type="search" value="{escape(question)}" required '
            'placeholder="a question; each of the five builders answers with its prompt">'
            '<button type="submit">Compare the builders</button></form>')


def index_page(objects: list[dict], documents: list[dict], links: BrowserLinks) -> str:
    rows = "".join(f'<tr><td><a class="object" href="/objects/{quote(o["id"], safe="")}">{escape(o["id"])}</a></td>'
                   f'<td>{escape(o.get("kind") or "")}</td><td>{escape(o.get("title") or "")}</td>'
                   f'<td class="num">{o["concepts"]}</td><td>{_browser(links, "object", o["id"])}</td></tr>'
                   for o in objects)
    docs = "".join(f'<tr><td><a class="document" href="/documents/{quote(d["id"], safe="")}">'
                   f'{escape(d.get("title") or d["id"])}</a></td><td class="num">{d.get("sections") or 0}</td>'
                   f'<td class="num">{d.get("chunks") or 0}</td><td>{_browser(links, "document", d["id"])}</td></tr>'
                   for d in documents)
    body = ("<h1>Objects</h1>" + (f'<table class="objects"><thead><tr><th>id</th><th>kind</th><th>title</th>'
                                  f'<th>concepts</th><th></th></tr></thead><tbody>{rows}</tbody></table>'
                                  if objects else "<p>No objects yet: add some with <code>tripartite objects add</code>.</p>") +
            "<h1>Documents</h1>" + (f'<table class="documents"><thead><tr><th>title</th><th>sections</th>'
                                    f'<th>chunks</th><th></th></tr></thead><tbody>{docs}</tbody></table>'
                                    if documents else "<p>No documents yet: <code>tripartite ingest FOLDER</code>.</p>"))
    return page("Objects and documents", body)


def _number(value, digits: int = 5) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def object_page(view: dict, links: BrowserLinks) -> str:
    d, built = view["details"], view["prompt"]
    oid = view["object_id"]
    head = (f'<h1>Object {escape(oid)} {_browser(links, "object", oid)}</h1>'
            f'<p class="settings">Selection <b>{escape(d["selection"])}</b>: alpha <b class="alpha">{d["alpha"]:g}</b>, '
            f'beta <b class="beta">{d["beta"]:g}</b>; the prompt has <b class="tokens">{d["tokens"]:,}</b> tokens '
            f'of a budget of {d["max_tokens"]:,}' + (f", {d['dropped']} extracts left out by the budget" if d["dropped"] else "")
            + ".</p>")
    for hue, c in enumerate(view["concepts"]):
        c["hue"] = hue
    legend = "".join(f'<li><a class="chip" data-concept="{escape(c["concept_id"])}" style="{concept_colour(c["hue"])}" '
                     f'href="#concept-{escape(c["concept_id"])}">{escape(c["name"])}</a></li>' for c in view["concepts"])
    text = (f'<section><h2>The object\'s text</h2><ul class="legend">{legend}</ul>'
            f'<div class="object-text">{marked_text(view["text"], view["concepts"])}</div></section>')
    prompt = (f'<section><h2>The prompt as the LLM receives it</h2>'
              f'<pre class="prompt">{escape(built.prompt)}</pre></section>')
    return page(f"Object {oid}", head + text + prompt + _evidence_table(view, links) + _concept_cards(view, links))


def _evidence_table(view: dict, links: BrowserLinks) -> str:
    d, contexts = view["details"], view["contexts"]
    numbers = {r["chunk_id"]: r["n"] for r in d["references"]}
    why = {c["concept_id"]: {s["chunk_id"]: s["why"] for s in c["selected"]} for c in view["concepts"]}
    rows = []
    for c in d["concepts"]:
        for e in c["evidence"]:
            ctx = contexts.get(e["chunk_id"], {})
            around = "".join(f'<p class="{cls}">{escape(t)}</p>' for cls, t in
                             (("before", ctx.get("before")), ("chunk", ctx.get("text")), ("after", ctx.get("after"))) if t)
            rows.append(
                f'<tr class="extract" data-concept="{escape(c["concept_id"])}" data-chunk="{escape(e["chunk_id"])}" '
                f'data-n="{numbers.get(e["chunk_id"], "")}" data-w="{e["w"]}" data-p="{"" if e.get("p") is None else e["p"]}" '
                f'data-reason="{escape(e["reason"])}"><td class="num">[{numbers.get(e["chunk_id"], "?")}]</td>'
                f'<td>{escape(c["name"])}</td><td class="num w">{_number(e["w"])}</td>'
                f'<td class="num p">{_number(e.get("p"), 3)}</td>'
                f'<td><b class="reason">{escape(e["reason"])}</b>: {escape(why.get(c["concept_id"], {}).get(e["chunk_id"], ""))}</td>'
                f'<td><div class="extract-text">{escape(e["text"])}</div><details><summary>{_trail(e.get("document"), e.get("section_path"))}'
                f'</summary><div class="context">{around}</div>'
                f'<a href="/chunks/{quote(e["chunk_id"], safe="")}">in the document</a> '
                f'{_browser(links, "chunk", e["chunk_id"])}</details></td></tr>')
    return ('<section><h2>Why each extract</h2><p>w: the cosine of the object\'s extract and the passage\'s '
            'extract for the concept; P_c: the share of the concept\'s candidates (all objects, all chunks) '
            'scoring at most w.</p><table class="evidence"><thead><tr><th>ref</th><th>concept</th><th>w</th>'
            f'<th>P_c</th><th>reason</th><th>extract and its place</th></tr></thead><tbody>{"".join(rows)}'
            '</tbody></table></section>')


def _concept_cards(view: dict, links: BrowserLinks) -> str:
    cards = []
    for c in view["concepts"]:
        rows = "".join(_candidate_row(x) for x in c["selected"] + c["rejected"] if x["listed"])
        if c["unlisted"]:
            rows += (f'<tr class="more"><td colspan="5">and {c["unlisted"]:,} more selected candidate'
                     f'{"" if c["unlisted"] == 1 else "s"} the prompt\'s budget left out (marked in the plot)</td></tr>')
        thresholds = ", ".join(f"{name} at w &#8805; {w:.5f}" for name, w in (("alpha", c["alpha_w"]), ("beta", c["beta_w"]))
                               if w is not None) or "no thresholds stored"
        count = c["candidates"]
        cards.append(
            f'<article class="concept" id="concept-{escape(c["concept_id"])}" data-concept="{escape(c["concept_id"])}">'
            f'<h3><span class="chip" style="{concept_colour(c["hue"])}">{escape(c["name"])}</span> '
            f'<code>{escape(c["concept_id"])}</code> {_browser(links, "concept", c["concept_id"])}</h3>'
            f'<p>The object says: <q>{escape(c["extract"] or "")}</q></p>'
            f'<p class="counts">{count:,} candidate{"" if count == 1 else "s"} for this object; {c["n"] or 0:,} in the '
            f'concept\'s distribution (all objects); {thresholds}.</p>'
            + distribution_svg(c["concept_id"], c["bars"], c["alpha_w"], c["beta_w"], c["selected"], c["rejected"])
            + f'<table class="candidates"><thead><tr><th></th><th>w</th><th>P_c</th><th>why</th><th>chunk</th></tr>'
              f'</thead><tbody>{rows}</tbody></table></article>')
    return ('<section><h2>Each concept\'s distribution</h2><p>Bars: the concept\'s stored scores over all objects. '
            'Lines: the alpha and beta thresholds (a candidate at or right of one has P_c above it). '
            'Green marks: this object\'s selected candidates; red: its best rejected ones.</p>'
            + "".join(cards) + "</section>")


def _candidate_row(x: dict) -> str:
    kind = "selected" if x["selected"] else "rejected"
    cited = f" [{x['n']}]" if x["n"] else ""
    return (f'<tr class="candidate {kind}" data-chunk="{escape(x["chunk_id"])}" data-w="{x["w"]}" '
            f'data-p="{"" if x["p"] is None else x["p"]}"><td>{kind}{cited}</td>'
            f'<td class="num">{_number(x["w"])}</td><td class="num">{_number(x["p"], 3)}</td><td>{escape(x["why"])}</td>'
            f'<td><a href="/chunks/{quote(x["chunk_id"], safe="")}"><code>{escape(x["chunk_id"])}</code></a></td></tr>')


def compare_page(question: str, results: list[tuple[str, object]], links: BrowserLinks) -> str:
    """results: (mode, PromptResult or the error line)."""
    columns = []
    for mode, result in results:
        if isinstance(result, str):
            columns.append(f'<div class="builder" data-mode="{mode}"><h2>{mode}</h2>'
                           f'<p class="error" role="alert">{escape(result)}</p></div>')
            continue
        refs = "".join(f'<li data-chunk="{escape(r.chunk_id)}"><a href="/chunks/{quote(r.chunk_id, safe="")}">[{r.n}]</a> '
                       f'{_trail(r.document, r.section_path)} {_browser(links, "chunk", r.chunk_id)}</li>'
                       for r in result.references)
        count = len(result.references)
        columns.append(f'<div class="builder" data-mode="{mode}" data-tokens="{result.tokens}" '
                       f'data-references="{len(result.references)}"><h2>{mode}</h2>'
                       f'<p><b class="tokens">{result.tokens:,}</b> tokens, <b>{count}</b> reference{"" if count == 1 else "s"}</p>'
                       f'<ul class="references">{refs}</ul><details><summary>the prompt</summary>'
                       f'<pre class="prompt">{escape(result.prompt)}</pre></details></div>')
    return page("Compare the builders", f'<h1>Five builders, one question</h1><p class="asked">{escape(question)}</p>'
                                        f'<div class="builders">{"".join(columns)}</div>', question)


def document_page(doc: dict, links: BrowserLinks) -> str:
    chunks, section = [], None
    for c in doc["chunks"]:
        path = " > ".join(c["sections"])
        if path != section:
            chunks.append(f"<h3>{escape(path)}</h3>")
            section = path
        chunks.append(f'<p class="chunk" id="chunk-{escape(c["chunk_id"])}">{escape(c["text"])}</p>')
    return page(doc["title"] or doc["id"], f'<h1>{escape(doc["title"] or doc["id"])} {_browser(links, "document", doc["id"])}</h1>'
                + "".join(chunks))
