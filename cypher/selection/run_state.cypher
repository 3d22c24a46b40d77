// read: what a selection run needs to know before it starts, in one round trip:
//   old      the Evidence nodes come from the first store (one node per candidate, with a
//            chunk_id), which migration V012 converts; a sampled node tells;
//   missing  the given objects that do not exist;
//   current  whether the last selection finished and inputs other than objects are as its last
//            full run saw them (otherwise an incremental select has to be a full one);
//   touched  the concepts whose distributions an incremental run over the given objects may
//            change: those of their Evidence (what the last select saw, including concepts an
//            object has lost), of their CONCERNS edges now (what this run scores), and those
//            whose distributions still count removed objects (objects/remove_objects.cypher).
// The objects come inside a map ($scope): the server plans a list parameter anew for each
// size of list (and for null), a map once, so a full run, a change of alpha and any number of
// objects share one plan.
// Browser: :param scope => {object_ids: ['patient-a']}   (object_ids null: a full run)

CALL () {
  OPTIONAL MATCH (e:Evidence)
  WITH e LIMIT 1
  RETURN coalesce(e.chunk_id IS NOT NULL OR e.p IS NOT NULL, false) AS old
}
CALL () {
  UNWIND coalesce($scope.object_ids, []) AS id
  OPTIONAL MATCH (o:Object {id: id})
  WITH id, o WHERE o IS NULL
  RETURN collect(id) AS missing
}
OPTIONAL MATCH (s:SelectionState {id: 'current'})
OPTIONAL MATCH (v:InputsVersion {id: 'current'})
WITH old, missing, s, s IS NOT NULL AND s.state = 'finished' AND coalesce(s.inputs, -1) = coalesce(v.version, 0) AS current
OPTIONAL CALL (s) {
  UNWIND coalesce($scope.object_ids, []) AS object_id
  MATCH (e:Evidence {object_id: object_id})
  RETURN e.concept_id AS concept_id
  UNION
  UNWIND coalesce($scope.object_ids, []) AS object_id
  MATCH (:Object {id: object_id})-[:CONCERNS]->(k:Concept)
  RETURN k.id AS concept_id
  UNION
  UNWIND coalesce(s.pending_concepts, []) AS concept_id
  RETURN concept_id
}
RETURN old, missing, current, collect(DISTINCT concept_id) AS touched;
