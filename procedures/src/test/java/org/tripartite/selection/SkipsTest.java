package org.tripartite.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.neo4j.logging.Log;

class SkipsTest {
    /** A Log that keeps "level: message" lines (formatted as Neo4j formats them, String.format). */
    private static Log recording(List<String> lines, boolean debug) {
        return (Log) Proxy.newProxyInstance(Log.class.getClassLoader(), new Class<?>[] {Log.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("isDebugEnabled")) {
                        return debug;
                    }
                    String text = args.length == 2 && args[1] instanceof Object[] values
                            ? String.format((String) args[0], values) : String.valueOf(args[0]);
                    lines.add(method.getName() + ": " + text);
                    return null;
                });
    }

    @Test
    void oneLinePerReasonWithAFewExamplesHoweverManyRowsWereSkipped() {
        Skips skips = new Skips("tripartite.selection.score");
        IntStream.range(0, 10_000).parallel().forEach(i -> skips.debug("pairs without an embedding, left without "
                + "scores", "o" + i + " -> c"));
        skips.warn("concepts without a distribution", "c9");
        List<String> lines = new ArrayList<>();
        skips.report(recording(lines, true));
        assertEquals(2, lines.size());
        assertTrue(lines.get(0).matches("debug: tripartite\\.selection\\.score: pairs without an embedding, left "
                + "without scores: 10000 \\(e\\.g\\. o\\d+ -> c, o\\d+ -> c, o\\d+ -> c, \\.\\.\\.\\)"), lines.get(0));
        assertEquals("warn: tripartite.selection.score: concepts without a distribution: 1 (e.g. c9)", lines.get(1));
    }

    @Test
    void debugLinesOnlyWhereTheLogTakesThem() {
        Skips skips = new Skips("p");
        skips.debug("quiet", "x");
        skips.warn("loud", "y");
        List<String> lines = new ArrayList<>();
        skips.report(recording(lines, false));
        assertEquals(List.of("warn: p: loud: 1 (e.g. y)"), lines);
    }

    @Test
    void nothingSkippedNothingSaidAndClearForgets() {
        Skips skips = new Skips("p");
        List<String> lines = new ArrayList<>();
        skips.report(recording(lines, true));
        skips.warn("loud", "y");
        skips.clear();
        skips.report(recording(lines, true));
        assertEquals(List.of(), lines);
    }
}
