// read: the size of each part of the graph, for reports.

RETURN COUNT { (:Document) } AS documents, COUNT { (:Chunk) } AS chunks, COUNT { (:Concept) } AS concepts,
       COUNT { (:Object) } AS objects, COUNT { ()-[:MENTIONED_IN]->() } AS mentioned_in,
       COUNT { ()-[:CONCERNS]->() } AS concerns,
       COLLECT { MATCH ()-[oc:CONCERNS]->() RETURN sum(size(coalesce(oc.scores, []))) }[0] AS candidates;
