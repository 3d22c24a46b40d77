// read: the material of one object's prompt (step 5) through the procedure plugin (procedures/,
// PromptMaterial.java): the same rows as ../prompt_material.cypher, whose comments explain them.
// Browser: :param object_id => 'patient-a'; :param selection => 'floor'; :param max_per_concept => null;
//          :param max_tokens => null; :param tokens_per_concept => 120; :param fixed_tokens => 60

CALL tripartite.selection.promptMaterial($object_id, $selection, $max_per_concept, $max_tokens, $fixed_tokens,
                                         $tokens_per_concept)
YIELD object_id, kind, concept_id, name, summary, evidence, budget, dropped, question
RETURN object_id, kind, concept_id, name, summary, evidence, budget, dropped, question;
