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
 * Concepts go a few at a time, so memory stays bounded. For each few, the workers read the
 * embeddings, a concept each, in a read transaction of their own (a procedure's transaction is
 * not to be shared between threads; they see what it sees, since it has written nothing yet);
 * then they compute the cosines, split evenly over the few concepts' pairs, so one concept with
 * many pairs keeps every core busy. The writing stays in the procedure's thread.
 */
final class Score {
    static final String PROCEDURE = "tripartite.selection.score";

    private Score() {
    }

    /**
     * What the workers read for one concept: its chunk list (null: the concept is not scored)
     * and their vectors (null: a chunk has no embedded extract, so no pair can have scores),
     * and for each pair its vector (null: it can have no scores) and its stored scores.
     */
    private record Read(String conceptId, String[] chunks, float[][] vectors, List<String> pairs,
                        List<float[]> objects, List<double[]> old) {
    }

    /**
     * @param objectIds the objects to score, or null for a full run (which also sets the chunk lists)
     */
    static long run(Store store, Call call, List<String> objectIds) {
        boolean full = objectIds == null;
        // Each concept with the pairs to score: all of them, or those of the given objects.
        Map<String, List<String>> work = new LinkedHashMap<>();  // concept element id -> pair element ids
        if (full) {
            for (Node concept : store.all(Store.CONCEPT)) {
                call.check();
                List<String> pairs = new ArrayList<>();
                Store.pairsOf(concept).forEach(pair -> pairs.add(pair.getElementId()));
                work.put(concept.getElementId(), pairs);
            }
        } else {
            for (String id : new LinkedHashSet<>(objectIds)) {
                call.check();
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
        int tasks = Math.max(todo.size(), work.values().stream().mapToInt(List::size).max().orElse(0));
        Skips skips = new Skips(PROCEDURE);
        long pairs = 0;
        try (Workers workers = new Workers(tasks, call.guard())) {
            int batch = Math.max(2, workers.threads());
            for (int start = 0; start < todo.size(); start += batch) {
                List<Read> reads = workers.map(todo.subList(start, Math.min(todo.size(), start + batch)),
                        entry -> read(call.db(), workers, skips, entry.getKey(), entry.getValue(), full));
                List<double[][]> computed = cosines(workers, reads);
                for (int i = 0; i < reads.size(); i++) {
                    call.check();
                    pairs += write(store, reads.get(i), computed.get(i), full);
                }
            }
        }
        skips.report(call.log());
        return pairs;
    }

    /**
     * One concept in a read transaction of its own: its chunk list (a full run makes it from
     * the extracts, sorted by id; otherwise the stored one, null when it has none), their
     * vectors, and each pair's vector and stored scores.
     */
    private static Read read(GraphDatabaseService db, Workers workers, Skips skips, String conceptElementId,
                             List<String> pairIds, boolean full) {
        try (Transaction tx = db.beginTx()) {
            Node concept = tx.getNodeByElementId(conceptElementId);
            String conceptId = Store.id(concept);
            Map<String, Object> embeddings = new HashMap<>();
            for (Relationship mention : concept.getRelationships(Direction.OUTGOING, Store.MENTIONED_IN)) {
                workers.check();
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
                    skips.debug("concepts without a distribution, not scored (a full run makes it)", conceptId);
                    return new Read(conceptId, null, null, List.of(), List.of(), List.of());
                }
                chunks = (String[]) distribution.getProperty("chunks", new String[0]);
            }
            float[][] vectors = new float[chunks.length][];
            for (int i = 0; i < chunks.length; i++) {
                Object embedding = embeddings.get(chunks[i]);
                if (embedding == null) {
                    skips.warn("concepts whose chunk list names a chunk without an embedded extract (the extracts "
                            + "changed since the last full run), left without scores", conceptId + " in " + chunks[i]);
                    vectors = null;
                    break;
                }
                vectors[i] = Scores.vector(embedding);
            }
            List<float[]> objects = new ArrayList<>(pairIds.size());
            List<double[]> old = new ArrayList<>(pairIds.size());
            for (String pairId : pairIds) {
                workers.check();
                Relationship pair = tx.getRelationshipByElementId(pairId);
                Object embedding = pair.getProperty("embedding", null);
                if (embedding == null && vectors != null) {
                    skips.debug("pairs without an embedding, left without scores",
                            pair.getStartNode().getProperty("id", "?") + " -> " + conceptId);
                }
                objects.add(embedding == null || vectors == null ? null : Scores.vector(embedding));
                old.add(Store.scores(pair));
            }
            return new Read(conceptId, chunks, vectors, pairIds, objects, old);
        }
    }

    /**
     * Each read concept's new scores, pair by pair (null: the pair can have none now). Pure
     * arithmetic, split evenly over the workers by pairs, whichever concepts they belong to.
     */
    private static List<double[][]> cosines(Workers workers, List<Read> reads) {
        List<double[][]> computed = new ArrayList<>(reads.size());
        List<int[]> jobs = new ArrayList<>();  // [read, pair] of every pair that has a vector
        for (int r = 0; r < reads.size(); r++) {
            Read read = reads.get(r);
            computed.add(new double[read.pairs().size()][]);
            for (int p = 0; p < read.objects().size(); p++) {
                if (read.objects().get(p) != null) {
                    jobs.add(new int[] {r, p});
                }
            }
        }
        // A few slices per thread, so a thread that finishes early takes another.
        workers.map(Workers.slices(jobs.size(), 4 * workers.threads()), slice -> {
            for (int j = slice[0]; j < slice[1]; j++) {
                workers.check();
                Read read = reads.get(jobs.get(j)[0]);
                int p = jobs.get(j)[1];
                computed.get(jobs.get(j)[0])[p] = Scores.row(read.objects().get(p), read.vectors(), read.conceptId());
            }
            return slice;
        });
        return computed;
    }

    /** One concept's scores into the store, and its histogram kept in step or marked for a rebuild. */
    private static long write(Store store, Read read, double[][] computed, boolean full) {
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
            double[] scores = computed[p];
            if (scores == null) {  // a pair that can have no scores now
                if (old != null) {
                    addAll(removed, old);
                    store.relationship(read.pairs().get(p)).removeProperty("scores");
                }
                continue;
            }
            if (!Scores.same(old, scores)) {
                addAll(removed, old);
                addAll(added, scores);
                store.relationship(read.pairs().get(p)).setProperty("scores", scores);
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
