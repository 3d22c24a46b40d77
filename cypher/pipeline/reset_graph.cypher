// auto: empty the graph for a fresh evaluation (`tripartite eval --reset`): every node but the
// migration history, which the schema it describes outlives. In batches (a big graph does
// not fit one transaction); in the Browser prefix it with :auto.

MATCH (n) WHERE NOT n:__TripartiteMigration
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS;

// The chunks' vector index is made by the first embedding run for that model's dimensions
// (tripartite/lexical/embed.py); an emptied graph may be embedded by another model.
DROP INDEX chunk_embedding IF EXISTS;
