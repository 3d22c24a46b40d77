package org.tripartite.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.tripartite.selection.Classification.Concept;
import org.tripartite.selection.Classification.Pairs;
import org.tripartite.selection.Classification.Selected;

class ClassificationTest {
    private final Map<String, Integer> numbers = new HashMap<>();

    private Concept concept(Double alpha, Double beta, String... chunks) {
        return new Concept(chunks, Classification.number(chunks, numbers), alpha, beta, false, null, null);
    }

    private Concept classified(Double alpha, Double beta, Double oldAlpha, Double oldBeta, String... chunks) {
        return new Concept(chunks, Classification.number(chunks, numbers), alpha, beta, true, oldAlpha, oldBeta);
    }

    private static Pairs pairs(Object... conceptsAndScores) {
        List<String> ids = new ArrayList<>();
        List<double[]> scores = new ArrayList<>();
        for (int i = 0; i < conceptsAndScores.length; i += 2) {
            ids.add((String) conceptsAndScores[i]);
            scores.add((double[]) conceptsAndScores[i + 1]);
        }
        return new Pairs(ids, scores);
    }

    @Test
    void chunksAreNumberedOncePerRun() {
        Concept a = concept(null, null, "t1", "t2");
        Concept b = concept(null, null, "t2", "t3");
        assertEquals(List.of(0, 1), List.of(a.numbers()[0], a.numbers()[1]));
        assertEquals(List.of(1, 2), List.of(b.numbers()[0], b.numbers()[1]));
    }

    @Test
    void alphaThenTheBlanketOnAnAnchoredChunkThenTheFloor() {
        Map<String, Concept> concepts = Map.of(
                "c1", concept(0.8, 0.5, "t1", "t2", "t3"),
                "c2", concept(0.9, 0.2, "t2", "t3", "t4"));
        BitSet anchored = new BitSet();
        Map<String, List<Selected>> got = Classification.of(pairs(
                "c1", new double[] {0.85, 0.6, 0.1},    // t1 alpha; t2 not anchored by c1 itself
                "c2", new double[] {0.3, 0.95, 0.25}),  // t3 alpha, which anchors t3 for c1 too
                concepts, false, anchored);
        // c1: t1 alpha; t2 (0.6 >= beta) is not on an alpha chunk; t3 is, but 0.1 < beta 0.5.
        assertEquals(List.of(new Selected("t1", 0.85, "alpha")), got.get("c1"));
        // c2: t3 alpha; t2 and t4 pass beta 0.2 but sit on no alpha chunk of this object.
        assertEquals(List.of(new Selected("t3", 0.95, "alpha")), got.get("c2"));
        assertTrue(anchored.isEmpty(), "the bit set is left cleared");
    }

    @Test
    void theBlanketTakesACandidateOnAChunkAnotherConceptAnchored() {
        Map<String, Concept> concepts = Map.of(
                "c1", concept(0.8, 0.5, "t1", "t2"),
                "c2", concept(0.9, 0.5, "t2", "t3"));
        Map<String, List<Selected>> got = Classification.of(pairs(
                "c1", new double[] {0.3, 0.85},   // t2 alpha
                "c2", new double[] {0.55, 0.7}),  // t2 beta (anchored by c1), t3 nothing but the best
                concepts, false, new BitSet());
        assertEquals(List.of(new Selected("t2", 0.85, "alpha")), got.get("c1"));
        assertEquals(List.of(new Selected("t3", 0.7, "floor"), new Selected("t2", 0.55, "beta")), got.get("c2"));
    }

    @Test
    void theFloorIsThePairsBestFirstAmongEqualsAndTheOrderIsWThenChunk() {
        Map<String, Concept> concepts = Map.of("c", concept(0.9, 0.5, "tb", "ta", "tc"));
        Map<String, List<Selected>> got = Classification.of(pairs("c", new double[] {0.4, 0.4, 0.1}), concepts,
                false, new BitSet());
        assertEquals(List.of(new Selected("tb", 0.4, "floor")), got.get("c"));
        Map<String, Concept> low = Map.of("c", concept(0.3, 0.5, "tb", "ta", "tc"));
        assertEquals(List.of(new Selected("ta", 0.4, "alpha"), new Selected("tb", 0.4, "alpha")),
                Classification.of(pairs("c", new double[] {0.4, 0.4, 0.1}), low, false, new BitSet()).get("c"));
    }

    @Test
    void missingThresholdsSelectNothingButTheFloor() {
        Map<String, Concept> concepts = Map.of("c", concept(null, null, "t1", "t2"));
        assertEquals(List.of(new Selected("t2", 1.0, "floor")),
                Classification.of(pairs("c", new double[] {-1.0, 1.0}), concepts, false, new BitSet()).get("c"));
    }

    @Test
    void pairsOfConceptsWithoutADistributionAreLeftOut() {
        Map<String, Concept> concepts = Map.of("c", concept(0.5, 0.5, "t1"));
        Map<String, List<Selected>> got = Classification.of(pairs("c", new double[] {0.7}, "gone", new double[] {0.9}),
                concepts, false, new BitSet());
        assertEquals(Map.of("c", List.of(new Selected("t1", 0.7, "alpha"))), got);
    }

    @Test
    void beforeUsesTheThresholdsOfTheStoredClassification() {
        Map<String, Concept> concepts = Map.of("c", classified(0.8, 0.5, 0.6, 0.5, "t1", "t2"));
        Pairs pairs = pairs("c", new double[] {0.7, 0.1});
        assertEquals(List.of(new Selected("t1", 0.7, "floor")),
                Classification.of(pairs, concepts, false, new BitSet()).get("c"));
        assertEquals(List.of(new Selected("t1", 0.7, "alpha")),
                Classification.of(pairs, concepts, true, new BitSet()).get("c"));
    }

    @Test
    void aMovedThresholdMarksTheScoresBetweenItsOldAndNewValue() {
        List<double[]> ranges = new ArrayList<>();
        Classification.range(ranges, 0.8, 0.8);
        Classification.range(ranges, null, null);
        assertTrue(ranges.isEmpty());
        Classification.range(ranges, 0.8, 0.6);
        assertTrue(Classification.inside(new double[] {0.7}, ranges));
        assertTrue(Classification.inside(new double[] {0.6}, ranges));
        assertFalse(Classification.inside(new double[] {0.8}, ranges), "at 0.8 it was and stays selected");
        assertFalse(Classification.inside(new double[] {0.1, 0.95}, ranges));
        List<double[]> gone = new ArrayList<>();
        Classification.range(gone, 0.5, null);  // a threshold that disappeared: 0.5 and up may change
        assertTrue(Classification.inside(new double[] {0.99}, gone));
        assertFalse(Classification.inside(new double[] {0.49}, gone));
    }
}
