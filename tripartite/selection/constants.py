"""The selection's choices that commands show in their options (no driver, no numpy)."""

SELECTIONS = ("floor", "paper")  # floor: each concept keeps its best extract too (the default); paper: alpha and beta alone
