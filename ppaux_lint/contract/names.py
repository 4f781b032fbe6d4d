"""Names SGLang uses for the hooks and attributes the rules care about, and which misspellings count as near
misses."""

from __future__ import annotations

import functools

TO_PP = "to_pp_tensors"
FROM_PP = "from_pp_tensors"
TRANSPORT_METHODS = (TO_PP, FROM_PP)
ADD_HELPER = "add_auxiliary_output_to_pp_tensors"
POP_HELPER = "pop_auxiliary_output_from_pp_tensors"
HELPER_NAMES = frozenset({ADD_HELPER, POP_HELPER})
PREFIX_CONSTANTS = ("_OUTPUT_PREFIX", "PP_OUTPUT_KEY_PREFIX")  # the helper modules' names for the key prefix
COPY_TO_HOST = "copy_to_host"
COMPOSITE_OUTPUT = "sglang.srt.managers.auxiliary_output.CompositeDeviceAuxiliaryOutput"
"""SGLang's own output that bundles several (``append_auxiliary_output`` makes one): it has no ``to_pp_tensors``."""
AFTER_SAMPLE = "after_sample"
OBSERVER_HOOKS = ("is_active", "before_grammar")  # one of them beside after_sample makes a sampling observer
AFTER_FORWARD = "after_forward"
FORWARD_OUTPUT_FIELD = "forward_auxiliary_output"  # where a forward observer's output rides on the result
FORWARD_OBSERVER_ATTR = "forward_observer"  # ModelRunner's attribute that installs one
DYNAMIC_LOOKUP = ("__getattr__", "__getattribute__")  # what may answer for a name a class's namespace lacks
LOOKED_UP = frozenset({*TRANSPORT_METHODS, COPY_TO_HOST, AFTER_SAMPLE, *OBSERVER_HOOKS, AFTER_FORWARD, *DYNAMIC_LOOKUP})
"""The names the rules look up on a class (``index/namespaces.py``): set on something that is no class the analysis
can name (``obs.to_pp_tensors = fn``), such a name may reach any class."""


def is_class_like(name: str) -> bool:
    """``Output``, ``_Base``: a capital after any leading underscores, as class names are written."""
    stripped = name.lstrip("_")
    return bool(stripped) and stripped[0].isupper()


@functools.lru_cache(maxsize=4096)
def is_near_miss(name: str, target: str) -> bool:
    """Whether ``name`` is a likely misspelling of ``target`` (or ``target`` itself). Remembered: every method of
    every class summarized is asked against both transport methods, the same few names again and again
    (``copy_to_host`` in every output), and the distance is a loop in Python, 60 us each, a tenth of the
    summary of a small output's file."""
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
