// read: what a community's report is written from: its members (every entity in it or in the
// communities below it), most connected first, and the relations among them, strongest first.
// Browser: :param ids => ['L0-...']

UNWIND $ids AS id
MATCH (c:Community {id: id})
CALL (c) {
  MATCH (e:__Entity__)-[:IN_COMMUNITY]->(:Community)-[:PARENT*0..]->(c)
  RETURN collect(DISTINCT e) AS members
}
CALL (members) {
  UNWIND members AS e
  OPTIONAL MATCH (e)-[r]-(o:__Entity__) WHERE r.chunks IS NOT NULL AND o IN members
  WITH e, sum(coalesce(r.weight, 0)) AS degree
  ORDER BY degree DESC, e.key
  RETURN collect({name: e.name, type: e.type, description: e.description, degree: degree}) AS entities
}
CALL (members) {
  UNWIND members AS a
  MATCH (a)-[r]->(b:__Entity__) WHERE r.chunks IS NOT NULL AND b IN members
  WITH a, r, b ORDER BY r.weight DESC, a.key, b.key
  RETURN collect({source: a.name, target: b.name, type: type(r), description: r.description,
                  weight: r.weight}) AS relations
}
RETURN c.id AS id, c.level AS level, c.size AS size, entities, relations;
