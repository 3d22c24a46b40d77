package org.tripartite.selection;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.logging.Log;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;
import org.neo4j.procedure.UserFunction;

/**
 * The selection's three steps and its prompt material as procedures, each the equal of its script in
 * cypher/selection/ (score.cypher, distribution.cypher, classify.cypher, prompt_material.cypher), which
 * stay the readable reference and the path where the server takes no plugins.
 * tripartite/selection/engine.py calls these when the server runs the plugin built from the same
 * sources (version() is their hash).
 *
 * Each procedure is a thin door to a plain class that does the work; every long loop checks
 * the transaction's termination guard, so TERMINATE TRANSACTION (or the Browser's stop) ends a
 * call within a loop step, and its writes roll back with the transaction.
 */
public class SelectionProcedures {
    @Context
    public Transaction tx;

    @Context
    public GraphDatabaseService db;  // worker threads' own read transactions (Score, Classify)

    @Context
    public TerminationGuard guard;

    @Context
    public Log log;

    public static class Count {
        public final long count;

        public Count(long count) {
            this.count = count;
        }
    }

    @Procedure(name = "tripartite.selection.score", mode = Mode.WRITE)
    @Description("Step 1: each (object, concept) pair's scores on its CONCERNS edge (objectIds null: a full run, "
            + "which also sets every concept's chunk list). Yields the pairs scored.")
    public Stream<Count> score(@Name(value = "objectIds", defaultValue = "null") List<String> objectIds) {
        return Stream.of(new Count(Score.run(new Store(tx), call(), objectIds)));
    }

    @Procedure(name = "tripartite.selection.distribution", mode = Mode.WRITE)
    @Description("Step 2: the score histograms (ScoreBin) of the given concepts (null: all) and the alpha and beta "
            + "thresholds. Yields the concepts rebuilt.")
    public Stream<Count> distribution(@Name("conceptIds") List<String> conceptIds, @Name("alpha") double alpha,
                                      @Name("beta") double beta) {
        return Stream.of(new Count(Distribution.run(new Store(tx), call(), conceptIds, alpha, beta)));
    }

    @Procedure(name = "tripartite.selection.classify", mode = Mode.WRITE)
    @Description("Steps 3 and 4 and the floor: Evidence per (object, concept) pair for the given objects (null: "
            + "all) and those a moved threshold may change. Yields the objects classified.")
    public Stream<Count> classify(@Name(value = "objectIds", defaultValue = "null") List<String> objectIds) {
        return Stream.of(new Count(Classify.run(new Store(tx), call(), objectIds)));
    }

    @Procedure(name = "tripartite.selection.promptMaterial", mode = Mode.READ)
    @Description("Step 5: the material of one object's prompt, each concept with its chosen evidence under the "
            + "budget; the same rows as cypher/selection/prompt_material.cypher (every argument may be null).")
    public Stream<PromptMaterial.Row> promptMaterial(
            @Name("objectId") String objectId, @Name("selection") String selection,
            @Name("maxPerConcept") Long maxPerConcept, @Name("maxTokens") Long maxTokens,
            @Name("fixedTokens") Long fixedTokens, @Name("tokensPerConcept") Long tokensPerConcept) {
        return PromptMaterial.run(tx, call(), objectId, selection, maxPerConcept, maxTokens, fixedTokens,
                tokensPerConcept).stream();
    }

    private Call call() {
        return new Call(db, guard, log);
    }

    @UserFunction(name = "tripartite.selection.version")
    @Description("The hash of the sources this plugin was built from.")
    public String version() {
        return Version.VALUE;
    }

    static final class Version {
        static final String VALUE = read();

        private static String read() {
            try (InputStream in = SelectionProcedures.class.getResourceAsStream("/tripartite-procedures.properties")) {
                Properties properties = new Properties();
                if (in != null) {
                    properties.load(in);
                }
                return properties.getProperty("version", "unversioned");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
