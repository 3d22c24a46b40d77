"""How build_prompt lays an object's prompt out (no Neo4j: the material is given): what the
object says is quoted once and pointed to after, and references name the document, the
chunk's own section and its place."""
from tripartite.infra.tokens import count_tokens
from tripartite.lexical.trails import reference_cost, references_block
from tripartite.selection.prompt import build_prompt


def extract(chunk_id: str, index: int, text: str, path: list[str]) -> dict:
    return {"chunk_id": chunk_id, "index": index, "document": "Heart Failure", "document_id": "hf",
            "section_path": path, "text": text, "w": 0.8, "reason": "alpha"}


def row(concept: str, summary: str, evidence: list[dict]) -> dict:
    return {"concept_id": concept.lower(), "name": concept, "summary": summary, "evidence": evidence}


ROWS = [
    row("Chest pain", "She denies chest pain or swelling. • Cardiovascular: Regular rhythm.",
        [extract("hf:a1", 3, "Chest pain can mean angina.", ["Heart Failure", "Symptoms", "Chest pain"])]),
    row("Swelling", "She denies chest pain or swelling. • Edema of both legs.",
        [extract("hf:b2", 7, "Swelling of the legs is common.", ["Heart Failure", "Signs"])]),
    row("Edema", "Edema of both legs.", []),
    row("Fatigue", "She denies chest pain or swelling.", []),
]


def test_what_the_object_says_is_quoted_once_and_pointed_to_after():
    built = build_prompt("case-1", ROWS, "What next?", 0.9, 0.5)
    lines = built["prompt"].splitlines()
    assert built["prompt"].count("She denies chest pain or swelling.") == 1
    assert "1. Chest pain: She denies chest pain or swelling. • Cardiovascular: Regular rhythm." in lines
    assert "2. Swelling (as in 1): Edema of both legs." in lines
    assert "3. Edema: as in 2." in lines and "4. Fatigue: as in 1." in lines
    # The JSON form keeps each concept's summary whole.
    assert [c["summary"] for c in built["concepts"]] == [r["summary"] for r in ROWS]


def test_a_finding_said_in_other_words_before_is_not_repeated():
    rows = [row("Chest pain", "He denies chest pain and abdominal pain. \u2022 Cardiovascular: Denies chest pain.", []),
            row("Dizziness", "Positive dizziness. \u2022 Neurological: Positive dizziness on standing.", []),
            row("Abdominal pain", "Cardiovascular: Denies chest pain.", []),
            row("Fatigue", "Chest pain at night.", [])]
    lines = build_prompt("case-2", rows, "What next?", 0.9, 0.5)["prompt"].splitlines()
    # Its words, fillers aside, stand in an earlier sentence as one run: dropped, or pointed to.
    assert "1. Chest pain: He denies chest pain and abdominal pain." in lines
    assert "3. Abdominal pain: as in 1." in lines
    # A finding with words of its own is kept ("on standing"; "at night").
    assert "2. Dizziness: Positive dizziness. \u2022 Neurological: Positive dizziness on standing." in lines
    assert "4. Fatigue: Chest pain at night." in lines


def test_a_sentence_that_says_something_new_is_never_taken_for_an_earlier_one():
    from tripartite.selection.findings import says_no_more

    new = [("Chest pain.", "No chest pain or swelling."),                   # negated before, not now
           ("Chest pain.", "Denies fever, chills, or chest pain."),         # a negated list
           ("He has chest pain.", "He denies chest pain and abdominal pain."),
           ("Warfarin 5 mg daily.", "Warfarin 1.5 mg daily."),              # numbers whole
           ("BP 90/80.", "BP 140/90, HR 80."),
           ("Allergies: penicillin and sulfa.", "Started penicillin and sulfa."),  # a label of its own
           ("Left eye: no redness.", "Right eye: no redness."),
           ("Right leg swelling.", "Left leg swelling, right arm pain."),   # not one run
           ("Positive dizziness on standing.", "Positive dizziness."),
           ("Swelling.", "Swelling of both legs."),                         # one word says too little
           ("Denies chest pain.", "Denies fever but has chest pain."),      # the denial does not reach it
           ("No edema.", "No cough, edema noted.")]
    assert not [pair for pair in new if says_no_more(*pair)]
    same = [("Cardiovascular: Denies chest pain.", "He denies chest pain and abdominal pain."),
            ("Reports chest pain.", "He reports chest pain at rest."),
            ("Left eye: no redness.", "Left eye: no redness or discharge."),
            ("Positive dizziness.", "Neurological: Positive dizziness on standing."),
            ("Respiratory: Denies shortness of breath.", "She denies chest pain, shortness of breath, or swelling."),
            ("Denies chest pain.", "Denies fever, chills, or chest pain.")]
    assert all(says_no_more(*pair) for pair in same)


