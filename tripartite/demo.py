"""`tripartite demo`: the whole pipeline on the built-in sample corpus, offline.

The demo runs the same pipeline as `tripartite eval` on the project's own sample (three
guidelines, the cardiology plugin, three anamneses) and prints what a newcomer should see:
one object's prompt with references, and a small table against vector RAG.
"""
from __future__ import annotations

from dataclasses import asdict
from typing import Callable

import neo4j

from tripartite.config import Settings
from tripartite.paths import samples_dir

DEMO_OBJECT = "patient-b"
ALPHA, BETA = 0.9, 0.5


def run_demo(settings: Settings, driver: neo4j.Driver, say: Callable[[str], None]) -> dict:
    from tripartite.evaluation.measure import RagSetting, measure_objects
    from tripartite.pipeline import Inputs, make_chunk_embedder, prepare, run_pipeline
    from tripartite.selection import DEFAULT_QUESTION, build_prompt, prompt_material

    inputs = Inputs((str(samples_dir() / "guidelines"),), "cardiology", (str(samples_dir() / "objects"),), "anamnesis")
    steps = iter(range(1, 9))
    built = run_pipeline(settings, driver, prepare(inputs), lambda message: say(f"{next(steps)}/8 {message}"), ALPHA, BETA,
                         offline=True)
    db = settings.neo4j_database
    say("8/8 prompts and the comparison with vector RAG")
    prompt = build_prompt(DEMO_OBJECT, prompt_material(driver, db, DEMO_OBJECT), DEFAULT_QUESTION, ALPHA, BETA)
    table = measure_objects(driver, db, make_chunk_embedder(settings, offline=True), built.objects,
                            [RagSetting(top_k=3), RagSetting(top_k=5)], DEFAULT_QUESTION, ALPHA, BETA)
    return {"ingested": built.ingested, "errors": built.analysis_errors, "prompt": prompt,
            "table": [asdict(m) for m in table]}
