// The selection's store, version 2 (see V012): one Evidence node per (object, concept) pair, and
// each concept's histogram in ScoreBin nodes. Version 1's per-candidate constraint and indexes,
// and its score blocks' key, go with the nodes they served.

DROP CONSTRAINT evidence_key IF EXISTS;
DROP INDEX evidence_concept_w IF EXISTS;
DROP INDEX evidence_floor IF EXISTS;
DROP INDEX evidence_selected IF EXISTS;
CREATE CONSTRAINT evidence_pair IF NOT EXISTS FOR (e:Evidence) REQUIRE (e.object_id, e.concept_id) IS UNIQUE;
DROP CONSTRAINT score_block_key IF EXISTS;
CREATE CONSTRAINT score_bin_key IF NOT EXISTS FOR (b:ScoreBin) REQUIRE (b.concept_id, b.bin) IS UNIQUE;
// A composite key serves lookups on all of its properties only: an object's Evidence, and a
// concept's bins, need their own.
CREATE INDEX evidence_object IF NOT EXISTS FOR (e:Evidence) ON (e.object_id);
CREATE INDEX score_bin_concept IF NOT EXISTS FOR (b:ScoreBin) ON (b.concept_id);
