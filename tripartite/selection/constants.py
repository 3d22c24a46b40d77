"""The selection's choices that commands show in their options (no driver, no numpy)."""

# floor (the default): the paper's alpha and beta steps, and each concept keeps its best extract;
# paper: the alpha and beta steps alone.
SELECTIONS = ("floor", "paper")
