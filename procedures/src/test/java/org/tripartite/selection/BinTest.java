package org.tripartite.selection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

class BinTest {
    @Test
    void aScoresBinIsFloorOfAThousandTimesIt() {
        assertEquals(0, Bin.key(0.0));
        assertEquals(0, Bin.key(0.00099));
        assertEquals(1, Bin.key(0.001));
        assertEquals(-1, Bin.key(-0.00001));
        assertEquals(-1000, Bin.key(-1.0));
        assertEquals(1000, Bin.key(1.0));
        assertEquals(123, Bin.key(0.12345));
        assertEquals(-124, Bin.key(-0.12345));
    }

    @Test
    void sortedScoresGoIntoTheirBinsAsDistinctScoresWithCounts() {
        TreeMap<Long, Bin> bins = Bin.of(new double[] {-0.5, 0.1, 0.1, 0.1005, 0.1009, 0.2, 0.2});
        assertEquals(List.of(-500L, 100L, 200L), List.copyOf(bins.keySet()));
        assertArrayEquals(new double[] {0.1, 0.1005, 0.1009}, bins.get(100L).w());
        assertArrayEquals(new long[] {2, 1, 1}, bins.get(100L).counts());
        assertArrayEquals(new long[] {2, 3, 4}, bins.get(100L).upto());
        assertEquals(4, bins.get(100L).total());
        assertArrayEquals(new long[] {2}, bins.get(200L).counts());
        assertTrue(Bin.of(new double[0]).isEmpty());
    }

    @Test
    void aStoredBinReadsBackAsItWasWritten() {
        Bin bin = new Bin(new double[] {0.1, 0.1002, 0.1007}, new long[] {3, 1, 2});
        Bin read = Bin.stored(bin.w(), bin.upto());
        assertArrayEquals(bin.w(), read.w());
        assertArrayEquals(bin.counts(), read.counts());
    }

    @Test
    void theScoreAtARankWithinTheBin() {
        Bin bin = new Bin(new double[] {0.1, 0.1002, 0.1007}, new long[] {3, 1, 2});
        double[] expanded = {0.1, 0.1, 0.1, 0.1002, 0.1007, 0.1007};
        for (int r = 0; r < expanded.length; r++) {
            assertEquals(expanded[r], bin.at(r));
        }
        assertThrows(IndexOutOfBoundsException.class, () -> bin.at(6));
    }

    @Test
    void plusAndMinusKeepTheCountsOfEveryScore() {
        Bin bin = new Bin(new double[] {0.1, 0.1005}, new long[] {2, 1});
        Bin more = bin.plus(new double[] {0.1, 0.1003, 0.1009, 0.1009});
        assertArrayEquals(new double[] {0.1, 0.1003, 0.1005, 0.1009}, more.w());
        assertArrayEquals(new long[] {3, 1, 1, 2}, more.counts());
        Bin less = more.minus(new double[] {0.1, 0.1003, 0.1009});
        assertArrayEquals(new double[] {0.1, 0.1005, 0.1009}, less.w());
        assertArrayEquals(new long[] {2, 1, 1}, less.counts());
        assertTrue(bin.minus(new double[] {0.1, 0.1, 0.1005}).isEmpty());
        assertArrayEquals(new long[] {2, 1}, bin.counts(), "plus and minus leave the bin as it was");
    }

    @Test
    void removingAScoreTheBinDoesNotHoldIsRefused() {
        Bin bin = new Bin(new double[] {0.1, 0.1005}, new long[] {2, 1});
        assertNull(bin.minus(new double[] {0.1002}));
        assertNull(bin.minus(new double[] {0.1005, 0.1005}));
        assertNull(Bin.EMPTY.minus(new double[] {0.1}));
    }

    @Test
    void binningAllScoresAtOnceEqualsAddingThemBinByBin() {
        Random random = new Random(7);
        for (int round = 0; round < 50; round++) {
            double[] scores = new double[random.nextInt(200)];
            for (int i = 0; i < scores.length; i++) {
                double w = Math.round((random.nextDouble() * 2 - 1) * 1000) / 1000.0;  // many ties, bin edges
                scores[i] = random.nextBoolean() ? w : w * 0.999;
            }
            Arrays.sort(scores);
            TreeMap<Long, Bin> bins = Bin.of(scores);
            int at = 0;
            for (var entry : bins.entrySet()) {
                Bin built = Bin.EMPTY;
                for (double w : scores) {
                    if (Bin.key(w) == entry.getKey()) {
                        built = built.plus(new double[] {w});
                    }
                }
                assertArrayEquals(built.w(), entry.getValue().w());
                assertArrayEquals(built.counts(), entry.getValue().counts());
                for (long r = 0; r < built.total(); r++) {
                    assertEquals(scores[at++], entry.getValue().at(r));
                }
            }
            assertEquals(scores.length, at);
        }
    }
}
