package org.tripartite.selection;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.neo4j.logging.Log;

/**
 * What a call left out, and why, for the server's log: counted as it goes (from any thread)
 * and told once when the call ends, one line per reason with its first few examples, so a
 * run over a million candidates never writes a line per candidate.
 */
final class Skips {
    static final int EXAMPLES = 3;

    private record Reason(String text, boolean warn) {
    }

    private static final class Tally {
        long count;
        final List<String> examples = new ArrayList<>(EXAMPLES);
    }

    private final String procedure;
    private final Map<Reason, Tally> tallies = new LinkedHashMap<>();

    Skips(String procedure) {
        this.procedure = procedure;
    }

    /** Something expected in a graph being built (e.g. a pair not embedded yet): a debug line. */
    void debug(String reason, String example) {
        add(new Reason(reason, false), example);
    }

    /** Something that points at a graph out of step with itself: a warning. */
    void warn(String reason, String example) {
        add(new Reason(reason, true), example);
    }

    private synchronized void add(Reason reason, String example) {
        Tally tally = tallies.computeIfAbsent(reason, r -> new Tally());
        tally.count++;
        if (tally.examples.size() < EXAMPLES) {
            tally.examples.add(example);
        }
    }

    /** Forget what was counted (the work is done again from the start). */
    synchronized void clear() {
        tallies.clear();
    }

    /**
     * One line per reason, e.g. "tripartite.selection.score: pairs without an embedding, left
     * without scores: 12 (e.g. o1 -> c2, o4 -> c2, o7 -> c5, ...)": warnings always, the rest at
     * debug level.
     */
    synchronized void report(Log log) {
        for (Map.Entry<Reason, Tally> entry : tallies.entrySet()) {
            Tally tally = entry.getValue();
            String more = tally.count > tally.examples.size() ? ", ..." : "";
            String line = "%s: %s: %d (e.g. %s%s)";
            Object[] args = {procedure, entry.getKey().text(), tally.count, String.join(", ", tally.examples), more};
            if (entry.getKey().warn()) {
                log.warn(line, args);
            } else if (log.isDebugEnabled()) {
                log.debug(line, args);
            }
        }
    }
}
