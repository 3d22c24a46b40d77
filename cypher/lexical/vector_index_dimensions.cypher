// read: the size of the vectors a vector index holds (no row when there is no such index).
// Browser: :param index_name => 'chunk_embedding'

SHOW VECTOR INDEXES YIELD name, options
WHERE name = $index_name
RETURN options.indexConfig.`vector.dimensions` AS dimensions;
