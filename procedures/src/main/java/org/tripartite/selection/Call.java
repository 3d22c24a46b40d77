package org.tripartite.selection;

import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.logging.Log;
import org.neo4j.procedure.TerminationGuard;

/**
 * What a procedure call hands its algorithm besides the store: the database (the workers'
 * own read transactions), its transaction's termination guard (checked in every long loop)
 * and the server's log (what the call skipped).
 */
record Call(GraphDatabaseService db, TerminationGuard guard, Log log) {
    /** Throws once the call's transaction is terminated. */
    void check() {
        guard.check();
    }
}
