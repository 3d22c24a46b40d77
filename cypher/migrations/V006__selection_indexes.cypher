// The selection keeps P_c per concept instead of per Evidence node (cypher/selection/), so a
// new object rewrites a few score lists rather than every percentile of its concepts. (The
// old per-node properties are removed by the next select, in its small transactions.) Every
// index on Evidence is paid for a million times over, so only the lookups the scripts make
// stay, and they are composite.

DROP CONSTRAINT evidence_id IF EXISTS;
DROP INDEX evidence_object IF EXISTS;
DROP INDEX evidence_concept IF EXISTS;
DROP INDEX evidence_object_chunk IF EXISTS;
// Evidence citing a removed document's chunks is found by its key (object, chunk).
DROP INDEX evidence_chunk IF EXISTS;

// A candidate (object, concept, chunk) has one Evidence node; the constraint's index also
// serves "all of an object's Evidence" and "an object's Evidence citing chunk t" (the blanket).
CREATE CONSTRAINT evidence_key IF NOT EXISTS FOR (e:Evidence) REQUIRE (e.object_id, e.chunk_id, e.concept_id) IS UNIQUE;
// A concept's scores in order (its distribution P_c) and the scores between two thresholds.
CREATE INDEX evidence_concept_w IF NOT EXISTS FOR (e:Evidence) ON (e.concept_id, e.w);
// One distribution per concept.
CREATE CONSTRAINT score_distribution_concept IF NOT EXISTS FOR (s:ScoreDistribution) REQUIRE s.concept_id IS UNIQUE;
// Its sorted scores, in blocks.
CREATE CONSTRAINT score_block_key IF NOT EXISTS FOR (b:ScoreBlock) REQUIRE (b.concept_id, b.block) IS UNIQUE;
