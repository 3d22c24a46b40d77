// read: what the database holds of some objects: enough to tell unchanged from changed, and
// how far their analysis got (concepts analysed, the error of a failed analysis), and how many
// concepts are loaded to analyse them for.

UNWIND $object_ids AS id
MATCH (o:Object {id: id})
RETURN o.id AS id, o.content_hash AS content_hash, o.kind AS kind, o.path AS path,
       size(coalesce(o.analysed_concepts, [])) AS analysed, o.analysis_error AS analysis_error,
       COUNT { (:Concept) } AS concepts_loaded;
