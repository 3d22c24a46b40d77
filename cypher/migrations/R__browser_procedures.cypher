// Browser-callable procedures (APOC Extended's apoc.custom), running the same files as the
// CLI: `CALL custom.tripartite.prompt('patient-b')`, with optional arguments max_per_concept,
// max_tokens (a budget, estimated from stored token counts), selection ('floor' or 'paper'),
// fixed_tokens (the question's and headings' share of the budget) and tokens_per_concept (the
// budget without max_tokens; null for none): for example
// `CALL custom.tripartite.prompt('patient-b', null, 800)`; `CALL custom.tripartite.trace($id)`; the
// paper's classification graph G'(o), every candidate of some objects with w, P_c(w) and its class,
// `CALL custom.tripartite.candidates(['patient-b'])`; and
// local search over the triplet graph, `CALL custom.tripartite.local(['AWEL', 'DSL'])`, with optional
// depth, entity_limit, relation_limit, chunk_limit and the question's vector (its chunks then ranked
// by closeness to it, else by the found entities they mention) and mention_weight. The prompt refuses a stale or unfinished
// selection, as the CLI does (apoc.util.validate, APOC core).
// Skipped, and tried again on the next migrate, where APOC Extended is not installed.
// The selection itself commits in small transactions, which a procedure cannot do; run its
// scripts in the Browser with :auto (see the README).
// @database: system
// @requires: apoc.custom.installProcedure
// @include: prompt_query = selection/prompt_material
// @include: freshness_query = selection/freshness
// @include: trace_query = lexical/trace_chunk
// @include: local_query = search/local
// @include: candidates_query = selection/candidates

CALL apoc.custom.installProcedure(
  'tripartite.prompt(object_id :: STRING, max_per_concept = null :: INTEGER, max_tokens = null :: INTEGER, '
    + 'selection = ' + $selection_defaults.mode + ' :: STRING, fixed_tokens = 60 :: INTEGER, '
    + 'tokens_per_concept = ' + coalesce(toString($selection_defaults.tokens_per_concept), 'null') + ' :: INTEGER) :: '
    + '(object_id :: STRING, kind :: STRING, concept_id :: STRING, name :: STRING, summary :: STRING, '
    + 'evidence :: LIST OF MAP, budget :: INTEGER, dropped :: INTEGER, question :: STRING)',
  // A stale or unfinished selection is refused with the one line the CLI prints (selection/freshness).
  'CALL () { ' + $freshness_query + ' }\nCALL apoc.util.validate(freshness <> "fresh", "Tripartite: " + hint, [])\n'
    + 'WITH *\n' + $prompt_query,
  $database, 'read',
  'The prompt material of one object: its concepts with the chosen evidence (cypher/selection/prompt_material.cypher).');

CALL apoc.custom.installProcedure(
  'tripartite.trace(chunk_id :: STRING) :: (document_id :: STRING, document :: STRING, source :: STRING, sections :: LIST OF MAP, chunk_id :: STRING, index :: INTEGER, tokens :: INTEGER, text :: STRING)',
  $trace_query, $database, 'read',
  'The upward path of a chunk to its document (cypher/lexical/trace_chunk.cypher).');

CALL apoc.custom.installProcedure(
  'tripartite.local(question_keywords :: LIST OF STRING, depth = 2 :: INTEGER, entity_limit = 10 :: INTEGER, '
    + 'relation_limit = 40 :: INTEGER, chunk_limit = 12 :: INTEGER, vector = null :: LIST OF FLOAT, '
    + 'mention_weight = 0.2 :: FLOAT) :: (entities :: LIST OF MAP, '
    + 'relations :: LIST OF MAP, chunks :: LIST OF MAP, communities :: LIST OF MAP)',
  $local_query, $database, 'read',
  'Local search: the entities the keywords name, their relations, chunks and communities (cypher/search/local.cypher).');

CALL apoc.custom.installProcedure(
  'tripartite.candidates(object_ids :: LIST OF STRING) :: (object_id :: STRING, concept_id :: STRING, '
    + 'chunk_id :: STRING, score :: FLOAT, percentile :: FLOAT, selected :: BOOLEAN, reason :: STRING, best :: BOOLEAN)',
  // APOC's signatures take no one-letter names: w and p are given as score and percentile.
  'CALL () { ' + $candidates_query + ' }\nRETURN object_id, concept_id, chunk_id, w AS score, p AS percentile, selected, '
    + 'reason, best', $database, 'read',
  'Every candidate (object, concept, chunk) of the objects with w, P_c(w), x and whether it is the best of its pair (the floor): the paper\'s G\'(o) (cypher/selection/candidates.cypher).');
