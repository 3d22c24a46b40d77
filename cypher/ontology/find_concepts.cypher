// read: concepts found by a code, a name or a synonym, best matches first, with their class and
// their neighbours in the hierarchy (`tripartite ontology find`).
// A code matches whole, case-insensitively: the concept's id, its source term (a CURIE such as
// DOID:5844), its notation, or one of its cross-references, either as written (MESH:D009203) or
// without the prefix or namespace (D009203, I21). A name or synonym matches whole first, then as a part.
// Parameters: $text (what the user typed), $ontology (an ontology id, or null for all), $limit.

WITH toLower(trim($text)) AS q
MATCH (c:Concept)
WHERE $ontology IS NULL OR c.ontology = $ontology
WITH c, q,
     [x IN coalesce(c.xrefs, []) WHERE toLower(x) = q
        OR toLower(last(split(replace(replace(x, '#', '/'), ':', '/'), '/'))) = q] AS codes,
     [s IN coalesce(c.synonyms, []) WHERE toLower(s) = q] AS same_synonyms,
     [s IN coalesce(c.synonyms, []) WHERE toLower(s) CONTAINS q] AS part_synonyms
WITH c, codes, same_synonyms, part_synonyms,
     CASE
       WHEN toLower(c.id) = q OR toLower(coalesce(c.source, '')) = q OR toLower(coalesce(c.notation, '')) = q
         THEN [0, 'code ' + head([x IN [c.notation, c.source, c.id] WHERE x IS NOT NULL AND x <> '' AND toLower(x) = q])]
       WHEN size(codes) > 0 THEN [0, 'cross-reference ' + codes[0]]
       WHEN toLower(c.name) = q THEN [1, 'name']
       WHEN size(same_synonyms) > 0 THEN [2, 'synonym "' + same_synonyms[0] + '"']
       WHEN toLower(c.name) CONTAINS q THEN [3, 'name']
       WHEN size(part_synonyms) > 0 THEN [4, 'synonym "' + part_synonyms[0] + '"']
     END AS match
WHERE match IS NOT NULL
WITH c, match
ORDER BY match[0], size(c.name), c.id
LIMIT $limit
OPTIONAL MATCH (c)-[:IN_CLASS]->(k:ConceptClass)
RETURN c.id AS id, c.name AS name, c.ontology AS ontology, k.name AS class, match[1] AS matched,
       c.source AS source, c.notation AS notation, coalesce(c.xrefs, []) AS xrefs,
       coalesce(c.synonyms, []) AS synonyms,
       COLLECT { MATCH (c)-[:BROADER]->(p:Concept) RETURN p.id + ' ' + p.name AS parent ORDER BY parent } AS broader,
       COLLECT { MATCH (n:Concept)-[:BROADER]->(c) RETURN n.id + ' ' + n.name AS child ORDER BY child } AS narrower
ORDER BY match[0], size(c.name), c.id;
