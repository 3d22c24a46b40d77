package org.tripartite.selection;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;

/**
 * The material of one object's prompt (step 5), the equal of cypher/selection/prompt_material.cypher
 * row for row: the same extracts, the same budget and drop order, the same size model (strings
 * sized and ordered by code point, as Cypher does). The script
 * is the readable reference; this is what a prompt runs where the server has the plugin, because
 * the script spends most of a prompt's time building and sorting maps row by row.
 */
final class PromptMaterial {
    private static final Label DOCUMENT = Label.label("Document");
    private static final Label SECTION = Label.label("Section");
    private static final Label ONTOLOGY = Label.label("Ontology");
    private static final RelationshipType FROM_DOCUMENT = RelationshipType.withName("FROM_DOCUMENT");

    /** One row of the result: a concept of the object with its cited evidence. */
    public static class Row {
        public final String object_id;
        public final String kind;
        public final String concept_id;
        public final String name;
        public final String summary;
        public final List<Map<String, Object>> evidence;
        public final Long budget;
        public final long dropped;
        public final String question;

        Row(String objectId, String kind, String conceptId, String name, String summary,
            List<Map<String, Object>> evidence, Long budget, long dropped, String question) {
            this.object_id = objectId;
            this.kind = kind;
            this.concept_id = conceptId;
            this.name = name;
            this.summary = summary;
            this.evidence = evidence;
            this.budget = budget;
            this.dropped = dropped;
            this.question = question;
        }
    }

    /** A selected extract with what the budget and the layout need to know of it. */
    private record Item(String conceptId, String chunkId, int rank, double w, String reason, String text,
                        String document, String documentId, List<String> sectionPath, Object index,
                        long textTokens, long referenceTokens, long titleTokens) {
    }

    /** A concept of the object: its CONCERNS edge's extract and its items, best first. */
    private record Concept(Node node, String id, String name, String summary, long nameTokens, long summaryTokens,
                           List<Item> items) {
    }

    static final String PROCEDURE = "tripartite.selection.promptMaterial";

    private PromptMaterial() {
    }

    static List<Row> run(Transaction tx, Call call, String objectId, String selection, Long maxPerConcept,
                         Long maxTokens, Long fixedTokens, Long tokensPerConcept) {
        Store store = new Store(tx);
        Skips skips = new Skips(PROCEDURE);
        Node object = store.object(objectId);
        if (object == null) {
            return List.of();
        }
        boolean floor = selection == null || selection.equals("floor");
        Places places = new Places(tx);
        List<Concept> concepts = new ArrayList<>();
        for (Relationship oc : Store.concerns(object)) {
            call.check();
            Node c = oc.getEndNode();
            String conceptId = (String) c.getProperty("id", null);
            String name = (String) c.getProperty("name", null);
            String summary = (String) oc.getProperty("summary", null);
            concepts.add(new Concept(c, conceptId, name, summary, size(name) / 4 + 2, tokens(oc, summary) + 3,
                    items(tx, store, objectId, c, conceptId, floor, maxPerConcept, places, skips)));
        }
        skips.report(call.log());
        if (concepts.isEmpty()) {
            return List.of();
        }
        Long budget = maxTokens != null ? maxTokens
                : tokensPerConcept == null ? null : (fixedTokens == null ? 0 : fixedTokens) + tokensPerConcept * concepts.size();
        List<Item> dropOrder = budget == null ? List.of() : dropOrder(concepts);
        // A per-concept budget drops only extras: every concept keeps its best extract (the
        // floor's promise); only an absolute maxTokens takes a concept's last one.
        int droppable = maxTokens != null ? dropOrder.size()
                : (int) dropOrder.stream().filter(item -> item.rank() > 0).count();
        int dropped = dropped(concepts, dropOrder, budget, fixedTokens == null ? 0 : fixedTokens, droppable);
        Set<List<String>> droppedKeys = new HashSet<>();
        for (Item item : dropOrder.subList(0, dropped)) {
            droppedKeys.add(List.of(item.conceptId(), item.chunkId()));
        }
        String kind = (String) object.getProperty("kind", null);
        List<Row> rows = new ArrayList<>();
        for (Concept concept : concepts) {
            List<Item> cited = new ArrayList<>();
            for (Item item : concept.items()) {
                if (!droppedKeys.contains(List.of(item.conceptId(), item.chunkId()))) {
                    cited.add(item);
                }
            }
            cited.sort(Comparator.comparing(Item::documentId, Comparator.nullsLast(Scores.CODE_POINTS))
                    .thenComparing(item -> item.index() instanceof Long index ? index : null,
                            Comparator.nullsLast(Comparator.naturalOrder())));
            List<Map<String, Object>> evidence = new ArrayList<>(cited.size());
            for (Item item : cited) {
                Map<String, Object> extract = new LinkedHashMap<>();
                extract.put("chunk_id", item.chunkId());
                extract.put("document", item.document());
                extract.put("document_id", item.documentId());
                extract.put("section_path", item.sectionPath());
                extract.put("index", item.index());
                extract.put("text", item.text());
                extract.put("w", item.w());
                extract.put("reason", item.reason());
                evidence.add(extract);
            }
            rows.add(new Row(objectId, kind, concept.id(), concept.name(), concept.summary(), evidence, budget,
                    dropped, question(tx, concept.node())));
        }
        rows.sort(Comparator.comparing((Row row) -> row.name, Comparator.nullsLast(Scores.CODE_POINTS))
                .thenComparing(row -> row.concept_id, Comparator.nullsLast(Scores.CODE_POINTS)));
        return rows;
    }

