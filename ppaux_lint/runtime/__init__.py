"""The runtime half of ppaux-lint: SGLang's PP transport helpers, and ``verify``.

This is the only part of ppaux-lint that imports torch, which is why it sits
behind the ``runtime`` extra and why ``import ppaux_lint`` never reaches it.
The re-exports below are resolved lazily (PEP 562) so that the torch-free
submodules the CLI needs before it knows torch is there (``terms.targets``,
``terms.results``, ``run.report``) can be imported without dragging torch in; asking
for any helper without torch installed raises an ImportError that names the
extra to install. Every name of ``core`` that SGLang's helper module has is
served here too (``_OUTPUT_PREFIX`` included, which SGLang's own unit tests
read), so this package is a drop-in for ``sglang.srt.sampling.sampling_observer_pp``.
Beyond those names it serves ``round_trip`` (and its ``RoundTripFailed``), the
round trip of a caller's own instances, outside ``__all__`` so that ``import *``
gives exactly SGLang's names.

The modules stand in sub-packages by what they do, each a floor that imports only the floors below it
(``lint-imports`` holds them to it; each sub-package's docstring says what it takes and gives):
``torchrun`` (verify under a launcher, its ranks the PP stages); ``run`` (plan, rows, report: a verify run
as the CLI and pytest start it) and ``caller`` (``round_trip``: a caller's own round trip, in its process);
``hosts`` (the processes that host the stages: the worker, each class's judge, the receiving rank);
``driving`` (the outputs a round trip sends: an observer driven through SGLang's hooks, or examples);
``sending`` (the two halves, the wire between the stages, and the comparisons that judge what arrived);
``terms`` (targets, results, whose helpers, devices: what every process shares) and ``guard`` (child
processes that cannot take verify down); then ``stand_ins`` and ``core``.

As a stage, it takes the classes the check found (:mod:`ppaux_lint.check`) and gives each one's verdict from
a real round trip, its two stages in two processes on one machine or under torchrun. It must never import the command
line, the server, the fixes or the reports' renderers: ``verify``'s command (:mod:`ppaux_lint.cli.verify`)
stands on it, and it stands on the check.
"""

from __future__ import annotations

import importlib
from typing import Any

from ppaux_lint.support.install import pip_install

MISSING_TORCH = f"ppaux-lint's runtime checks need PyTorch: {pip_install('runtime')}"

__all__ = [
    "PP_OUTPUT_KEY_PREFIX",
    "PipelineParallelAuxiliaryOutput",
    "PipelineParallelSamplingObserver",
    "add_auxiliary_output_to_pp_tensors",
    "pop_auxiliary_output_from_pp_tensors",
]

# Private in SGLang and so not exported by ``import *``, but read by SGLang's tests.
_LAZY = frozenset(__all__) | {"_OUTPUT_PREFIX"}
_ELSEWHERE = {"round_trip": "ppaux_lint.runtime.caller.direct", "RoundTripFailed": "ppaux_lint.runtime.caller.direct"}


def require_torch() -> Any:
    """Import torch, or fail with a message that says how to get it."""
    try:
        return importlib.import_module("torch")
    except ImportError as exc:
        raise ImportError(MISSING_TORCH) from exc


def __getattr__(name: str) -> Any:
    if name not in _LAZY and name not in _ELSEWHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    require_torch()
    module = importlib.import_module(_ELSEWHERE.get(name, "ppaux_lint.runtime.core"))
    return getattr(module, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY | set(_ELSEWHERE))
