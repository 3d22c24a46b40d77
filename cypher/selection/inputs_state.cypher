// read: whether inputs other than objects changed since the last full selection (an incremental
// select then has to be a full one).

OPTIONAL MATCH (s:SelectionState {id: 'current'})
OPTIONAL MATCH (v:InputsVersion {id: 'current'})
RETURN s IS NOT NULL AND s.state = 'finished' AND coalesce(s.inputs, -1) = coalesce(v.version, 0) AS current;