    /** The pair's selected candidates, best first, as its Evidence node keeps them (classify). */
    private static List<Item> items(Transaction tx, Store store, String objectId, Node concept, String conceptId,
                                    boolean floor, Long maxPerConcept, Places places, Skips skips) {
        Node evidence = store.evidence(objectId, conceptId);
        if (evidence == null) {
            return List.of();
        }
        String[] chunkIds = (String[]) evidence.getProperty("chunk_ids", new String[0]);
        double[] ws = (double[]) evidence.getProperty("w", new double[0]);
        String[] reasons = (String[]) evidence.getProperty("reasons", new String[0]);
        List<Integer> ranked = new ArrayList<>();
        for (int i = 0; i < chunkIds.length; i++) {
            if (floor || !"floor".equals(reasons[i])) {
                ranked.add(i);
            }
        }
        List<Integer> kept = maxPerConcept == null ? ranked : ranked.subList(0, limit(ranked.size(), maxPerConcept));
        if (kept.isEmpty()) {
            return List.of();
        }
        List<Item> items = new ArrayList<>();
        for (int rank = 0; rank < kept.size(); rank++) {
            int i = kept.get(rank);
            // The concept's extract of the chunk (one, unless the graph was written by hand).
            Node chunk = tx.findNode(Store.CHUNK, "id", chunkIds[i]);
            if (chunk == null) {
                skips.debug("selected extracts whose chunk is gone, left out",
                        conceptId + " in " + chunkIds[i]);
                continue;
            }
            for (Relationship m : chunk.getRelationships(Direction.INCOMING, Store.MENTIONED_IN)) {
                if (!m.getStartNode().equals(concept)) {
                    continue;
                }
                Place place = places.of(chunk);
                String text = (String) m.getProperty("summary", null);
                items.add(new Item(conceptId, chunkIds[i], rank, ws[i], reasons[i], text, place.title(), place.documentId(),
                        place.path(), chunk.getProperty("index", null), tokens(m, text),
                        referenceTokens(place.title(), place.path()), size(place.title()) / 4 + 2));
            }
        }
        return items;
    }

    /** Where a chunk is: its document's title and id and its section's path. */
    private record Place(String title, String documentId, List<String> path) {
    }

    /** Chunks' places, each document and section read once per prompt (hundreds of extracts
     *  share a few of them). */
    private static final class Places {
        private final Transaction tx;
        private final Map<Node, String[]> documents = new HashMap<>();
        private final Map<String, List<String>> paths = new HashMap<>();

        Places(Transaction tx) {
            this.tx = tx;
        }

        Place of(Node chunk) {
            String[] document = null;
            for (Relationship from : chunk.getRelationships(Direction.OUTGOING, FROM_DOCUMENT)) {
                Node end = from.getEndNode();
                if (end.hasLabel(DOCUMENT)) {
                    document = documents.computeIfAbsent(end, node -> new String[] {
                            (String) node.getProperty("title", null), (String) node.getProperty("id", null)});
                    break;
                }
            }
            Object sectionId = chunk.getProperty("section_id", null);
            List<String> path = sectionId == null ? null : paths.computeIfAbsent(sectionId.toString(), id -> {
                Node section = tx.findNode(SECTION, "id", sectionId);
                return section == null ? null : path(section.getProperty("path", null));
            });
            return new Place(document == null ? null : document[0], document == null ? null : document[1], path);
        }
    }

