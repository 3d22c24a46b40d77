// read: the checksum an ontology was loaded with, to skip reloading an unchanged file, and the
// file it came from, so that another file of the same name does not replace it unasked.

MATCH (o:Ontology {id: $ontology_id})
RETURN o.checksum AS checksum, coalesce(o.question, '') AS question, o.source AS source,
       o.chunk_prompt AS chunk_prompt, o.object_prompt AS object_prompt,
       COUNT { (c:Concept {ontology: $ontology_id})-[:MENTIONED_IN]->() } AS chunk_extracts;
