"""`tripartite ui`, the page that explains a prompt: over HTTP (numbers, the stored distribution
against the scores themselves, errors, the token, read-only) and in a real browser (Debian's
headless Chromium driven by Selenium: the marked mentions, the numbers against `prompt
--format json`, the plot and the question box), on the demo's graph, built once."""
from __future__ import annotations

import json
import math
import os
import shutil
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from html import unescape
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import as_json, cli_env, empty, free_port, invoke
from tripartite.analysis.extractive import term_forms

pytestmark = pytest.mark.neo4j
pytest.importorskip("starlette", reason="the web page needs starlette: pip install -e '.[ui]'")
pytest.importorskip("uvicorn", reason="the web page needs uvicorn: pip install -e '.[ui]'")

OBJECT = "patient-b"
QUESTION = "How is high blood pressure treated?"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def demo(neo4j_target, tmp_path_factory):
    """The demo's graph (documents, ontology, objects analysed and selected, triplets and
    communities): every builder has what it needs."""
    empty(neo4j_target)
    env = cli_env(neo4j_target, tmp_path_factory.mktemp("ui"))
    result = invoke(["demo", "--json"], env)
    assert result.exit_code == 0, result.output
    return env


def settings_of(env: dict, **extra: str):
    from tripartite.infra.config import load_settings

    return load_settings(env={**env, **extra}, cwd=Path(env["TRIPARTITE_SERVER_HOME"]).parent)


@contextmanager
def serving(env: dict, token: str | None = None, offline: bool = False):
    """The page's app on a free loopback port, in a thread, as `tripartite ui` serves it."""
    import uvicorn

    from tripartite.serving.web.app import build_app

    app, tools = build_app(settings_of(env), token, offline=offline)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        tools.close()


@pytest.fixture(scope="module")
def site(demo):
    with serving(demo) as url:
        yield url


