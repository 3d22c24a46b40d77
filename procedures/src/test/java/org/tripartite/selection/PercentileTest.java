package org.tripartite.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/** P_c(w) = (number of the concept's scores at most w) / n, and x = 1 where P_c(w) > p. */
class PercentileTest {
    /** The definition: the smallest m (1..n) with m / n > p, as a 0-based rank; -1 when none. */
    private static long byDefinition(double p, long n) {
        for (long m = 1; m <= n; m++) {
            if ((double) m / n > p) {
                return m - 1;
            }
        }
        return -1;
    }

    @Test
    void theThresholdRankIsTheSmallestMWithMOverNAboveP() {
        assertEquals(9, Percentile.thresholdRank(0.9, 10));   // 9/10 is not above 0.9: the 10th score
        assertEquals(7, Percentile.thresholdRank(0.7, 10));   // 7/10 == 0.7 in doubles too
        assertEquals(0, Percentile.thresholdRank(0.0, 10));
        assertEquals(-1, Percentile.thresholdRank(1.0, 10));  // nothing is above P = 1
        assertEquals(-1, Percentile.thresholdRank(0.5, 0));
        assertEquals(0, Percentile.thresholdRank(0.5, 1));
        double[] ps = {0, 0.1, 0.2, 0.3, 1.0 / 3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1};
        for (long n = 0; n <= 1200; n++) {
            for (double p : ps) {
                assertEquals(byDefinition(p, n), Percentile.thresholdRank(p, n), "p " + p + ", n " + n);
            }
        }
    }

    @Test
    void locateFindsTheBinAndTheRankWithinIt() {
        TreeMap<Long, Long> totals = new TreeMap<>(Map.of(-3L, 2L, 5L, 3L, 7L, 1L));
        assertEquals(new Percentile.Position(-3, 0), Percentile.locate(totals, 0));
        assertEquals(new Percentile.Position(-3, 1), Percentile.locate(totals, 1));
        assertEquals(new Percentile.Position(5, 0), Percentile.locate(totals, 2));
        assertEquals(new Percentile.Position(5, 2), Percentile.locate(totals, 4));
        assertEquals(new Percentile.Position(7, 0), Percentile.locate(totals, 5));
        assertNull(Percentile.locate(totals, 6));
        assertNull(Percentile.locate(totals, -1));
        assertNull(Percentile.locate(new TreeMap<>(), 0));
    }

    @Test
    void theThresholdFromTheBinsSelectsExactlyTheScoresAboveP() {
        Random random = new Random(3);
        for (int round = 0; round < 200; round++) {
            // Scores with many ties, as 5-decimal cosines of similar extracts have.
            double[] scores = new double[1 + random.nextInt(300)];
            for (int i = 0; i < scores.length; i++) {
                scores[i] = (random.nextInt(400) - 200) / (random.nextBoolean() ? 1000.0 : 100000.0);
            }
            Arrays.sort(scores);
            TreeMap<Long, Bin> bins = Bin.of(scores);
            TreeMap<Long, Long> totals = new TreeMap<>();
            bins.forEach((key, bin) -> totals.put(key, bin.total()));
            for (double p : new double[] {0, 0.25, 0.5, 0.9, 0.97, 1}) {
                long rank = Percentile.thresholdRank(p, scores.length);
                Percentile.Position at = Percentile.locate(totals, rank);
                Double threshold = at == null ? null : bins.get(at.bin()).at(at.offset());
                for (double w : scores) {
                    long atMost = Arrays.stream(scores).filter(x -> x <= w).count();
                    boolean selected = (double) atMost / scores.length > p;
                    assertEquals(selected, threshold != null && w >= threshold, "w " + w + ", p " + p);
                }
            }
        }
    }
}
