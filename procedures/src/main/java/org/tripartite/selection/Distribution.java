package org.tripartite.selection;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;

/**
 * Step 2, as cypher/selection/distribution.cypher: each concept's histogram of scores (every one
 * on a full run, those of the given concepts that are not current otherwise) and the alpha and
 * beta thresholds (P_c(w) > alpha is w >= alpha_w).
 */
final class Distribution {
    private Distribution() {
    }

    /** @param conceptIds the concepts of an incremental run, or null for all of them (a full run) */
    static long run(Store store, List<String> conceptIds, double alpha, double beta) {
        Set<String> scope = conceptIds == null ? null : Set.copyOf(conceptIds);
        long rebuilt = 0;
        for (Node concept : store.all(Store.CONCEPT)) {
            String conceptId = Store.id(concept);
            if (scope != null && !scope.contains(conceptId)) {
                continue;
            }
            Node distribution = store.distribution(conceptId);
            if (scope != null && distribution != null && Boolean.TRUE.equals(distribution.getProperty("current", null))) {
                continue;  // the score step kept it in step with the scores
            }
            if (distribution == null) {
                distribution = store.distributionOrNew(conceptId);
            }
            Histogram.rebuild(store, distribution, conceptId, sortedScores(concept));
            distribution.setProperty("current", true);
            rebuilt++;
        }
        if (scope == null) {  // distributions of concepts that are gone
            Set<String> concepts = new HashSet<>();
            store.all(Store.CONCEPT).forEach(concept -> concepts.add(Store.id(concept)));
            for (Node distribution : store.all(Store.DISTRIBUTION)) {
                String conceptId = (String) distribution.getProperty("concept_id");
                if (!concepts.contains(conceptId)) {
                    store.bins(conceptId).forEach(Node::delete);
                    distribution.getRelationships().forEach(Relationship::delete);
                    distribution.delete();
                }
            }
        }
        for (Node distribution : store.all(Store.DISTRIBUTION)) {
            String conceptId = (String) distribution.getProperty("concept_id");
            Object oldAlpha = distribution.getProperty("alpha", null);
            Object oldBeta = distribution.getProperty("beta", null);
            boolean due = scope == null || scope.contains(conceptId) || oldAlpha == null
                    || !oldAlpha.equals(alpha) || (oldBeta != null && !oldBeta.equals(beta));
            if (due) {
                long n = ((Number) distribution.getProperty("n", 0L)).longValue();
                distribution.setProperty("alpha", alpha);
                distribution.setProperty("beta", beta);
                set(distribution, "alpha_w", Histogram.at(store, distribution, conceptId, rank(alpha, n)));
                set(distribution, "beta_w", Histogram.at(store, distribution, conceptId, rank(beta, n)));
            }
        }
        return rebuilt;
    }

    /** Every score of the concept's pairs, each pair's list read once, sorted ascending. */
    private static double[] sortedScores(Node concept) {
        List<Relationship> pairs = Store.pairsOf(concept);
        double[][] lists = new double[pairs.size()][];
        int n = 0;
        for (int p = 0; p < lists.length; p++) {
            lists[p] = Store.scores(pairs.get(p));
            n += lists[p] == null ? 0 : lists[p].length;
        }
        double[] all = new double[n];
        int at = 0;
        for (double[] scores : lists) {
            if (scores != null) {
                System.arraycopy(scores, 0, all, at, scores.length);
                at += scores.length;
            }
        }
        Arrays.sort(all);
        return all;
    }

    /** The 0-based rank of the threshold's score: m - 1 for the smallest m with m / n > p; -1 when none. */
    private static long rank(double probability, long n) {
        long a = (long) Math.floor(probability * n);
        for (long m = a - 2; m <= a + 2; m++) {
            if (1 <= m && m <= n && (double) m / n > probability) {
                return m - 1;
            }
        }
        return -1;
    }

    private static void set(Node node, String key, Double value) {
        if (value == null) {
            node.removeProperty(key);
        } else {
            node.setProperty(key, value);
        }
    }
}
