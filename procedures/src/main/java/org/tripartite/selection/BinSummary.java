package org.tripartite.selection;

import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a (:ScoreDistribution) keeps of its bins, so a percentile needs no bin but the one it
 * falls in: the lowest bin (low, null when there is none), for every bin from low up how many
 * of the bins' scores lie below it (below), and their number (n, without the unbinned ones).
 */
record BinSummary(Long low, long[] below, long n) {
    /** The summary of each non-empty bin's number of scores. */
    static BinSummary of(SortedMap<Long, Long> totals) {
        if (totals.isEmpty()) {
            return new BinSummary(null, new long[0], 0);
        }
        long low = totals.firstKey();
        long[] below = new long[(int) (totals.lastKey() - low + 1)];
        long n = 0;
        for (int i = 0; i < below.length; i++) {
            below[i] = n;
            n += totals.getOrDefault(low + i, 0L);
        }
        return new BinSummary(low, below, n);
    }

    /** Each non-empty bin's number of scores (none when the summary has no low or below). */
    TreeMap<Long, Long> totals() {
        TreeMap<Long, Long> totals = new TreeMap<>();
        if (low == null || below == null) {
            return totals;
        }
        for (int i = 0; i < below.length; i++) {
            long next = i + 1 < below.length ? below[i + 1] : n;
            if (next > below[i]) {
                totals.put(low + i, next - below[i]);
            }
        }
        return totals;
    }
}
