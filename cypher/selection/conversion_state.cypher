// read: whether migration V012 left the selection to be run again in the new store, and with
// which alpha and beta (those of its last run).

OPTIONAL MATCH (s:SelectionState {id: 'current'})
RETURN coalesce(s.state = 'converting', false) AS converting, s.alpha AS alpha, s.beta AS beta;
