// read: the alpha and beta of the stored selection (of its last run).

MATCH (s:SelectionState {id: 'current'})
RETURN s.alpha AS alpha, s.beta AS beta;
