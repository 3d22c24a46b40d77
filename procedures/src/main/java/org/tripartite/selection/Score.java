package org.tripartite.selection;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

/**
 * Step 1, as cypher/selection/score.cypher: each (object, concept) pair's scores, one w per chunk
 * of the concept's chunk list, on its CONCERNS edge. Each embedding is read once; a list that
 * did not change is not written again.
 *
 * The reading and the cosines run concept by concept on every core, each worker in a read
 * transaction of its own (a procedure's transaction is not to be shared between threads); they
 * see what the procedure's transaction sees, since it has written nothing yet. The writing
 * stays in the procedure's thread. Concepts go a few at a time, so memory stays bounded.
 */
final class Score {
    private Score() {
    }

    /** What the workers read and computed for one concept. */
    private record Read(String conceptId, String[] chunks, List<String> pairs, List<double[]> computed,
                        List<double[]> old) {
    }

    /**
     * @param objectIds the objects to score, or null for a full run (which also sets the chunk lists)
     */
    static long run(Store store, GraphDatabaseService db, List<String> objectIds) {
        // Each concept with the pairs to score: all of them, or those of the given objects.
        Map<String, List<String>> work = new LinkedHashMap<>();  // concept element id -> pair element ids
        if (objectIds == null) {
            for (Node concept : store.all(Store.CONCEPT)) {
                List<String> pairs = new ArrayList<>();
                Store.pairsOf(concept).forEach(pair -> pairs.add(pair.getElementId()));
                work.put(concept.getElementId(), pairs);
            }
        } else {
            for (String id : new LinkedHashSet<>(objectIds)) {
                Node object = store.object(id);
                if (object != null) {
                    for (Relationship pair : Store.concerns(object)) {
                        work.computeIfAbsent(pair.getEndNode().getElementId(), concept -> new ArrayList<>())
                                .add(pair.getElementId());
                    }
                }
            }
        }
        List<Map.Entry<String, List<String>>> todo = new ArrayList<>(work.entrySet());
        int batch = Math.max(2, Runtime.getRuntime().availableProcessors());
        long pairs = 0;
        for (int start = 0; start < todo.size(); start += batch) {
            List<Read> reads = todo.subList(start, Math.min(todo.size(), start + batch)).parallelStream()
                    .map(entry -> read(db, entry.getKey(), entry.getValue(), objectIds == null))
                    .toList();
            for (Read read : reads) {
                pairs += write(store, read, objectIds == null);
            }
        }
        return pairs;
    }

    /**
     * One concept in a read transaction of its own: its chunk list (a full run makes it from
     * the extracts, sorted by id; otherwise the stored one, null when it has none), and for each
     * pair its new scores (null: the pair can have none now) and its stored ones.
     */
    private static Read read(GraphDatabaseService db, String conceptElementId, List<String> pairIds, boolean full) {
        try (Transaction tx = db.beginTx()) {
            Node concept = tx.getNodeByElementId(conceptElementId);
            String conceptId = Store.id(concept);
            Map<String, Object> embeddings = new HashMap<>();
            for (Relationship mention : concept.getRelationships(Direction.OUTGOING, Store.MENTIONED_IN)) {
                Node chunk = mention.getEndNode();
                Object embedding = mention.getProperty("embedding", null);
                if (chunk.hasLabel(Store.CHUNK) && embedding != null) {
                    embeddings.put(Store.id(chunk), embedding);
                }
            }
            String[] chunks;
            if (full) {
                List<String> ids = new ArrayList<>(embeddings.keySet());
                ids.sort(Scores.CODE_POINTS);
                chunks = ids.toArray(String[]::new);
            } else {
                Node distribution = tx.findNode(Store.DISTRIBUTION, "concept_id", conceptId);
                if (distribution == null) {
                    return new Read(conceptId, null, List.of(), List.of(), List.of());
                }
                chunks = (String[]) distribution.getProperty("chunks", new String[0]);
            }
            float[][] vectors = new float[chunks.length][];
            boolean complete = true;
            for (int i = 0; i < chunks.length; i++) {
                Object embedding = embeddings.get(chunks[i]);
                if (embedding == null) {
                    complete = false;
                    break;
                }
                vectors[i] = Scores.vector(embedding);
            }
            List<float[]> objects = new ArrayList<>();
            List<double[]> old = new ArrayList<>();
            for (String pairId : pairIds) {
                Relationship pair = tx.getRelationshipByElementId(pairId);
                Object embedding = pair.getProperty("embedding", null);
                objects.add(embedding == null || !complete ? null : Scores.vector(embedding));
                old.add(Store.scores(pair));
            }
            // The cosines are pure arithmetic: on every core, for a concept with many pairs.
            List<double[]> computed = objects.parallelStream()
                    .map(object -> {
                        if (object == null) {
                            return null;
                        }
                        double[] scores = new double[vectors.length];
                        for (int i = 0; i < vectors.length; i++) {
                            scores[i] = Scores.w(object, vectors[i]);
                        }
                        return scores;
                    })
                    .toList();
            return new Read(conceptId, chunks, pairIds, computed, old);
        }
    }

    /** One concept's scores into the store, and its histogram kept in step or marked for a rebuild. */
    private static long write(Store store, Read read, boolean full) {
        if (read.chunks() == null) {
            return 0;  // an incremental run over a concept that has no distribution yet: a full run makes it
        }
        Node distribution;
        if (full) {
            distribution = store.distributionOrNew(read.conceptId());
            if (!Scores.same(distribution.getProperty("chunks", null), read.chunks())) {
                distribution.setProperty("chunks", read.chunks());
            }
        } else {
            distribution = store.distribution(read.conceptId());
        }
        long pairs = 0;
        List<Double> removed = new ArrayList<>();
        List<Double> added = new ArrayList<>();
        for (int p = 0; p < read.pairs().size(); p++) {
            double[] old = read.old().get(p);
            double[] computed = read.computed().get(p);
            if (computed == null) {  // a pair that can have no scores now
                if (old != null) {
                    addAll(removed, old);
                    store.relationship(read.pairs().get(p)).removeProperty("scores");
                }
                continue;
            }
            if (!Scores.same(old, computed)) {
                addAll(removed, old);
                addAll(added, computed);
                store.relationship(read.pairs().get(p)).setProperty("scores", computed);
            }
            pairs++;
        }
        if (!removed.isEmpty() || !added.isEmpty()) {
            // An incremental run keeps a current histogram in step, bin by bin; otherwise
            // distribution rebuilds it.
            boolean current = Boolean.TRUE.equals(distribution.getProperty("current", null));
            boolean kept = !full && current && Histogram.update(store, distribution, read.conceptId(), removed, added);
            if (!kept) {
                distribution.setProperty("current", false);
            }
        }
        return pairs;
    }

    private static void addAll(List<Double> into, double[] scores) {
        if (scores != null) {
            for (double w : scores) {
                into.add(w);
            }
        }
    }
}
