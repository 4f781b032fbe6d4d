"""Module-level helpers the observers hand their tensors to."""

from __future__ import annotations

from guardkit.outputs import ScoredOutput


def rebuild_scored(tensors):
    if "scores" not in tensors:
        return None
    return ScoredOutput(tensors["ids"], tensors["scores"])
