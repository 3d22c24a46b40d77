package org.tripartite.selection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * w as score.cypher makes it: {@code round(2.0 * vector.similarity.cosine(a, b) - 1.0, 5)}. The
 * expected values are what Neo4j 5.26.19 returned for the same Cypher expression.
 */
class ScoresTest {
    private static double w(double[] a, double[] b) {
        return Scores.w(Scores.vector(a), Scores.vector(b));
    }

    @Test
    void wIsTheCosineInMinusOneToOneRoundedToFiveDecimals() {
        assertEquals(1.0, w(new double[] {1, 0, 0}, new double[] {1, 0, 0}));
        assertEquals(0.0, w(new double[] {1, 0, 0}, new double[] {0, 1, 0}));
        assertEquals(-1.0, w(new double[] {1, 0, 0}, new double[] {-1, 0, 0}));
        assertEquals(0.70711, w(new double[] {1, 1, 0}, new double[] {1, 0, 0}));
        assertEquals(0.29369, w(new double[] {1, 2, 3}, new double[] {-3, 0.5, 2}));
        assertEquals(0.71429, w(new double[] {0.1, 0.2, 0.3}, new double[] {0.3, 0.2, 0.1}));
    }

    @Test
    void theCosineIsNeo4jsFloat32One() {
        // In float64 this cosine is -0.416725000879..., which rounds to -0.41673; Neo4j's float32
        // similarity (0.29163751006126404) makes it -0.41672, and so must the plugin.
        double[] a = {0.288, 0.253, 1.73, 0.821, -0.974, -0.965};
        double[] b = {1.161, 0.251, -0.495, -1.26, 0.417, -0.062};
        assertEquals(-0.41672, w(a, b));
        assertEquals(0.15764, w(new double[] {-1.341, 0.756, 0.564, -0.003, 1.005, -0.411},
                new double[] {1.424, 2.219, 0.944, 1.52, 0.511, -0.493}));
    }

    @Test
    void roundingIsCyphers() {
        assertEquals(0.0, Scores.w(0.5));
        assertEquals(-1.0, Scores.w(0.0));
        assertEquals(0.5, Scores.w(0.75));
        // Cypher rounds the shortest decimal form half up: 2 * 0.9114675 - 1 prints as 0.822935
        // (its binary value lies just below), and rounds to 0.82294.
        assertEquals(0.82294, Scores.w(0.9114675));
        assertEquals(0.4092, Scores.w(0.7045975));
        // Halves of negatives go away from zero: -0.930285 to -0.93029 (Math.round would give -0.93028).
        assertEquals(-0.93029, Scores.w(0.0348575));
        assertEquals(1e-05, Scores.w(0.5000025));
        assertEquals(-1e-05, Scores.w(0.4999975));
    }

    @Test
    void aRowIsOneScorePerChunkInTheListsOrder() {
        float[][] chunks = {Scores.vector(new double[] {1, 0}), Scores.vector(new double[] {0, 1}),
                Scores.vector(new double[] {-1, 0})};
        assertArrayEquals(new double[] {1.0, 0.0, -1.0}, Scores.row(Scores.vector(new double[] {2, 0}), chunks, "c"));
        assertArrayEquals(new double[0], Scores.row(Scores.vector(new double[] {2, 0}), new float[0][], "c"));
    }

    @Test
    void vectorsOfTwoSizesAreNeverCompared() {
        float[][] chunks = {Scores.vector(new double[] {1, 0, 0})};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Scores.row(Scores.vector(new double[] {1, 0}), chunks, "c7"));
        assertTrue(e.getMessage().contains("concept c7"), e.getMessage());
        assertTrue(e.getMessage().contains("2 dimensions") && e.getMessage().contains("3"), e.getMessage());
    }

    @Test
    void aZeroVectorIsRefusedAsCypherRefusesIt() {
        assertThrows(RuntimeException.class, () -> Scores.vector(new double[] {0, 0}));
    }

    @Test
    void theBestIsTheFirstOfTheHighest() {
        assertEquals(1, Scores.best(new double[] {0.1, 0.5, 0.5, -1}));
        assertEquals(0, Scores.best(new double[] {0.2}));
        assertEquals(2, Scores.best(new double[] {-0.3, -0.2, 0.9}));
    }

    @Test
    void stringsAreOrderedByCodePointAsCypherOrdersThem() {
        // U+FFFD sorts before U+1F600 by code point, after it in UTF-16 (a surrogate, 0xD83D).
        String replacement = "\uFFFD", emoji = new String(Character.toChars(0x1F600));
        assertTrue(replacement.compareTo(emoji) > 0);
        assertTrue(Scores.CODE_POINTS.compare(replacement, emoji) < 0);
        List<String> ids = new ArrayList<>(List.of("t10", "t2", emoji, "t1", replacement, "t"));
        ids.sort(Scores.CODE_POINTS);
        assertEquals(List.of("t", "t1", "t10", "t2", replacement, emoji), ids);
        assertEquals(0, Scores.CODE_POINTS.compare("abc", "abc"));
    }

    @Test
    void sameComparesStoredArraysByValue() {
        assertTrue(Scores.same(new double[] {1, 2}, new double[] {1, 2}));
        assertFalse(Scores.same(new double[] {1, 2}, new double[] {2, 1}));
        assertFalse(Scores.same(null, new double[0]));
        assertFalse(Scores.same(new long[] {1}, new double[] {1}));
        assertTrue(Scores.same(new long[] {1, 3}, new long[] {1, 3}));
        assertTrue(Scores.same(new String[] {"a"}, new String[] {"a"}));
    }
}
