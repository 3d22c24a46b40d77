package org.tripartite.selection;

import java.time.ZonedDateTime;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.neo4j.graphdb.Node;

/**
 * A concept's score distribution as cypher/selection/distribution.cypher stores it: bins of width
 * 0.001 (bin(w) = floor(1000 w)), each (:ScoreBin {w, upto}) holding its distinct scores and how
 * many of its scores are at most each ({@link Bin}); and on the (:ScoreDistribution) n, the lowest
 * bin (low) and, for every bin from low up, how many of the bins' scores lie below it (below:
 * {@link BinSummary}).
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

    /** Rebuild from all of the concept's scores, sorted ascending; only bins that changed are written. */
    static void rebuild(Store store, Node distribution, String conceptId, double[] sorted) {
        Map<Long, Node> stored = new HashMap<>();
        for (Node node : store.bins(conceptId)) {
            stored.put(((Number) node.getProperty("bin")).longValue(), node);
        }
        TreeMap<Long, Long> totals = new TreeMap<>();
        for (Map.Entry<Long, Bin> entry : Bin.of(sorted).entrySet()) {
            long key = entry.getKey();
            Node node = stored.remove(key);
            write(store, conceptId, key, node, node == null ? null : bin(node), entry.getValue());
            totals.put(key, entry.getValue().total());
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
        double[] come = Sorted.of(added);
        long kept = unbinned.length + come.length;
        if (removed.isEmpty() && kept <= UNBINNED_LIMIT && kept <= (n + come.length) / 8) {
            distribution.setProperty("unbinned", Sorted.merge(unbinned, come));
            distribution.setProperty("n", n + come.length);
            distribution.setProperty("updated_at", ZonedDateTime.now());
            return true;
        }
        TreeMap<Long, Long> totals = totals(distribution, unbinned.length);
        // By bin, each side sorted: the unbinned scores that join it, the scores that leave it
        // (from its own or the joining ones) and those that come.
        Map<Long, List<Double>> joining = Sorted.byBin(Arrays.stream(unbinned).boxed().toList());
        Map<Long, List<Double>> gone = Sorted.byBin(removed);
        Map<Long, List<Double>> coming = Sorted.byBin(added);
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
            Bin old = node == null ? Bin.EMPTY : bin(node);
            olds.put(key, old);
            Bin next = old.plus(Sorted.of(joining.get(key))).minus(Sorted.of(gone.get(key)));
            if (next == null) {
                return false;
            }
            merged.put(key, next.plus(Sorted.of(coming.get(key))));
        }
        for (Map.Entry<Long, Bin> entry : merged.entrySet()) {
            long key = entry.getKey();
            Bin content = entry.getValue();
            write(store, conceptId, key, nodes.get(key), olds.get(key), content);
            if (content.isEmpty()) {
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
            totals.merge(Bin.key(w), 1L, Long::sum);
        }
        Percentile.Position position = Percentile.locate(totals, rank);
        if (position == null) {
            return null;  // not reached: n counts every score
        }
        Node node = store.bin(conceptId, position.bin());
        Bin content = (node == null ? Bin.EMPTY : bin(node))
                .plus(Arrays.stream(unbinned).filter(w -> Bin.key(w) == position.bin()).toArray());
        return content.at(position.offset());
    }

    /** A (:ScoreBin)'s content. */
    private static Bin bin(Node node) {
        return Bin.stored((double[]) node.getProperty("w"), (long[]) node.getProperty("upto"));
    }

    /** Each non-empty bin's number of scores, from the distribution's summary (n less its `unbinned` scores). */
    private static TreeMap<Long, Long> totals(Node distribution, int unbinned) {
        Object low = distribution.getProperty("low", null);
        Object below = distribution.getProperty("below", null);
        long n = ((Number) distribution.getProperty("n", 0L)).longValue() - unbinned;
        return new BinSummary(low == null ? null : ((Number) low).longValue(),
                below instanceof long[] counts ? counts : null, n).totals();
    }

    /** n, low and below from each non-empty bin's number of scores, and when that was. */
    private static void summarise(Node distribution, TreeMap<Long, Long> totals) {
        distribution.setProperty("updated_at", ZonedDateTime.now());
        BinSummary summary = BinSummary.of(totals);
        if (summary.low() != null) {
            distribution.setProperty("low", summary.low());
        } else {
            distribution.removeProperty("low");
        }
        distribution.setProperty("n", summary.n());
        if (!Scores.same(distribution.getProperty("below", null), summary.below())) {
            distribution.setProperty("below", summary.below());
        }
    }

    private static void write(Store store, String conceptId, long key, Node node, Bin old, Bin content) {
        if (content.isEmpty()) {
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
