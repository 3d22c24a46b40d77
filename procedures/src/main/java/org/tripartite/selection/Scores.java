package org.tripartite.selection;

import java.util.Arrays;
import java.util.Comparator;

import org.neo4j.cypher.operations.CypherFunctions;
import org.neo4j.kernel.api.impl.schema.vector.VectorSimilarity;
import org.neo4j.kernel.api.vector.VectorSimilarityFunction;
import org.neo4j.values.storable.NumberValue;
import org.neo4j.values.storable.Values;

/**
 * The numbers exactly as the Cypher scripts make them: w is
 * {@code round(2.0 * vector.similarity.cosine(a, b) - 1.0, 5)}, computed by the very functions
 * Cypher calls (its vector conversion, its cosine, its round), and strings are ordered by code
 * point, as Cypher orders them. Only then can the plugin's selection equal the scripts'.
 */
final class Scores {
    private static final VectorSimilarityFunction COSINE = VectorSimilarity.COSINE.latestImplementation();
    private static final NumberValue PRECISION = Values.longValue(5);

    /** Cypher's order of strings: by code point. */
    static final Comparator<String> CODE_POINTS = (a, b) -> {
        int i = 0, j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i), y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    };

    private Scores() {
    }

    /** A stored embedding as the cosine reads it (Cypher's own conversion of the value). */
    static float[] vector(Object property) {
        return CypherFunctions.toFloatArrayVector(COSINE, Values.of(property), "vector");
    }

    /** w of two vectors: the cosine in [-1, 1] rounded to 5 decimals, as score.cypher writes it. */
    static double w(float[] a, float[] b) {
        return w(COSINE.compare(a, b));  // Neo4j's (1 + cos) / 2, in float32
    }

    /** w from Neo4j's similarity (1 + cos) / 2: {@code round(2.0 * similarity - 1.0, 5)}, Cypher's round. */
    static double w(double similarity) {
        return ((NumberValue) CypherFunctions.round(Values.doubleValue(2.0 * similarity - 1.0), PRECISION)).doubleValue();
    }

    /**
     * One pair's scores: w of its object's vector and each chunk's, in the chunk list's order.
     * Vectors of two sizes fail, as vector.similarity.cosine fails the script: they come from
     * two models, whose vectors are never to be compared.
     */
    static double[] row(float[] object, float[][] chunks, String conceptId) {
        double[] scores = new double[chunks.length];
        for (int i = 0; i < chunks.length; i++) {
            if (chunks[i].length != object.length) {
                throw new IllegalArgumentException(String.format(
                        "concept %s: an object's embedding has %d dimensions and an extract's %d; vectors of two "
                                + "models are never compared (`tripartite embed` embeds them again with one)",
                        conceptId, object.length, chunks[i].length));
            }
            scores[i] = w(object, chunks[i]);
        }
        return scores;
    }

    /** The index of the largest score, the first one among equals (its chunk id is the smallest). */
    static int best(double[] scores) {
        int best = 0;
        for (int i = 1; i < scores.length; i++) {
            if (scores[i] > scores[best]) {
                best = i;
            }
        }
        return best;
    }

    static boolean same(Object stored, double[] value) {
        return stored instanceof double[] old && Arrays.equals(old, value);
    }

    static boolean same(Object stored, long[] value) {
        return stored instanceof long[] old && Arrays.equals(old, value);
    }

    static boolean same(Object stored, String[] value) {
        return stored instanceof String[] old && Arrays.equals(old, value);
    }
}