    /** The budget's drop order: extracts that are not their concept's best first, weakest first. */
    private static List<Item> dropOrder(List<Concept> concepts) {
        List<Item> order = new ArrayList<>();
        for (Concept concept : concepts) {
            order.addAll(concept.items());
        }
        order.sort(Comparator.comparingInt((Item item) -> item.rank() == 0 ? 1 : 0)
                .thenComparingDouble(Item::w)
                .thenComparing(Item::chunkId, Scores.CODE_POINTS.reversed())
                .thenComparing(Item::conceptId, Scores.CODE_POINTS.reversed()));
        return order;
    }

    /** The fewest drops (at most droppable, the head of the order) that bring the prompt's
     *  estimated size within the budget. */
    private static int dropped(List<Concept> concepts, List<Item> order, Long budget, long fixedTokens,
                               int droppable) {
        if (budget == null) {
            return 0;
        }
        // Per chunk (per chunk and text, per document), the extract dropped last carries the shared costs.
        Map<String, Integer> referenceCarrier = new HashMap<>();
        Map<List<String>, Integer> textCarrier = new HashMap<>();
        Map<String, Integer> titleCarrier = new HashMap<>();
        for (int i = 0; i < order.size(); i++) {
            referenceCarrier.put(order.get(i).chunkId(), i);
            textCarrier.put(Arrays.asList(order.get(i).chunkId(), order.get(i).text()), i);
            titleCarrier.put(order.get(i).documentId(), i);
        }
        long[] savings = new long[order.size()];
        long total = fixedTokens;
        Set<List<Object>> summaries = new LinkedHashSet<>();
        for (Concept concept : concepts) {
            total += concept.nameTokens();
            if (summaries.add(Arrays.asList(concept.summary(), concept.summaryTokens()))) {
                total += concept.summaryTokens();
            }
        }
        for (int i = 0; i < order.size(); i++) {
            Item item = order.get(i);
            savings[i] = 5 + (Objects.equals(textCarrier.get(Arrays.asList(item.chunkId(), item.text())), i)
                    ? item.textTokens() : 3)
                    + (referenceCarrier.get(item.chunkId()) == i ? item.referenceTokens() : 0)
                    + (titleCarrier.get(item.documentId()) == i ? item.titleTokens() : 0);
            total += savings[i];
        }
        if (total <= budget) {
            return 0;
        }
        long saved = 0;
        for (int i = 0; i < droppable; i++) {
            saved += savings[i];
            if (total - saved <= budget) {
                return i + 1;
            }
        }
        return droppable;
    }

    /** The question of the concept's ontology plugin, when it has one. */
    private static String question(Transaction tx, Node concept) {
        Object ontologyId = concept.getProperty("ontology", null);
        Node ontology = ontologyId == null ? null : tx.findNode(ONTOLOGY, "id", ontologyId);
        Object question = ontology == null ? null : ontology.getProperty("question", null);
        return question instanceof String text && !text.isEmpty() ? text : null;
    }

    /** An extract's stored token count, else the script's estimate from its length. */
    private static long tokens(Relationship extract, String text) {
        Object stored = extract.getProperty("tokens", null);
        return stored instanceof Number n ? n.longValue() : size(text) / 4 + 1;
    }

    /** A reference line's size estimate: the chunk's own section and its place (its document's
     *  title is a line of its own, once per document: the item's titleTokens). */
    private static long referenceTokens(String title, List<String> path) {
        long section = 0;
        if (path != null) {
            int skip = !path.isEmpty() && title != null && title.equals(path.get(0)) ? 1 : 0;
            if (path.size() > skip) {
                section = size(path.get(path.size() - 1)) + 3;
            }
        }
        return 8 + section / 4;
    }

    private static List<String> path(Object value) {
        return value instanceof String[] parts ? List.of(parts) : null;
    }

    /** Cypher's size() of a string: its code points. */
    private static long size(String text) {
        return text == null ? 0 : text.codePointCount(0, text.length());
    }

    /** Cypher's list[..n]: n items, or all but the last -n when n is negative. */
    private static int limit(int size, long n) {
        return (int) Math.max(0, Math.min(size, n >= 0 ? n : size + n));
    }
}
