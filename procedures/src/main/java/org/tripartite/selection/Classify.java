package org.tripartite.selection;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

/**
 * Steps 3 and 4 and the floor, as cypher/selection/classify.cypher: alpha (w >= alpha_w), the
 * Markov blanket (w >= beta_w beside an alpha candidate on the same chunk of the same object),
 * and each pair's best candidate; one Evidence node per (object, concept) pair with its selected
 * candidates, best first, written only where it changed.
 */
final class Classify {
    private Classify() {
    }

    private record Selected(String chunk, double w, String reason) {
    }

    /**
     * A concept's chunk list, each chunk's number in the run (for the blanket's bit set), its
     * thresholds, and those its stored classification was made with (classified false: none).
     */
    private record Concept(String[] chunks, int[] numbers, Double alpha, Double beta,
                           boolean classified, Double classifiedAlpha, Double classifiedBeta) {
    }

    /** One object's pairs with scores: concept ids and their score lists, in step. */
    private record Pairs(List<String> conceptIds, List<double[]> scores) {
    }

    /** @param objectIds the objects to classify (plus those a moved threshold may change), or null for all */
    static long run(Store store, GraphDatabaseService db, List<String> objectIds) {
        Map<String, Node> distributions = new HashMap<>();
        Map<String, Concept> concepts = new HashMap<>();  // each concept's chunk list and thresholds, read once
        Map<String, Integer> numbers = new HashMap<>();
        for (Node distribution : store.all(Store.DISTRIBUTION)) {
            String conceptId = (String) distribution.getProperty("concept_id");
            distributions.put(conceptId, distribution);
            String[] chunks = (String[]) distribution.getProperty("chunks", new String[0]);
            int[] numbered = new int[chunks.length];
            for (int i = 0; i < chunks.length; i++) {
                numbered[i] = numbers.computeIfAbsent(chunks[i], chunk -> numbers.size());
            }
            concepts.put(conceptId, new Concept(chunks, numbered,
                    (Double) distribution.getProperty("alpha_w", null), (Double) distribution.getProperty("beta_w", null),
                    distribution.hasProperty("classified"),
                    (Double) distribution.getProperty("classified_alpha_w", null),
                    (Double) distribution.getProperty("classified_beta_w", null)));
        }
        BitSet anchored = new BitSet(numbers.size());
        long classified = objectIds == null ? classifyAll(store, concepts, anchored)
                : classifySome(store, db, objectIds, concepts, anchored);
        for (Node distribution : distributions.values()) {  // the classification follows the thresholds
            distribution.setProperty("classified", true);
            copy(distribution, "alpha_w", "classified_alpha_w");
            copy(distribution, "beta_w", "classified_beta_w");
        }
        return classified;
    }

