"""Method names the rules care about, and which misspellings of them count as near misses."""

from __future__ import annotations

TO_PP = "to_pp_tensors"
FROM_PP = "from_pp_tensors"
TRANSPORT_METHODS = (TO_PP, FROM_PP)
ADD_HELPER = "add_auxiliary_output_to_pp_tensors"
POP_HELPER = "pop_auxiliary_output_from_pp_tensors"


def is_near_miss(name: str, target: str) -> bool:
    if name.startswith("__") or abs(len(name) - len(target)) > 2:
        return False
    return name.lower() == target.lower() or _edit_distance(name.lower(), target.lower(), limit=2) <= 2


def _edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, giving up (returning limit + 1) as soon as it must exceed ``limit``."""
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]
