// read: whether migration V012 left the selection to be run again in the new store (or a run
// that converts it was interrupted), and with which alpha and beta (those of its last run).

OPTIONAL MATCH (s:SelectionState {id: 'current'})
RETURN coalesce(s.state = 'converting' OR (s.state = 'running' AND s.converting), false) AS converting, s.alpha AS alpha, s.beta AS beta;