    /** A full run: every object, its Evidence read all at once; Evidence of objects that are gone is deleted. */
    private static long classifyAll(Store store, Map<String, Concept> concepts, BitSet anchored) {
        Map<String, Map<String, Node>> evidence = evidenceByObject(store);
        List<Node> objects = store.all(Store.OBJECT);
        for (Node object : objects) {
            Map<String, Node> stored = evidence.remove(Store.id(object));
            write(store, Store.id(object), selection(pairs(object, Map.of()), concepts, false, anchored),
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
    private static long classifySome(Store store, GraphDatabaseService db, List<String> objectIds,
                                     Map<String, Concept> concepts, BitSet anchored) {
        Set<Node> given = new LinkedHashSet<>();
        for (String id : objectIds) {
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
            Map<String, Node> stored = new HashMap<>();
            for (Node node : store.evidenceOf(Store.id(object))) {
                stored.put((String) node.getProperty("concept_id"), node);
            }
            write(store, Store.id(object), selection(pairs(object, Map.of()), concepts, false, anchored), stored);
            object.removeProperty("reclassify");
        }
        Map<Relationship, double[]> read = new HashMap<>();  // the scores moved() decoded, used again
        Set<Node> moved = moved(store, db, concepts, read);
        if (5 * moved.size() > 4 * objects.size()) {
            // Nearly every object moved (a new alpha or beta moves every concept's threshold):
            // classifying them all once beats comparing each one's old and new selection.
            return classifyAll(store, concepts, anchored);
        }
        // Each moved object's pairs whose selection differs between the old and new thresholds.
        Map<String, Map<String, List<Selected>>> changed = new LinkedHashMap<>();  // object id -> concept id -> now
        for (Node object : moved) {
            if (given.contains(object)) {
                continue;
            }
            String objectId = Store.id(object);
            Pairs its = pairs(object, read);
            Map<String, List<Selected>> now = selection(its, concepts, false, anchored);
            Map<String, List<Selected>> before = selection(its, concepts, true, anchored);
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
        Map<String, Map<String, Node>> evidence = pairs > BULK_PAIRS ? evidenceByObject(store) : null;
        for (Map.Entry<String, Map<String, List<Selected>>> entry : changed.entrySet()) {
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
    private static Map<String, Map<String, Node>> evidenceByObject(Store store) {
        Map<String, Map<String, Node>> evidence = new HashMap<>();
        for (Node node : store.all(Store.EVIDENCE)) {
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
     * are read and tested on every core, each worker in a read transaction of its own (this
     * procedure has written only Evidence so far, so they read what it would).
     */
    private static Set<Node> moved(Store store, GraphDatabaseService db, Map<String, Concept> concepts,
                                   Map<Relationship, double[]> read) {
        List<Relationship> pairs = new ArrayList<>();
        List<List<double[]>> rangesOf = new ArrayList<>();  // each pair's concept's ranges
        for (Node concept : store.all(Store.CONCEPT)) {
            Concept known = concepts.get(Store.id(concept));
            if (known == null) {
                continue;
            }
            List<double[]> ranges = new ArrayList<>();  // [low, high], high NaN: up to the top
            if (!known.classified()) {
                ranges.add(new double[] {-2.0, Double.NaN});
            } else {
                range(ranges, known.classifiedAlpha(), known.alpha());
                range(ranges, known.classifiedBeta(), known.beta());
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
        int parts = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), ids.length / 256));
        IntStream.range(0, parts).parallel().forEach(part -> {
            try (Transaction tx = db.beginTx()) {
                for (int i = part * ids.length / parts; i < (part + 1) * ids.length / parts; i++) {
                    scores[i] = Store.scores(tx.getRelationshipByElementId(ids[i]));
                    inside[i] = scores[i] != null && inside(scores[i], rangesOf.get(i));
                }
            }
        });
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

    private static void range(List<double[]> ranges, Double old, Double now) {
        if (old == null && now == null || old != null && old.equals(now)) {
            return;
        }
        if (old == null || now == null) {  // a missing threshold: nothing passes, so up to the top
            ranges.add(new double[] {old == null ? now : old, Double.NaN});
            return;
        }
        ranges.add(new double[] {Math.min(old, now), Math.max(old, now)});
    }

    private static boolean inside(double[] scores, List<double[]> ranges) {
        for (double w : scores) {
            for (double[] range : ranges) {
                if (w >= range[0] && (Double.isNaN(range[1]) || w < range[1])) {
                    return true;
                }
            }
        }
        return false;
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

    /**
     * Each pair's selected candidates, best first, under the concepts' current thresholds (or,
     * `before`, those of their stored classification). `anchored`: a cleared bit set over the
     * run's chunk numbers, left cleared.
     */
    private static Map<String, List<Selected>> selection(Pairs pairs, Map<String, Concept> concepts, boolean before,
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
            selected.sort((x, y) -> x.w() != y.w() ? Double.compare(y.w(), x.w()) : Scores.CODE_POINTS.compare(x.chunk(), y.chunk()));
            byConcept.put(ids.get(p), selected);
        }
        anchored.clear();
        return byConcept;
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
