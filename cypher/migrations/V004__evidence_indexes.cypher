// The Markov-blanket step looks up an object's Evidence by the chunk it cites.

CREATE INDEX evidence_object_chunk IF NOT EXISTS FOR (e:Evidence) ON (e.object_id, e.chunk_id);
CREATE INDEX evidence_selected IF NOT EXISTS FOR (e:Evidence) ON (e.object_id, e.concept_id, e.selected);
