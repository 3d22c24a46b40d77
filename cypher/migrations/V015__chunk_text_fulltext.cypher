// Hybrid search finds chunks by the question's words as well as by closeness (search/hybrid.cypher):
// a name or term the embedder reads poorly (a product name, a Chinese phrase under an English
// model) still finds the chunks that say it. The cjk analyzer splits Chinese, Japanese and
// Korean text into overlapping character pairs and other scripts into lower-cased words, so one
// index serves documents in either.

CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS FOR (c:Chunk) ON EACH [c.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}};
