package org.tripartite.selection;

import java.util.Arrays;
import java.util.TreeMap;

/**
 * One bin of a concept's score histogram, as a (:ScoreBin) holds it: its distinct scores
 * ascending and how many times each occurs (the node stores the running counts, `upto`).
 * Bins are 0.001 wide: bin(w) = floor(1000 w), as distribution.cypher computes it.
 */
record Bin(double[] w, long[] counts) {
    static final Bin EMPTY = new Bin(new double[0], new long[0]);

    /** The bin of a score, as the script computes it: floor(1000 * w) in double arithmetic. */
    static long key(double w) {
        return (long) Math.floor(1000 * w);
    }

    /** A bin as its node stores it: distinct scores and running counts. */
    static Bin stored(double[] w, long[] upto) {
        long[] counts = new long[upto.length];
        for (int i = 0; i < upto.length; i++) {
            counts[i] = upto[i] - (i == 0 ? 0 : upto[i - 1]);
        }
        return new Bin(w, counts);
    }

    /** Scores sorted ascending, by bin. */
    static TreeMap<Long, Bin> of(double[] sorted) {
        TreeMap<Long, Bin> bins = new TreeMap<>();
        int i = 0;
        while (i < sorted.length) {
            long key = key(sorted[i]);
            int end = i;
            int distinct = 0;
            while (end < sorted.length && key(sorted[end]) == key) {
                distinct += end == i || sorted[end] != sorted[end - 1] ? 1 : 0;
                end++;
            }
            double[] values = new double[distinct];
            long[] counts = new long[distinct];
            for (int j = i, k = -1; j < end; j++) {
                if (j == i || sorted[j] != sorted[j - 1]) {
                    values[++k] = sorted[j];
                }
                counts[k]++;
            }
            bins.put(key, new Bin(values, counts));
            i = end;
        }
        return bins;
    }

    boolean isEmpty() {
        return w.length == 0;
    }

    long total() {
        long total = 0;
        for (long count : counts) {
            total += count;
        }
        return total;
    }

    /** The running counts, as the node stores them: how many of the bin's scores are at most each. */
    long[] upto() {
        long[] upto = new long[counts.length];
        long running = 0;
        for (int i = 0; i < counts.length; i++) {
            running += counts[i];
            upto[i] = running;
        }
        return upto;
    }

    /** The score at 0-based rank {@code offset} within the bin. */
    double at(long offset) {
        long running = 0;
        for (int i = 0; i < counts.length; i++) {
            running += counts[i];
            if (offset < running) {
                return w[i];
            }
        }
        throw new IndexOutOfBoundsException("rank " + offset + " in a bin of " + running + " scores");
    }

    /** This bin without the given scores (sorted), or null when one of them is not in it. */
    Bin minus(double[] scores) {
        long[] left = counts.clone();
        int i = 0;
        for (double x : scores) {
            while (i < w.length && w[i] < x) {
                i++;
            }
            if (i == w.length || w[i] != x || left[i] == 0) {
                return null;
            }
            left[i]--;
        }
        int kept = 0;
        for (long count : left) {
            kept += count > 0 ? 1 : 0;
        }
        double[] values = new double[kept];
        long[] counts = new long[kept];
        for (int j = 0, k = 0; j < w.length; j++) {
            if (left[j] > 0) {
                values[k] = w[j];
                counts[k++] = left[j];
            }
        }
        return new Bin(values, counts);
    }

    /** This bin with the given scores (sorted) added. */
    Bin plus(double[] scores) {
        double[] values = new double[w.length + scores.length];
        long[] merged = new long[w.length + scores.length];
        int i = 0, j = 0, k = 0;
        while (i < w.length || j < scores.length) {
            double next = j == scores.length || i < w.length && w[i] <= scores[j] ? w[i] : scores[j];
            long count = 0;
            if (i < w.length && w[i] == next) {
                count += counts[i++];
            }
            while (j < scores.length && scores[j] == next) {
                count++;
                j++;
            }
            values[k] = next;
            merged[k++] = count;
        }
        return new Bin(Arrays.copyOf(values, k), Arrays.copyOf(merged, k));
    }
}
