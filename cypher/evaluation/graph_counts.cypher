// read: the size of each part of the graph, for reports. The edges are counted from their
// part's label (one label: the count store answers it without a scan).

RETURN COUNT { (:Document) } AS documents, COUNT { (:Chunk) } AS chunks, COUNT { (:Concept) } AS concepts,
       COUNT { (:Object) } AS objects, COUNT { (:Concept)-[:MENTIONED_IN]->() } AS mentioned_in,
       COUNT { (:Object)-[:CONCERNS]->() } AS concerns,
       COLLECT { MATCH (:Object)-[oc:CONCERNS]->() RETURN sum(size(coalesce(oc.scores, []))) }[0] AS candidates;
