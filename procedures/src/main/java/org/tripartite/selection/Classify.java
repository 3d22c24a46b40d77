package org.tripartite.selection;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;
import org.tripartite.selection.Classification.Concept;
import org.tripartite.selection.Classification.Pairs;
import org.tripartite.selection.Classification.Selected;

/**
 * Steps 3 and 4 and the floor, as cypher/selection/classify.cypher: alpha (w >= alpha_w), the
 * Markov blanket (w >= beta_w beside an alpha candidate on the same chunk of the same object),
 * and each pair's best candidate; one Evidence node per (object, concept) pair with its selected
 * candidates, best first, written only where it changed. What is decided is {@link Classification};
 * this reads the graph for it and writes its outcome.
 */
final class Classify {
    static final String PROCEDURE = "tripartite.selection.classify";
    private static final String NO_DISTRIBUTION = "pairs with scores whose concept has no distribution, not "
            + "classified (a full run makes it)";

    private Classify() {
    }

    /** @param objectIds the objects to classify (plus those a moved threshold may change), or null for all */
    static long run(Store store, Call call, List<String> objectIds) {
        Map<String, Node> distributions = new HashMap<>();
        Map<String, Concept> concepts = new HashMap<>();  // each concept's chunk list and thresholds, read once
        Map<String, Integer> numbers = new HashMap<>();
        for (Node distribution : store.all(Store.DISTRIBUTION)) {
            call.check();
            String conceptId = (String) distribution.getProperty("concept_id");
            distributions.put(conceptId, distribution);
            String[] chunks = (String[]) distribution.getProperty("chunks", new String[0]);
            concepts.put(conceptId, new Concept(chunks, Classification.number(chunks, numbers),
                    (Double) distribution.getProperty("alpha_w", null), (Double) distribution.getProperty("beta_w", null),
                    distribution.hasProperty("classified"),
                    (Double) distribution.getProperty("classified_alpha_w", null),
                    (Double) distribution.getProperty("classified_beta_w", null)));
        }
        BitSet anchored = new BitSet(numbers.size());
        Skips skips = new Skips(PROCEDURE);
        long classified = objectIds == null ? classifyAll(store, call, concepts, anchored, skips)
                : classifySome(store, call, objectIds, concepts, anchored, skips);
        for (Node distribution : distributions.values()) {  // the classification follows the thresholds
            distribution.setProperty("classified", true);
            copy(distribution, "alpha_w", "classified_alpha_w");
            copy(distribution, "beta_w", "classified_beta_w");
        }
        skips.report(call.log());
        return classified;
    }

    /** A full run: every object, its Evidence read all at once; Evidence of objects that are gone is deleted. */
    private static long classifyAll(Store store, Call call, Map<String, Concept> concepts, BitSet anchored,
                                    Skips skips) {
        Map<String, Map<String, Node>> evidence = evidenceByObject(store, call);
        List<Node> objects = store.all(Store.OBJECT);
        for (Node object : objects) {
            call.check();
            Map<String, Node> stored = evidence.remove(Store.id(object));
            write(store, Store.id(object), classify(object, concepts, anchored, skips),
                    stored == null ? Map.of() : stored);
            object.removeProperty("reclassify");
        }
        evidence.values().forEach(gone -> gone.values().forEach(Node::delete));
        return objects.size();
    }

