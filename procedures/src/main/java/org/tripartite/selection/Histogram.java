package org.tripartite.selection;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.neo4j.graphdb.Node;

/**
 * A concept's score distribution as cypher/selection/distribution.cypher stores it: bins of width
 * 0.001 (bin(w) = floor(1000 w)), each (:ScoreBin {w, upto}) holding its distinct scores and how
 * many of its scores are at most each; and on the (:ScoreDistribution) n, the lowest bin (low)
 * and, for every bin from low up, how many of the bins' scores lie below it (below).
 *
 * An incremental run that only adds scores (a new object) puts them in the distribution's
 * `unbinned` list (sorted) instead of rewriting the bins they fall in: a new object touches most
 * bins of each of its concepts, and rewriting them cost more than the rest of the run. n counts
 * the bins' scores and the unbinned ones; once the unbinned outgrow UNBINNED_LIMIT they go into
 * the bins. Readers add the unbinned scores at most w to the bins' count (percentiles.cypher).
 */
final class Histogram {
    private Histogram() {
    }

    /** bin(w), as the script computes it: floor(1000 * w) in double arithmetic. */
    static long bin(double w) {
        return (long) Math.floor(1000 * w);
    }

    /** One bin's content: distinct scores ascending and their multiplicities. */
    private record Bin(double[] w, long[] counts) {
        long total() {
            long total = 0;
            for (long count : counts) {
                total += count;
            }
            return total;
        }

        long[] upto() {
            long[] upto = new long[counts.length];
            long running = 0;
            for (int i = 0; i < counts.length; i++) {
                running += counts[i];
                upto[i] = running;
            }
            return upto;
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

        static Bin of(Node node) {
            double[] w = (double[]) node.getProperty("w");
            long[] upto = (long[]) node.getProperty("upto");
            long[] counts = new long[upto.length];
            for (int i = 0; i < upto.length; i++) {
                counts[i] = upto[i] - (i == 0 ? 0 : upto[i - 1]);
            }
            return new Bin(w, counts);
        }
    }

    /** Rebuild from all of the concept's scores, sorted ascending; only bins that changed are written. */
    static void rebuild(Store store, Node distribution, String conceptId, double[] sorted) {
        Map<Long, Node> stored = new HashMap<>();
        for (Node node : store.bins(conceptId)) {
            stored.put(((Number) node.getProperty("bin")).longValue(), node);
        }
        TreeMap<Long, Long> totals = new TreeMap<>();
        int i = 0;
        while (i < sorted.length) {
            long key = bin(sorted[i]);
            int end = i;
            while (end < sorted.length && bin(sorted[end]) == key) {
                end++;
            }
            List<Double> values = new ArrayList<>();
            List<Long> counts = new ArrayList<>();
            for (int j = i; j < end; j++) {
                if (values.isEmpty() || values.get(values.size() - 1) != sorted[j]) {
                    values.add(sorted[j]);
                    counts.add(1L);
                } else {
                    counts.set(counts.size() - 1, counts.get(counts.size() - 1) + 1);
                }
            }
            Bin content = new Bin(values.stream().mapToDouble(Double::doubleValue).toArray(),
                    counts.stream().mapToLong(Long::longValue).toArray());
            Node node = stored.remove(key);
            write(store, conceptId, key, node, node == null ? null : Bin.of(node), content);
            totals.put(key, (long) (end - i));
            i = end;
        }
        stored.values().forEach(Node::delete);
        distribution.removeProperty("unbinned");
        summarise(distribution, totals);
    }

    /** At most this many unbinned scores (readers count them one by one), and at most an eighth of the distribution's. */
    static final int UNBINNED_LIMIT = 2048;

    /**
     * Take the scores `removed` out and put `added` in. Scores that are only added join the
     * unbinned ones while those stay few; otherwise the unbinned scores and the changes go into
     * their bins, touching only those. False (nothing written) when a removed score is not in the
     * distribution: it does not follow the scores, and a rebuild is due.
     */
    static boolean update(Store store, Node distribution, String conceptId, List<Double> removed, List<Double> added) {
        double[] unbinned = unbinned(distribution);
        long n = ((Number) distribution.getProperty("n", 0L)).longValue();
        double[] come = sorted(added);
        long kept = unbinned.length + come.length;
        if (removed.isEmpty() && kept <= UNBINNED_LIMIT && kept <= (n + come.length) / 8) {
            distribution.setProperty("unbinned", merge(unbinned, come));
            distribution.setProperty("n", n + come.length);
            distribution.setProperty("updated_at", ZonedDateTime.now());
            return true;
        }
        TreeMap<Long, Long> totals = totals(distribution, unbinned.length);
        // By bin, each side sorted: the unbinned scores that join it, the scores that leave it
        // (from its own or the joining ones) and those that come.
        Map<Long, List<Double>> joining = group(Arrays.stream(unbinned).boxed().toList());
        Map<Long, List<Double>> gone = group(removed);
        Map<Long, List<Double>> coming = group(added);
        Set<Long> keys = new HashSet<>(joining.keySet());
        keys.addAll(gone.keySet());
        keys.addAll(coming.keySet());
        // The touched bins: looked up one by one, or all of the concept's at once when most are.
        Map<Long, Node> nodes = new HashMap<>();
        if (keys.size() * 4 > totals.size()) {
            for (Node node : store.bins(conceptId)) {
                long key = ((Number) node.getProperty("bin")).longValue();
                if (keys.contains(key)) {
                    nodes.put(key, node);
                }
            }
        } else {
            for (long key : keys) {
                Node node = store.bin(conceptId, key);
                if (node != null) {
                    nodes.put(key, node);
                }
            }
        }
        Map<Long, Bin> merged = new HashMap<>();
        Map<Long, Bin> olds = new HashMap<>();
        for (long key : keys) {
            Node node = nodes.get(key);
            Bin old = node == null ? new Bin(new double[0], new long[0]) : Bin.of(node);
            olds.put(key, old);
            Bin next = old.plus(sorted(joining.get(key))).minus(sorted(gone.get(key)));
            if (next == null) {
                return false;
            }
            merged.put(key, next.plus(sorted(coming.get(key))));
        }
        for (Map.Entry<Long, Bin> entry : merged.entrySet()) {
            long key = entry.getKey();
            Bin content = entry.getValue();
            write(store, conceptId, key, nodes.get(key), olds.get(key), content);
            if (content.w().length == 0) {
                totals.remove(key);
            } else {
                totals.put(key, content.total());
            }
        }
        distribution.removeProperty("unbinned");
        summarise(distribution, totals);
        return true;
    }

