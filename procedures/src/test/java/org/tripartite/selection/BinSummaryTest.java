package org.tripartite.selection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

class BinSummaryTest {
    @Test
    void belowCountsTheScoresUnderEachBinFromTheLowestUp() {
        BinSummary summary = BinSummary.of(new TreeMap<>(Map.of(-2L, 3L, 0L, 1L, 3L, 2L)));
        assertEquals(-2L, summary.low());
        assertArrayEquals(new long[] {0, 3, 3, 4, 4, 4}, summary.below());  // bins -2 .. 3
        assertEquals(6, summary.n());
    }

    @Test
    void theTotalsReadBackFromTheSummary() {
        TreeMap<Long, Long> totals = new TreeMap<>(Map.of(-500L, 7L, -499L, 1L, 10L, 4L, 999L, 12L));
        BinSummary summary = BinSummary.of(totals);
        assertEquals(totals, new BinSummary(summary.low(), summary.below(), summary.n()).totals());
    }

    @Test
    void noScoresNoLowBin() {
        BinSummary summary = BinSummary.of(new TreeMap<>());
        assertNull(summary.low());
        assertArrayEquals(new long[0], summary.below());
        assertEquals(0, summary.n());
        assertTrue(summary.totals().isEmpty());
        assertTrue(new BinSummary(null, null, 5).totals().isEmpty(), "a distribution never summarised");
    }
}
