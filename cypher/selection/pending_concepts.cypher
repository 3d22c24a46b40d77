// read: concepts whose score distributions still count objects that were removed (see
// objects/remove_objects.cypher): the next select rebuilds them.

OPTIONAL MATCH (s:SelectionState {id: 'current'})
RETURN coalesce(s.pending_concepts, []) AS concept_ids;
