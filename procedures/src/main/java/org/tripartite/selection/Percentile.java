package org.tripartite.selection;

import java.util.Map;
import java.util.SortedMap;

/**
 * P_c(w) > p read backwards: which score is the threshold, found from the bins' counts
 * without reading the bins (distribution.cypher's alpha_w and beta_w).
 */
final class Percentile {
    private Percentile() {
    }

    /** Where a rank falls: its bin and its 0-based rank within that bin. */
    record Position(long bin, long offset) {
    }

    /**
     * The 0-based rank of the threshold's score among n: m - 1 for the smallest m with m / n > p
     * (P_c(w) > p is w at least that score); -1 when there is none. m / n is computed as the
     * script computes it, in doubles, so only the few m next to floor(p n) can be the one.
     */
    static long thresholdRank(double probability, long n) {
        long a = (long) Math.floor(probability * n);
        for (long m = a - 2; m <= a + 2; m++) {
            if (1 <= m && m <= n && (double) m / n > probability) {
                return m - 1;
            }
        }
        return -1;
    }

    /** The bin that holds the 0-based rank, given each non-empty bin's count; null when the rank is beyond them. */
    static Position locate(SortedMap<Long, Long> totals, long rank) {
        if (rank < 0) {
            return null;
        }
        long under = 0;
        for (Map.Entry<Long, Long> entry : totals.entrySet()) {
            if (rank < under + entry.getValue()) {
                return new Position(entry.getKey(), rank - under);
            }
            under += entry.getValue();
        }
        return null;
    }
}