    /**
     * An incremental run: the given objects (and any an interrupted Cypher run marked) with
     * their Evidence read in full; then every other object with a candidate between a concept's
     * old and new threshold. Those objects' scores did not change and their Evidence is their
     * classification at the old thresholds (a run that did not finish makes the next one full),
     * so only the pairs whose selection differs between the old and the new thresholds are
     * read and written.
     */
    private static long classifySome(Store store, Call call, List<String> objectIds,
                                     Map<String, Concept> concepts, BitSet anchored, Skips skips) {
        Set<Node> given = new LinkedHashSet<>();
        for (String id : objectIds) {
            call.check();
            Node object = store.object(id);
            if (object != null) {
                given.add(object);
            }
        }
        List<Node> objects = store.all(Store.OBJECT);
        for (Node object : objects) {
            if (object.hasProperty("reclassify")) {  // marked by a Cypher run that was interrupted
                given.add(object);
            }
        }
        for (Node object : given) {
            call.check();
            Map<String, Node> stored = new HashMap<>();
            for (Node node : store.evidenceOf(Store.id(object))) {
                stored.put((String) node.getProperty("concept_id"), node);
            }
            write(store, Store.id(object), classify(object, concepts, anchored, skips), stored);
            object.removeProperty("reclassify");
        }
        Map<Relationship, double[]> read = new HashMap<>();  // the scores moved() decoded, used again
        Set<Node> moved = moved(store, call, concepts, read);
        if (5 * moved.size() > 4 * objects.size()) {
            // Nearly every object moved (a new alpha or beta moves every concept's threshold):
            // classifying them all once beats comparing each one's old and new selection.
            skips.clear();  // the given objects are counted again
            return classifyAll(store, call, concepts, anchored, skips);
        }
        // Each moved object's pairs whose selection differs between the old and new thresholds.
        Map<String, Map<String, List<Selected>>> changed = new LinkedHashMap<>();  // object id -> concept id -> now
        for (Node object : moved) {
            if (given.contains(object)) {
                continue;
            }
            call.check();
            String objectId = Store.id(object);
            Pairs its = pairs(object, read);
            Map<String, List<Selected>> now = Classification.of(its, concepts, false, anchored);
            Map<String, List<Selected>> before = Classification.of(its, concepts, true, anchored);
            for (String conceptId : its.conceptIds()) {
                List<Selected> next = now.get(conceptId);
                if (!concepts.get(conceptId).classified() || !next.equals(before.get(conceptId))) {
                    changed.computeIfAbsent(objectId, id -> new HashMap<>()).put(conceptId, next);
                }
            }
        }
        // Their Evidence: one lookup per pair, or, when many changed (a new alpha or beta moves
        // every concept's threshold), every Evidence node read at once.
        int pairs = changed.values().stream().mapToInt(Map::size).sum();
        Map<String, Map<String, Node>> evidence = pairs > BULK_PAIRS ? evidenceByObject(store, call) : null;
        for (Map.Entry<String, Map<String, List<Selected>>> entry : changed.entrySet()) {
            call.check();
            String objectId = entry.getKey();
            for (Map.Entry<String, List<Selected>> pair : entry.getValue().entrySet()) {
                Node stored = evidence != null ? evidence.getOrDefault(objectId, Map.of()).get(pair.getKey())
                        : store.evidence(objectId, pair.getKey());
                write(store, objectId, Map.of(pair.getKey(), pair.getValue()),
                        stored == null ? Map.of() : Map.of(pair.getKey(), stored));
            }
        }
        given.addAll(moved);
        return given.size();
    }

    /** Above this many pairs to rewrite, an incremental run reads all Evidence at once. */
    private static final int BULK_PAIRS = 2000;

    /** Every Evidence node, by object id and concept id. */
    private static Map<String, Map<String, Node>> evidenceByObject(Store store, Call call) {
        Map<String, Map<String, Node>> evidence = new HashMap<>();
        for (Node node : store.all(Store.EVIDENCE)) {
            call.check();
            evidence.computeIfAbsent((String) node.getProperty("object_id"), id -> new HashMap<>())
                    .put((String) node.getProperty("concept_id"), node);
        }
        return evidence;
    }

    /** How many decoded scores moved() keeps for the classification after it (8 bytes each). */
    private static final long KEPT_SCORES = 4_000_000;

