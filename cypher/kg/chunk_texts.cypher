// read: every chunk's text (the offline extractor learns the corpus's recurring terms from them).

MATCH (t:Chunk)
RETURN t.text AS text
ORDER BY t.document_id, t.index;