def get(url: str, headers: dict | None = None, method: str = "GET"):
    """(status, headers, body as text: entities read) without following redirects."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(urllib.request.Request(url, headers=headers or {}, method=method), timeout=120) as r:
            return r.status, r.headers, unescape(r.read().decode())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, unescape(exc.read().decode())


def test_object_page_reads_the_prompt_and_the_stored_distributions(demo, site, neo4j_target):
    status, _, body = get(f"{site}/api/objects/{OBJECT}")
    assert status == 200, body
    view = json.loads(body)
    printed = as_json(["prompt", OBJECT], demo)
    assert view["details"] == printed  # the very prompt `prompt --format json` prints
    alpha, beta = printed["alpha"], printed["beta"]
    cited = {(c["concept_id"], e["chunk_id"]): e for c in printed["concepts"] for e in c["evidence"]}
    numbers = {r["chunk_id"]: r["n"] for r in printed["references"]}
    assert {c["concept_id"] for c in view["concepts"]} == {c["concept_id"] for c in printed["concepts"]}
    with neo4j_target.driver() as driver:
        for concept in view["concepts"]:
            cid = concept["concept_id"]
            # The plot's bars against the scores themselves (every object's, read here), binned as
            # the selection bins them: the page re-scores nothing and loses nothing.
            scores = driver.execute_query("MATCH (:Object)-[oc:CONCERNS]->(:Concept {id: $id}) "
                                          "UNWIND coalesce(oc.scores, []) AS w RETURN w", id=cid,
                                          database_=neo4j_target.database).records
            ws = [r["w"] for r in scores]
            assert concept["n"] == len(ws) and sum(b["count"] for b in concept["bars"]) == len(ws)
            for bar in concept["bars"]:
                inside = sum(1 for w in ws if math.floor(bar["low"] * 1000 + 1e-6) <= math.floor(1000 * w)
                             < math.floor(bar["high"] * 1000 + 1e-6))
                assert inside == bar["count"], (cid, bar)
            # Each candidate's reason agrees with its percentile and the thresholds.
            for x in concept["selected"]:
                assert x["reason"] in ("alpha", "beta", "floor")
                assert (x["p"] is not None) == x["listed"]  # P_c is read for the candidates listed
                if x["reason"] == "alpha":
                    assert x["w"] >= concept["alpha_w"] and (x["p"] is None or x["p"] > alpha)
                if x["reason"] == "beta":
                    assert x["w"] >= concept["beta_w"] and (x["p"] is None or beta < x["p"] <= alpha)
                if (cid, x["chunk_id"]) in cited:
                    assert (x["w"], x["p"], x["n"]) == (cited[cid, x["chunk_id"]]["w"], cited[cid, x["chunk_id"]]["p"],
                                                        numbers[x["chunk_id"]])
            for x in concept["rejected"]:
                assert x["p"] <= alpha and x["n"] is None
                assert all(x["w"] <= s["w"] for s in concept["selected"] if s["reason"] == "alpha")
            assert len(concept["selected"]) + len(concept["rejected"]) <= concept["candidates"]


def test_what_cannot_be_shown_is_one_line(demo, site, tmp_path, neo4j_target):
    status, _, body = get(f"{site}/objects/no-such-object")
    assert status == 404 and body.count('class="error"') == 1 and "no object with id 'no-such-object'" in body
    note = tmp_path / "patient-z.md"
    note.write_text("# Patient Z\n\nShe has atrial fibrillation and takes warfarin.\n", encoding="utf-8")
    assert invoke(["objects", "add", str(note), "--kind", "anamnesis"], demo).exit_code == 0
    try:
        status, _, body = get(f"{site}/objects/patient-z")
        assert status == 409 and body.count('class="error"') == 1
        assert "`tripartite analyze`" in body or "`tripartite select`" in body, body
    finally:
        assert invoke(["objects", "remove", "patient-z"], demo).exit_code == 0
    # A selection the graph has moved past (documents, ontologies or extracts changed since).
    bump = "MATCH (v:InputsVersion {id: 'current'}) SET v.version = coalesce(v.version, 0) + $by"
    with neo4j_target.driver() as driver:
        driver.execute_query(bump, by=1, database_=neo4j_target.database)
        try:
            status, _, body = get(f"{site}/objects/{OBJECT}")
            assert status == 409 and body.count('class="error"') == 1 and "run `tripartite select` again" in body
            assert "`tripartite select`" in body
        finally:
            driver.execute_query(bump, by=-1, database_=neo4j_target.database)
    assert get(f"{site}/objects/{OBJECT}")[0] == 200
    assert get(f"{site}/documents/nothing-here")[0] == 404 and get(f"{site}/chunks/nothing-here")[0] == 404
    assert json.loads(get(f"{site}/api/objects/no-such-object")[2])["error"].startswith("no object with id")


def test_read_only_and_a_token_beyond_loopback(demo, site):
    assert get(f"{site}/", method="POST")[0] == 405
    assert get(f"{site}/", {"Host": "attacker.example"})[0] == 400  # no DNS rebinding onto loopback
    assert get(f"{site}/objects/{OBJECT}", method="DELETE")[0] == 405
    with serving(demo, token="a-long-ui-secret") as url:
        status, headers, body = get(f"{url}/")
        assert status == 401 and headers["WWW-Authenticate"].startswith("Bearer") and "TRIPARTITE_UI_TOKEN" in body
        assert get(f"{url}/", {"Authorization": "Bearer wrong-secret"})[0] == 401
        assert get(f"{url}/", {"Authorization": "Bearer a-long-ui-secret"})[0] == 200
        status, headers, _ = get(f"{url}/objects/{OBJECT}?token=a-long-ui-secret")
        assert status == 303 and headers["Location"] == f"/objects/{OBJECT}"
        cookie = headers["Set-Cookie"].split(";")[0]
        assert "httponly" in headers["Set-Cookie"].lower()
        assert get(f"{url}/objects/{OBJECT}", {"Cookie": cookie})[0] == 200
        assert get(f"{url}/", {"Authorization": "bearer a-long-ui-secret"})[0] == 200  # the scheme's case is free
        # The redirect keeps the path as sent and never leaves the host.
        assert get(f"{url}/objects/a%2Fb?token=a-long-ui-secret&x=1")[1]["Location"] == "/objects/a%2Fb?x=1"
        assert get(f"{url}//attacker.example/?token=a-long-ui-secret")[1]["Location"] == "/attacker.example/"
    refused = invoke(["ui", "--host", "0.0.0.0"], {**demo, "TRIPARTITE_UI_TOKEN": ""})
    assert refused.exit_code == 1 and refused.output.count("\n") == 1 and "TRIPARTITE_UI_TOKEN" in refused.output


def test_the_question_box_calls_the_configured_llm_unless_offline(demo):
    from fake_openai import FakeOpenAI

    with FakeOpenAI() as llm:
        env = {**demo, "OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "fake-key-for-the-fake-server",
               "TRIPARTITE_LLM_MODEL": "fake-chat", "TRIPARTITE_LLM_CACHE": demo["TRIPARTITE_LLM_CACHE"] + ".ui"}
        with serving(env, offline=True) as url:
            status, _, body = get(f"{url}/ask?q=" + QUESTION.replace(" ", "+"))
            assert status == 200 and body.count('class="builder"') == 5 and llm.chat_requests() == []
        with serving(env) as url:
            assert get(f"{url}/ask?q=" + QUESTION.replace(" ", "+"))[0] == 200
            assert llm.chat_requests()  # local's keywords, global's map step, tripartite's reading


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip("no headless Chromium here: apt-get install chromium chromium-driver (CI installs them)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="pip install -e '.[test]' brings selenium")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,2000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


def screenshot(driver, name: str, tmp_path: Path) -> None:
    """Into the test's folder, and into TRIPARTITE_SCREENSHOTS when set (docs/ keeps them)."""
    for folder in filter(None, (tmp_path, os.environ.get("TRIPARTITE_SCREENSHOTS"))):
        driver.save_screenshot(str(Path(folder) / name))