    /**
     * The objects with a candidate between a concept's old and new threshold (all of a new
     * concept's); the scores it decoded go into `read` (up to KEPT_SCORES of them). The scores
     * are read and tested on the workers, each in a read transaction of its own (this
     * procedure has written only Evidence so far, so they read what it would).
     */
    private static Set<Node> moved(Store store, Call call, Map<String, Concept> concepts,
                                   Map<Relationship, double[]> read) {
        List<Relationship> pairs = new ArrayList<>();
        List<List<double[]>> rangesOf = new ArrayList<>();  // each pair's concept's ranges
        for (Node concept : store.all(Store.CONCEPT)) {
            call.check();
            Concept known = concepts.get(Store.id(concept));
            if (known == null) {
                continue;
            }
            List<double[]> ranges = new ArrayList<>();  // [low, high], high NaN: up to the top
            if (!known.classified()) {
                ranges.add(new double[] {-2.0, Double.NaN});
            } else {
                Classification.range(ranges, known.classifiedAlpha(), known.alpha());
                Classification.range(ranges, known.classifiedBeta(), known.beta());
            }
            if (!ranges.isEmpty()) {
                for (Relationship pair : Store.pairsOf(concept)) {
                    pairs.add(pair);
                    rangesOf.add(ranges);
                }
            }
        }
        String[] ids = pairs.stream().map(Relationship::getElementId).toArray(String[]::new);
        double[][] scores = new double[ids.length][];
        boolean[] inside = new boolean[ids.length];
        int parts = Math.max(1, ids.length / 256);  // a transaction of its own is worth a few hundred pairs
        try (Workers workers = new Workers(parts, call.guard())) {
            workers.map(Workers.slices(ids.length, workers.threads()), slice -> {
                try (Transaction tx = call.db().beginTx()) {
                    for (int i = slice[0]; i < slice[1]; i++) {
                        workers.check();
                        scores[i] = Store.scores(tx.getRelationshipByElementId(ids[i]));
                        inside[i] = scores[i] != null && Classification.inside(scores[i], rangesOf.get(i));
                    }
                }
                return slice;
            });
        }
        Set<Node> found = new LinkedHashSet<>();
        long kept = 0;
        for (int i = 0; i < ids.length; i++) {
            if (inside[i]) {
                found.add(pairs.get(i).getStartNode());
            }
            if (scores[i] != null && kept < KEPT_SCORES) {  // a found object's other pairs are read again otherwise
                read.put(pairs.get(i), scores[i]);
                kept += scores[i].length;
            }
        }
        return found;
    }

    /** An object's pairs that have scores and a distribution (scores from `read` where there). */
    private static Pairs pairs(Node object, Map<Relationship, double[]> read) {
        List<String> conceptIds = new ArrayList<>();
        List<double[]> scores = new ArrayList<>();
        for (Relationship pair : Store.concerns(object)) {
            double[] w = read.containsKey(pair) ? read.get(pair) : Store.scores(pair);
            if (w != null && w.length > 0) {
                conceptIds.add(Store.id(pair.getEndNode()));
                scores.add(w);
            }
        }
        return new Pairs(conceptIds, scores);
    }

    /** An object's classification now; its pairs whose concept has no distribution are told in the log. */
    private static Map<String, List<Selected>> classify(Node object, Map<String, Concept> concepts, BitSet anchored,
                                                        Skips skips) {
        Pairs pairs = pairs(object, Map.of());
        for (String conceptId : pairs.conceptIds()) {
            if (!concepts.containsKey(conceptId)) {
                skips.warn(NO_DISTRIBUTION, object.getProperty("id", "?") + " -> " + conceptId);
            }
        }
        return Classification.of(pairs, concepts, false, anchored);
    }

    /** Write each pair's selection to its Evidence (`stored`, by concept), only what changed; delete the others. */
    private static void write(Store store, String objectId, Map<String, List<Selected>> byConcept, Map<String, Node> stored) {
        for (Map.Entry<String, List<Selected>> entry : byConcept.entrySet()) {
            List<Selected> selected = entry.getValue();
            String[] chunkIds = selected.stream().map(Selected::chunk).toArray(String[]::new);
            double[] ws = selected.stream().mapToDouble(Selected::w).toArray();
            String[] reasons = selected.stream().map(Selected::reason).toArray(String[]::new);
            Node evidence = stored.get(entry.getKey());
            if (evidence == null) {
                evidence = store.createEvidence(objectId, entry.getKey());
            }
            if (!Scores.same(evidence.getProperty("chunk_ids", null), chunkIds)) {
                evidence.setProperty("chunk_ids", chunkIds);
            }
            if (!Scores.same(evidence.getProperty("w", null), ws)) {
                evidence.setProperty("w", ws);
            }
            if (!Scores.same(evidence.getProperty("reasons", null), reasons)) {
                evidence.setProperty("reasons", reasons);
            }
        }
        for (Map.Entry<String, Node> entry : stored.entrySet()) {
            if (!byConcept.containsKey(entry.getKey())) {
                entry.getValue().delete();
            }
        }
    }

    private static void copy(Node node, String from, String to) {
        Object value = node.getProperty(from, null);
        if (value == null) {
            node.removeProperty(to);
        } else {
            node.setProperty(to, value);
        }
    }
}
