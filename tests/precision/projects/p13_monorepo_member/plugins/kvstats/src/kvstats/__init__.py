"""kvstats: statistics observers. Tensor names live in kvstats.keys so both stages agree."""
