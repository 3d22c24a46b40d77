// read: the answer chunk ids of a question file that the graph does not hold (a document changed
// since the file was written, or was not ingested): a question citing them could never score.
// Browser: :param ids => ['hypertension:0123456789ab']

UNWIND $ids AS id
WITH id WHERE NOT EXISTS { (:Chunk {id: id}) }
RETURN collect(id) AS missing;
