// @batched
// The selection's store, version 2: only what is selected is kept. Version 1 wrote one Evidence
// node per (object, concept, chunk) candidate, about 900 bytes a candidate on disk; version 2
// keeps each (object, concept) pair's scores as one list on its CONCERNS edge, each concept's
// chunk list and histogram on its ScoreDistribution and ScoreBin nodes (version 1 kept every
// score, sorted, in ScoreBlock nodes), and one Evidence node per pair with its selected
// candidates (cypher/selection/). No LLM is called: the scores are computed again from the
// stored extracts' embeddings.
// Batched and safe to run again: a migration killed halfway is finished by the next
// `tripartite migrate`.

// Version 1's Evidence (it has a chunk_id), in batches: a million nodes do not fit in one
// transaction.
MATCH (e:Evidence) WHERE e.chunk_id IS NOT NULL
CALL (e) { DELETE e } IN TRANSACTIONS OF 10000 ROWS;

// Version 1's sorted score blocks; its distributions are rebuilt as histograms.
MATCH (b:ScoreBlock)
CALL (b) { DELETE b } IN TRANSACTIONS OF 10000 ROWS;

MATCH (s:ScoreDistribution)
REMOVE s.bounds, s.block_size
SET s.current = false;

// The selection is rebuilt with its last alpha and beta: `tripartite migrate` runs that select
// right after the migrations (a full one, computing only); until then prompts wait, saying so.
MATCH (s:SelectionState {id: 'current'})
WHERE coalesce(s.store, 1) < 2
SET s.state = 'converting', s.store = 2;
