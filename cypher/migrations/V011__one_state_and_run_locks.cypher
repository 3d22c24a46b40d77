// One selection state and one inputs version per database (two selects at once once made two),
// and the locks that keep two runs of one command apart (tripartite/infra/locks.py).

CREATE CONSTRAINT selection_state_id IF NOT EXISTS FOR (s:SelectionState) REQUIRE s.id IS UNIQUE;
CREATE CONSTRAINT inputs_version_id IF NOT EXISTS FOR (v:InputsVersion) REQUIRE v.id IS UNIQUE;
CREATE CONSTRAINT tripartite_run_lock IF NOT EXISTS FOR (l:__TripartiteLock) REQUIRE l.id IS UNIQUE;
