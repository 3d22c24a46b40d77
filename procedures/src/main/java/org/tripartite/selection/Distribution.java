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
    static final String PROCEDURE = "tripartite.selection.distribution";

    private Distribution() {
    }

    /** @param conceptIds the concepts of an incremental run, or null for all of them (a full run) */
    static long run(Store store, Call call, List<String> conceptIds, double alpha, double beta) {
        Set<String> scope = conceptIds == null ? null : Set.copyOf(conceptIds);
        Skips skips = new Skips(PROCEDURE);
        long rebuilt = 0;
        for (Node concept : store.all(Store.CONCEPT)) {
            call.check();
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
            double[] sorted = sortedScores(concept);
            if (sorted.length == 0) {
                skips.debug("concepts without scores, so without thresholds (alpha_w, beta_w)", conceptId);
            }
            Histogram.rebuild(store, distribution, conceptId, sorted);
            distribution.setProperty("current", true);
            rebuilt++;
        }
        if (scope == null) {  // distributions of concepts that are gone
            Set<String> concepts = new HashSet<>();
            store.all(Store.CONCEPT).forEach(concept -> concepts.add(Store.id(concept)));
            for (Node distribution : store.all(Store.DISTRIBUTION)) {
                String conceptId = (String) distribution.getProperty("concept_id");
                if (!concepts.contains(conceptId)) {
                    call.check();
                    store.bins(conceptId).forEach(Node::delete);
                    distribution.getRelationships().forEach(Relationship::delete);
                    distribution.delete();
                }
            }
        }
        for (Node distribution : store.all(Store.DISTRIBUTION)) {
            call.check();
            String conceptId = (String) distribution.getProperty("concept_id");
            Object oldAlpha = distribution.getProperty("alpha", null);
            Object oldBeta = distribution.getProperty("beta", null);
            boolean due = scope == null || scope.contains(conceptId) || oldAlpha == null
                    || !oldAlpha.equals(alpha) || (oldBeta != null && !oldBeta.equals(beta));
            if (due) {
                long n = ((Number) distribution.getProperty("n", 0L)).longValue();
                distribution.setProperty("alpha", alpha);
                distribution.setProperty("beta", beta);
                set(distribution, "alpha_w", threshold(store, distribution, conceptId, alpha, n));
                set(distribution, "beta_w", threshold(store, distribution, conceptId, beta, n));
            }
        }
        skips.report(call.log());
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

    /** The score w with P_c(w) > p exactly when w is at least it (null: no score passes). */
    private static Double threshold(Store store, Node distribution, String conceptId, double p, long n) {
        return Histogram.at(store, distribution, conceptId, Percentile.thresholdRank(p, n));
    }

    private static void set(Node node, String key, Double value) {
        if (value == null) {
            node.removeProperty(key);
        } else {
            node.setProperty(key, value);
        }
    }
}
