// read: how many entities the triplet graph has (local search says so when there are none).

MATCH (e:__Entity__)
RETURN count(e) AS entities;
