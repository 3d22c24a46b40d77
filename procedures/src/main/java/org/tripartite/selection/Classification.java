package org.tripartite.selection;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One object's classification (steps 3 and 4 and the floor) from its scores and the concepts'
 * thresholds, as classify.cypher decides it: alpha (w >= alpha_w), the Markov blanket (w >=
 * beta_w on a chunk that holds an alpha candidate of the same object, of any concept), and each
 * pair's best candidate (the floor). Plain arithmetic: {@link Classify} reads and writes the graph.
 */
final class Classification {
    private Classification() {
    }

    /** A selected candidate: its chunk, its w and why (alpha, beta or floor). */
    record Selected(String chunk, double w, String reason) {
    }

    /**
     * A concept's chunk list, each chunk's number in the run (for the blanket's bit set), its
     * thresholds, and those its stored classification was made with (classified false: none).
     */
    record Concept(String[] chunks, int[] numbers, Double alpha, Double beta,
                   boolean classified, Double classifiedAlpha, Double classifiedBeta) {
    }

    /** One object's pairs with scores: concept ids and their score lists, in step. */
    record Pairs(List<String> conceptIds, List<double[]> scores) {
    }

    /** Each chunk's number in the run, numbering chunks not seen before from numbers.size() on. */
    static int[] number(String[] chunks, Map<String, Integer> numbers) {
        int[] numbered = new int[chunks.length];
        for (int i = 0; i < chunks.length; i++) {
            numbered[i] = numbers.computeIfAbsent(chunks[i], chunk -> numbers.size());
        }
        return numbered;
    }

    /**
     * Each pair's selected candidates, best first (highest w, then the chunk id in code point
     * order), under the concepts' current thresholds (or, `before`, those of their stored
     * classification). Pairs of concepts not in `concepts` are left out. `anchored`: a cleared
     * bit set over the run's chunk numbers, left cleared.
     */
    static Map<String, List<Selected>> of(Pairs pairs, Map<String, Concept> concepts, boolean before,
                                          BitSet anchored) {
        List<String> ids = new ArrayList<>();
        List<double[]> scores = new ArrayList<>();
        for (int p = 0; p < pairs.conceptIds().size(); p++) {
            if (concepts.containsKey(pairs.conceptIds().get(p))) {
                ids.add(pairs.conceptIds().get(p));
                scores.add(pairs.scores().get(p));
            }
        }
        // The chunks that hold an alpha candidate of this object (of any concept): the blanket's anchors.
        for (int p = 0; p < ids.size(); p++) {
            Concept concept = concepts.get(ids.get(p));
            Double a = before ? concept.classifiedAlpha() : concept.alpha();
            if (a != null) {
                double[] w = scores.get(p);
                for (int i = 0; i < w.length; i++) {
                    if (w[i] >= a) {
                        anchored.set(concept.numbers()[i]);
                    }
                }
            }
        }
        Map<String, List<Selected>> byConcept = new HashMap<>();
        for (int p = 0; p < ids.size(); p++) {
            Concept concept = concepts.get(ids.get(p));
            double[] w = scores.get(p);
            Double a = before ? concept.classifiedAlpha() : concept.alpha();
            Double b = before ? concept.classifiedBeta() : concept.beta();
            int best = Scores.best(w);
            List<Selected> selected = new ArrayList<>();
            for (int i = 0; i < w.length; i++) {
                String reason = a != null && w[i] >= a ? "alpha"
                        : b != null && w[i] >= b && anchored.get(concept.numbers()[i]) ? "beta"
                        : i == best ? "floor" : null;
                if (reason != null) {
                    selected.add(new Selected(concept.chunks()[i], w[i], reason));
                }
            }
            selected.sort((x, y) -> x.w() != y.w() ? Double.compare(y.w(), x.w())
                    : Scores.CODE_POINTS.compare(x.chunk(), y.chunk()));
            byConcept.put(ids.get(p), selected);
        }
        anchored.clear();
        return byConcept;
    }

    /**
     * The scores whose class may differ between a threshold's old and new value, added to
     * `ranges` as [low, high) (high NaN: up to the top); none when it did not move.
     */
    static void range(List<double[]> ranges, Double old, Double now) {
        if (old == null && now == null || old != null && old.equals(now)) {
            return;
        }
        if (old == null || now == null) {  // a missing threshold: nothing passes, so up to the top
            ranges.add(new double[] {old == null ? now : old, Double.NaN});
            return;
        }
        ranges.add(new double[] {Math.min(old, now), Math.max(old, now)});
    }

    /** Whether any of the scores lies in one of the ranges. */
    static boolean inside(double[] scores, List<double[]> ranges) {
        for (double w : scores) {
            for (double[] range : ranges) {
                if (w >= range[0] && (Double.isNaN(range[1]) || w < range[1])) {
                    return true;
                }
            }
        }
        return false;
    }
}
