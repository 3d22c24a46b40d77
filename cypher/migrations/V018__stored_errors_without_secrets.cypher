// Error texts stored on chunks and objects (analysis_error) by versions before this one kept
// what the endpoint answered, and an endpoint may echo the request's Authorization header: the
// API key stood in the graph, and `objects list` and every later `analyze` showed it again.
// New texts are masked and bounded before they are written (tripartite/infra/secrets.py); an
// old text that is long or reads like a credential is replaced by a note. The next
// `tripartite analyze` retries those chunks and objects and stores the error again, if any.

CALL () {
  MATCH (n:Chunk) WHERE n.analysis_error IS NOT NULL RETURN n
  UNION
  MATCH (n:Object) WHERE n.analysis_error IS NOT NULL RETURN n
}
WITH n WHERE size(n.analysis_error) > 300
          OR n.analysis_error =~ '(?is).*(bearer|basic |authorization|api[-_]?key|password|passwd|secret|token|sk-|://[^/@ ]*@).*'
SET n.analysis_error = 'an older version stored this error unmasked (it may have held a key an endpoint echoed); '
                       + 'run `tripartite analyze` to see it again';
