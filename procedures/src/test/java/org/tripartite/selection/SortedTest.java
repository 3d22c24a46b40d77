package org.tripartite.selection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class SortedTest {
    @Test
    void ofSortsAListAndTakesNullForNone() {
        assertArrayEquals(new double[] {-0.2, 0.1, 0.1, 0.3}, Sorted.of(Arrays.asList(0.3, 0.1, -0.2, 0.1)));
        assertArrayEquals(new double[0], Sorted.of(null));
    }

    @Test
    void mergeKeepsTheOrderAndEveryScore() {
        assertArrayEquals(new double[] {-1, 0.1, 0.1, 0.2, 0.5, 0.5, 0.9},
                Sorted.merge(new double[] {0.1, 0.2, 0.5}, new double[] {-1, 0.1, 0.5, 0.9}));
        assertArrayEquals(new double[] {0.4}, Sorted.merge(new double[0], new double[] {0.4}));
        assertArrayEquals(new double[0], Sorted.merge(new double[0], new double[0]));
    }

    @Test
    void byBinGroupsScoresByTheirBin() {
        Map<Long, List<Double>> by = Sorted.byBin(List.of(0.1004, -0.0001, 0.1001, 0.2));
        assertEquals(Map.of(100L, List.of(0.1004, 0.1001), -1L, List.of(-0.0001), 200L, List.of(0.2)), by);
    }
}
