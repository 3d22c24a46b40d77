// read: the checksum an ontology was loaded with, to skip reloading an unchanged file.

MATCH (o:Ontology {id: $ontology_id})
RETURN o.checksum AS checksum, coalesce(o.question, '') AS question;