def test_a_chunk_cited_by_several_concepts_of_one_item_is_one_line_naming_them():
    shared = extract("hf:a1", 3, "Diuretics and ACE inhibitors lower blood pressure.", ["Heart Failure", "Medicines"])
    own = extract("hf:b2", 7, "Salt raises blood pressure.", ["Heart Failure", "Diet"])
    rows = [row("Diuretics", "She takes lisinopril and furosemide.", [shared]),
            row("ACE inhibitors", "She takes lisinopril and furosemide.", [shared, own])]
    built = build_prompt("case-3", rows, "What next?", 0.9, 0.5)
    lines = built["prompt"].splitlines()
    assert "   [1] (Diuretics, ACE inhibitors) Diuretics and ACE inhibitors lower blood pressure." in lines
    assert "   [2] (ACE inhibitors) Salt raises blood pressure." in lines
    assert "(quoted above)" not in built["prompt"]
    # The JSON form still lists each concept's own evidence.
    assert [[e["n"] for e in c["evidence"]] for c in built["concepts"]] == [[1], [1, 2]]


def test_references_name_the_document_once_then_each_chunks_own_section_and_its_place():
    built = build_prompt("case-1", ROWS, "What next?", 0.9, 0.5)
    listed = built["prompt"].split("References:\n", 1)[1].splitlines()
    assert listed == ["Heart Failure:", "[1] Chest pain (chunk 3)", "[2] Signs (chunk 7)"]
    assert [r["index"] for r in built["references"]] == [3, 7]
    assert built["references"][0]["section_path"] == ["Heart Failure", "Symptoms", "Chest pain"]  # whole in JSON
    # Without a place (a reference built elsewhere), the chunk id stands in; without a section, the place alone.
    assert references_block([{"n": 4, "chunk_id": "hf:c3", "document": "Heart Failure", "section_path": []}]) \
        == ["Heart Failure:", "[4] (chunk hf:c3)"]


def test_a_references_block_groups_chunks_under_their_document_and_its_cost_is_what_each_adds():
    refs = [{"n": 1, "chunk_id": "a1", "document": "Hypertension", "section_path": ["Hypertension", "Medicines"], "index": 6},
            {"n": 2, "chunk_id": "b1", "document": "Heart failure", "section_path": ["Heart failure", "Signs"], "index": 2},
            {"n": 3, "chunk_id": "a2", "document": "Hypertension", "section_path": ["Hypertension", "Causes"], "index": 1}]
    assert references_block(refs) == ["Hypertension:", "[1] Medicines (chunk 6)", "[3] Causes (chunk 1)",
                                      "Heart failure:", "[2] Signs (chunk 2)"]
    # Filling a budget piece by piece, each reference's cost is the lines it adds (a line: its
    # tokens and its newline), its document's heading only the first time.
    def size(lines: list[str]) -> int:
        return sum(count_tokens(line) + 1 for line in lines)

    for k, ref in enumerate(refs):
        grown = size(references_block(refs[:k + 1])) - size(references_block(refs[:k]))
        assert reference_cost(ref["n"], ref, {r["document"] for r in refs[:k]}) == grown
