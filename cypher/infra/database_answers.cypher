// read: whether the configured database answers at all (doctor's first question to it).

RETURN 1 AS answers;