def test_in_a_real_browser(demo, site, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as shown
    from selenium.webdriver.support.ui import WebDriverWait

    printed = as_json(["prompt", OBJECT], demo)
    view = json.loads(get(f"{site}/api/objects/{OBJECT}")[2])
    browser.get(f"{site}/")
    browser.find_element(By.LINK_TEXT, OBJECT).click()
    WebDriverWait(browser, 60).until(shown.presence_of_element_located((By.CSS_SELECTOR, "svg.distribution")))
    assert browser.current_url.endswith(f"/objects/{OBJECT}")

    # Every concept of the object is marked in its text, each mark by a name or synonym of its
    # concept, or by a sentence of the object's extract for it.
    by_id = {c["concept_id"]: c for c in view["concepts"]}
    marks = browser.find_elements(By.CSS_SELECTOR, ".object-text mark.mention")
    assert {m.get_attribute("data-concept") for m in marks} == set(by_id)
    for mark in marks:
        concept = by_id[mark.get_attribute("data-concept")]
        said = " ".join(mark.text.split())  # a mention may run over a line break
        if "extract" in mark.get_attribute("class"):
            assert said in " ".join(concept["extract"].split())
        else:
            forms = {form.lower() for n in [concept["name"], *concept["synonyms"]] for form in term_forms(n)}
            assert said.lower() in forms  # a name or synonym, perhaps inflected (dizziness for dizzy)

    # The prompt as the LLM receives it, and each cited extract's numbers as printed.
    assert browser.find_element(By.CSS_SELECTOR, "pre.prompt").get_attribute("textContent") == printed["prompt"]
    numbers = {r["chunk_id"]: r["n"] for r in printed["references"]}
    expected = {(c["concept_id"], e["chunk_id"]): e for c in printed["concepts"] for e in c["evidence"]}
    rows = browser.find_elements(By.CSS_SELECTOR, "table.evidence tr.extract")
    assert len(rows) == len(expected)
    for row in rows:
        e = expected[row.get_attribute("data-concept"), row.get_attribute("data-chunk")]
        cells = row.find_elements(By.TAG_NAME, "td")
        assert cells[0].text == f"[{numbers[e['chunk_id']]}]"
        assert cells[2].text == f"{e['w']:.5f}" and float(row.get_attribute("data-w")) == e["w"]
        assert cells[3].text == f"{e['p']:.3f}" and float(row.get_attribute("data-p")) == e["p"]
        assert row.get_attribute("data-reason") == e["reason"] and cells[4].text.startswith(e["reason"].upper())
    screenshot(browser, "ui-object.png", tmp_path)

    # Every node links to Neo4j Browser, opening on the database with a query naming it.
    opened = [parse_qs(urlsplit(a.get_attribute("href")).query) for a in browser.find_elements(By.CSS_SELECTOR, "a.browser")]
    assert len(opened) >= 1 + len(view["concepts"]) + len(rows)
    assert all(q["cmd"] == ["edit"] and q["db"] == [demo["NEO4J_DATABASE"]] and q["dbms"] == [demo["NEO4J_URI"]]
               for q in opened)
    assert f"{{id: '{OBJECT}'}}" in opened[0]["arg"][0]

    # Each concept's plot: the stored distribution's bars, the thresholds, the candidates.
    for concept in view["concepts"]:
        svg = browser.find_element(By.CSS_SELECTOR, f'article.concept[data-concept="{concept["concept_id"]}"] svg')
        assert svg.size["width"] > 100 and svg.size["height"] > 50
        counts = [int(b.get_attribute("data-count")) for b in svg.find_elements(By.CSS_SELECTOR, "rect.bar")]
        assert sum(counts) == concept["n"] and max(counts) > 0
        if concept["alpha_w"] is not None:
            line = svg.find_element(By.CSS_SELECTOR, "line.threshold.alpha")
            assert float(line.get_attribute("data-w")) == pytest.approx(concept["alpha_w"], abs=1e-5)
        assert len(svg.find_elements(By.CSS_SELECTOR, "path.candidate.selected")) == len(concept["selected"])
        assert len(svg.find_elements(By.CSS_SELECTOR, "path.candidate.rejected")) == len(concept["rejected"])

    # The question box: the five builders side by side, each with its tokens and references.
    box = browser.find_element(By.ID, "q")
    box.send_keys(QUESTION)
    box.submit()
    WebDriverWait(browser, 120).until(shown.presence_of_element_located((By.CSS_SELECTOR, ".builders")))
    columns = {c.get_attribute("data-mode"): c for c in browser.find_elements(By.CSS_SELECTOR, ".builder")}
    assert set(columns) == {"tripartite", "hybrid", "rag", "local", "global"}
    for mode, column in columns.items():
        assert not column.find_elements(By.CSS_SELECTOR, ".error"), (mode, column.text)
        assert int(column.get_attribute("data-tokens")) > 0
        assert len(column.find_elements(By.CSS_SELECTOR, "ul.references li")) == int(column.get_attribute("data-references"))
    searched = as_json(["search", "hybrid", QUESTION], demo)
    assert int(columns["hybrid"].get_attribute("data-tokens")) == searched["tokens"]
    assert [li.get_attribute("data-chunk") for li in columns["hybrid"].find_elements(By.CSS_SELECTOR, "ul.references li")] \
        == [r["chunk_id"] for r in searched["references"]]
    screenshot(browser, "ui-question.png", tmp_path)
