// write: the communities as computed: communities that are gone are deleted (with their
// reports and report sentences); new ones are created; every entity is IN_COMMUNITY of the lowest community that holds
// it, and a community's PARENT is the next larger one above it. A community's id hashes its level
// and its members, so one whose members did not change keeps its report.
// Browser: :param communities => [{id: 'L0-...', level: 0, size: 3, parent: null, members: ['a|Name']}]

MATCH (c:Community)
WHERE NOT c.id IN [x IN $communities | x.id]
OPTIONAL MATCH (c)-[:HAS_SENTENCE]->(s:ReportSentence)
DETACH DELETE c, s;

MATCH (:__Entity__)-[r:IN_COMMUNITY]->(:Community)
DELETE r;

MATCH (c:Community)-[r:PARENT]->(:Community)
DELETE r;

UNWIND $communities AS x
MERGE (c:Community {id: x.id})
SET c.level = x.level, c.size = x.size;

UNWIND $communities AS x
WITH x WHERE x.parent IS NOT NULL
MATCH (c:Community {id: x.id}), (p:Community {id: x.parent})
MERGE (c)-[:PARENT]->(p);

UNWIND $memberships AS m
MATCH (e:__Entity__ {key: m.key}), (c:Community {id: m.community})
MERGE (e)-[:IN_COMMUNITY]->(c);