    /** The distribution's unbinned scores, sorted (none when it has none). */
    static double[] unbinned(Node distribution) {
        Object value = distribution.getProperty("unbinned", null);
        return value instanceof double[] scores ? scores : new double[0];
    }

    private static double[] merge(double[] a, double[] b) {
        double[] out = new double[a.length + b.length];
        int i = 0, j = 0, k = 0;
        while (i < a.length || j < b.length) {
            out[k++] = j == b.length || i < a.length && a[i] <= b[j] ? a[i++] : b[j++];
        }
        return out;
    }

    private static Map<Long, List<Double>> group(List<Double> scores) {
        Map<Long, List<Double>> by = new HashMap<>();
        for (double w : scores) {
            by.computeIfAbsent(bin(w), key -> new ArrayList<>()).add(w);
        }
        return by;
    }

    private static double[] sorted(List<Double> scores) {
        if (scores == null) {
            return new double[0];
        }
        double[] out = scores.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(out);
        return out;
    }

    /** The score at 0-based rank r among the bins' and the unbinned scores, or null when there is none. */
    static Double at(Store store, Node distribution, String conceptId, long rank) {
        long n = ((Number) distribution.getProperty("n", 0L)).longValue();
        if (rank < 0 || rank >= n) {
            return null;
        }
        // Each bin's number of scores, the unbinned ones counted in theirs; then the bin that
        // holds the rank, and the rank within it.
        double[] unbinned = unbinned(distribution);
        TreeMap<Long, Long> totals = totals(distribution, unbinned.length);
        for (double w : unbinned) {
            totals.merge(bin(w), 1L, Long::sum);
        }
        long under = 0;
        for (Map.Entry<Long, Long> entry : totals.entrySet()) {
            if (rank < under + entry.getValue()) {
                long key = entry.getKey();
                Node node = store.bin(conceptId, key);
                Bin content = (node == null ? new Bin(new double[0], new long[0]) : Bin.of(node))
                        .plus(Arrays.stream(unbinned).filter(w -> bin(w) == key).toArray());
                long offset = rank - under;
                long[] upto = content.upto();
                int i = 0;
                while (upto[i] <= offset) {
                    i++;
                }
                return content.w()[i];
            }
            under += entry.getValue();
        }
        return null;  // not reached: n counts every score
    }

    /** Each non-empty bin's number of scores, from the distribution's below and n (less its `unbinned` scores). */
    private static TreeMap<Long, Long> totals(Node distribution, int unbinned) {
        TreeMap<Long, Long> totals = new TreeMap<>();
        Object low = distribution.getProperty("low", null);
        Object stored = distribution.getProperty("below", null);
        if (low == null || !(stored instanceof long[] below)) {
            return totals;
        }
        long n = ((Number) distribution.getProperty("n", 0L)).longValue() - unbinned;
        for (int i = 0; i < below.length; i++) {
            long next = i + 1 < below.length ? below[i + 1] : n;
            if (next > below[i]) {
                totals.put(((Number) low).longValue() + i, next - below[i]);
            }
        }
        return totals;
    }

    /** n, low and below from each non-empty bin's number of scores, and when that was. */
    private static void summarise(Node distribution, TreeMap<Long, Long> totals) {
        distribution.setProperty("updated_at", ZonedDateTime.now());
        long n = 0;
        long[] below = new long[0];
        if (!totals.isEmpty()) {
            long low = totals.firstKey();
            below = new long[(int) (totals.lastKey() - low + 1)];
            for (int i = 0; i < below.length; i++) {
                below[i] = n;
                n += totals.getOrDefault(low + i, 0L);
            }
            distribution.setProperty("low", low);
        } else {
            distribution.removeProperty("low");
        }
        distribution.setProperty("n", n);
        if (!Scores.same(distribution.getProperty("below", null), below)) {
            distribution.setProperty("below", below);
        }
    }

    private static void write(Store store, String conceptId, long key, Node node, Bin old, Bin content) {
        if (content.w().length == 0) {
            if (node != null) {
                node.delete();
            }
            return;
        }
        if (node == null) {
            node = store.createBin(conceptId, key);
        }
        if (old == null || !Arrays.equals(old.w(), content.w())) {
            node.setProperty("w", content.w());
        }
        if (old == null || !Arrays.equals(old.counts(), content.counts())) {
            node.setProperty("upto", content.upto());
        }
    }
}
