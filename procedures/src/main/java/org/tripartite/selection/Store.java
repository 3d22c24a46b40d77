package org.tripartite.selection;

import java.util.ArrayList;
import java.util.List;

import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.ResourceIterator;
import org.neo4j.graphdb.Transaction;

/** The selection's part of the graph, as the scripts in cypher/selection/ read and write it. */
final class Store {
    static final Label OBJECT = Label.label("Object");
    static final Label CONCEPT = Label.label("Concept");
    static final Label CHUNK = Label.label("Chunk");
    static final Label DISTRIBUTION = Label.label("ScoreDistribution");
    static final Label BIN = Label.label("ScoreBin");
    static final Label EVIDENCE = Label.label("Evidence");
    static final RelationshipType CONCERNS = RelationshipType.withName("CONCERNS");
    static final RelationshipType MENTIONED_IN = RelationshipType.withName("MENTIONED_IN");

    private final Transaction tx;

    Store(Transaction tx) {
        this.tx = tx;
    }

    List<Node> all(Label label) {
        List<Node> found = new ArrayList<>();
        try (ResourceIterator<Node> nodes = tx.findNodes(label)) {
            nodes.forEachRemaining(found::add);
        }
        return found;
    }

    Node distribution(String conceptId) {
        return tx.findNode(DISTRIBUTION, "concept_id", conceptId);
    }

    Node distributionOrNew(String conceptId) {
        Node found = distribution(conceptId);
        if (found == null) {
            found = tx.createNode(DISTRIBUTION);
            found.setProperty("concept_id", conceptId);
        }
        return found;
    }

    Node bin(String conceptId, long bin) {
        try (ResourceIterator<Node> found = tx.findNodes(BIN, "concept_id", conceptId, "bin", bin)) {
            return found.hasNext() ? found.next() : null;
        }
    }

    List<Node> bins(String conceptId) {
        List<Node> found = new ArrayList<>();
        try (ResourceIterator<Node> nodes = tx.findNodes(BIN, "concept_id", conceptId)) {
            nodes.forEachRemaining(found::add);
        }
        return found;
    }

    Node createBin(String conceptId, long bin) {
        Node created = tx.createNode(BIN);
        created.setProperty("concept_id", conceptId);
        created.setProperty("bin", bin);
        return created;
    }

    Node evidence(String objectId, String conceptId) {
        try (ResourceIterator<Node> found = tx.findNodes(EVIDENCE, "object_id", objectId, "concept_id", conceptId)) {
            return found.hasNext() ? found.next() : null;
        }
    }

    Node createEvidence(String objectId, String conceptId) {
        Node created = tx.createNode(EVIDENCE);
        created.setProperty("object_id", objectId);
        created.setProperty("concept_id", conceptId);
        return created;
    }

    List<Node> evidenceOf(String objectId) {
        List<Node> found = new ArrayList<>();
        try (ResourceIterator<Node> nodes = tx.findNodes(EVIDENCE, "object_id", objectId)) {
            nodes.forEachRemaining(found::add);
        }
        return found;
    }

    Relationship relationship(String elementId) {
        return tx.getRelationshipByElementId(elementId);
    }

    Node object(String id) {
        return tx.findNode(OBJECT, "id", id);
    }

    /** An object's pairs: its CONCERNS edges to concepts. */
    static List<Relationship> concerns(Node object) {
        List<Relationship> found = new ArrayList<>();
        for (Relationship r : object.getRelationships(Direction.OUTGOING, CONCERNS)) {
            if (r.getEndNode().hasLabel(CONCEPT)) {
                found.add(r);
            }
        }
        return found;
    }

    /** A concept's pairs: the CONCERNS edges of objects to it. */
    static List<Relationship> pairsOf(Node concept) {
        List<Relationship> found = new ArrayList<>();
        for (Relationship r : concept.getRelationships(Direction.INCOMING, CONCERNS)) {
            if (r.getStartNode().hasLabel(OBJECT)) {
                found.add(r);
            }
        }
        return found;
    }

    static double[] scores(Relationship pair) {
        Object value = pair.getProperty("scores", null);
        return value instanceof double[] scores ? scores : null;
    }

    static String id(Node node) {
        return (String) node.getProperty("id");
    }
}
