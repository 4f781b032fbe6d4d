"""What the host sees: ``consume(batch, commits)`` on both host objects, and what each wrote, compared.

After the first stage rebuilds the output, SGLang copies it to the host (``copy_to_host``) and, once the
sampled tokens are committed to each request, calls ``consume(batch, commits)`` on the host object, which
is where a plugin writes its per-request results (``req.customized_info``, attributes of its own). Two
host objects whose tensors match can still write different things: a value kept on the Python side of
the output, or on the observer, never crosses a stage. So verify runs ``consume`` on the host object of
the output that never crossed and on the rebuilt one's, each with its own fresh stand-in batch (built the
same way from a ``Scene``), and compares everything the two wrote.

The stand-in requests carry the fields plugins read (``rid``, ``origin_input_ids``, ``output_ids``,
``sampling_params``, ``customized_info``, ...) and accept any attribute a plugin sets. ``commits`` line up
with ``batch.reqs`` as SGLang's do: one ``CommittedTokens(output_index, token_ids)`` per request holding its
newly sampled token, SGLang's own class when it imports.

What was written is snapshotted as plain data (``snapshot``) so that the sending rank can ship it to the
receiving one in the ``dist`` transport. As the host copies' comparison (``compare.py``), the snapshot and
its comparison ask torch through what a plugin cannot patch, walk deques and sets by their content, and
take a callable for the code it runs and what it captured, never for its address.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
from array import array
from collections import deque
from types import SimpleNamespace
from typing import Any

from ppaux_lint.runtime.sending.compare import Unseen, flatten, host_copy, is_tensor, tensor_difference, tensor_summary
from ppaux_lint.support.records import dataclass

_MAX_DEPTH = 12
_PROMPT = (1, 2, 3)


@dataclass(frozen=True)
class Scene:
    """The requests ``consume`` sees: one per row of the output, each with the token just sampled for it."""

    token_ids: tuple[int, ...]


class RequestStandIn:
    """A request as plugins see it in ``consume``: SGLang's ``Req`` fields that plugins read; any other
    attribute a plugin sets is kept, and compared."""

    def __init__(self, index: int, token_id: int) -> None:
        self.rid = f"req-{index}"
        self.origin_input_ids = list(_PROMPT)
        self.output_ids = [token_id]
        self.sampling_params = SimpleNamespace(temperature=0.7, top_p=0.9, top_k=20, min_p=0.0, max_new_tokens=16)
        self.return_logprob = False
        self.customized_info: dict[str, list[Any]] | None = None
        self.finished_reason = None

    def finished(self) -> bool:
        return False


class BatchStandIn:
    """The ``ScheduleBatch`` that ``consume`` is given: its ``reqs``, and any attribute a plugin sets."""

    def __init__(self, scene: Scene) -> None:
        self.reqs = [RequestStandIn(i, token) for i, token in enumerate(scene.token_ids)]

    def batch_size(self) -> int:
        return len(self.reqs)


def commits(scene: Scene) -> list[Any]:
    """One commit per request: its single new token, at the end of its output."""
    committed = _committed_tokens_class()
    return [committed(output_index=0, token_ids=(token,)) for token in scene.token_ids]


def consume(host: Any, scene: Scene) -> dict[str, Any] | None:
    """Call ``host.consume`` on a fresh batch for ``scene``; return what the batch holds afterwards as plain
    data, or ``None`` when the host object has no ``consume`` (nothing to compare). Raises what it raises."""
    method = getattr(host, "consume", None)
    if not callable(method):
        return None
    batch = BatchStandIn(scene)
    method(batch, commits(scene))
    return snapshot(batch)


def snapshot(value: Any, depth: int = 0) -> Any:
    """``value`` as plain data: tensors as CPU copies, containers and objects' attributes walked, a callable as
    what ``compare.flatten`` sees in it (its code and what it captured)."""
    if is_tensor(value):
        return host_copy(value)
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return value
    if depth >= _MAX_DEPTH:
        return repr(value)
    if isinstance(value, (list, tuple, array, deque)):
        return [snapshot(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {repr(key): snapshot(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((snapshot(item, depth + 1) for item in value), key=repr)
    if callable(value) and not isinstance(value, type):
        return {path: host_copy(leaf) if is_tensor(leaf) else leaf for path, leaf in flatten(value).items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: snapshot(getattr(value, f.name, None), depth + 1) for f in dataclasses.fields(value)}
    if hasattr(value, "__dict__"):
        return {name: snapshot(item, depth + 1) for name, item in vars(value).items()}
    return repr(value)


def host_verdict(host_differences: list[str], written: str | None) -> tuple[list[str], list[str]]:
    """Judge the host copies' differences by what ``consume`` wrote; return the failures and the notes.

    SGLang's first stage does nothing with a host object but ``consume(batch, commits)``
    (``batch_result_processor.consume_auxiliary_output``), so what that writes is what the host sees. A copy
    that differs without changing it (an int32 copy of int64 ids that ``.tolist()`` makes the same ints) is
    a note; one that changes it is a failure, named by what was written and caused by the copy. ``written``
    is where the writes differ ("" where they do not), or ``None`` where they were not compared (no
    ``consume``, not a driven example, nothing written on the stand-in batch): then the host copies are all
    there is to judge by, and every difference fails.
    """
    differs = "; ".join(host_differences)
    if written is None:
        return [f"copy_to_host differs: {difference}" for difference in host_differences], []
    if written:
        cause = f" (copy_to_host differs: {differs})" if differs else ""
        return [f"consume(batch, commits) wrote differently for the rebuilt output: {written}{cause}"], []
    if not differs:
        return [], []
    return [], [f"copy_to_host differs ({differs}), but consume(batch, commits) wrote the same for both, and consume "
                "is all that SGLang's first stage does with a host copy"]


def wrote_nothing(consumed: Any, scene: Scene) -> bool:
    """Whether ``consume`` left its batch as a fresh one for ``scene`` is: then the batch shows nothing of what
    the host object holds, and cannot vouch for it."""
    return not first_difference(snapshot(BatchStandIn(scene)), consumed)


def first_difference(expected: Any, actual: Any, path: str = "batch") -> str:
    """Where two snapshots first differ and how, as ``batch.reqs[0].customized_info['p']: 0.5 != 0.25``;
    "" when they do not."""
    for leaf in (expected, actual):
        if isinstance(leaf, Unseen):
            return f"{path}: cannot see into {leaf.what}, so cannot compare it"
    if is_tensor(expected) or is_tensor(actual):
        if not (is_tensor(expected) and is_tensor(actual)):
            return f"{path}: {_short(actual)} != {_short(expected)}"
        problem = tensor_difference(expected, actual)
        return f"{path}: {problem}" if problem else ""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in expected:
            if key not in actual:
                return f"{_child(path, key)} was written for the original only"
            found = first_difference(expected[key], actual[key], _child(path, key))
            if found:
                return found
        extra = next((key for key in actual if key not in expected), None)
        return f"{_child(path, extra)} was written for the rebuilt output only" if extra is not None else ""
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"{path}: {len(actual)} items != {len(expected)}"
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            found = first_difference(left, right, f"{path}[{index}]")
            if found:
                return found
        return ""
    if _same(expected, actual):
        return ""
    return f"{path}: {_short(actual)} != {_short(expected)}"


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, float) and isinstance(actual, float) and math.isnan(expected) and math.isnan(actual):
        return True
    return type(expected) is type(actual) and expected == actual


def _child(path: str, key: str) -> str:
    """``.name`` for an attribute (a snapshot key that is an identifier), ``[key]`` for a dict key's repr."""
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{key}]"


def _short(value: Any) -> str:
    text = f"tensor of shape {list(tensor_summary(value)[1])}" if is_tensor(value) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _committed_tokens_class() -> Any:
    """SGLang's ``CommittedTokens`` when its module imports (a stand-in's too), else a look-alike."""
    try:
        return importlib.import_module("sglang.srt.managers.auxiliary_output").CommittedTokens
    except Exception:  # noqa: BLE001 - absent, broken, or a release without it
        return _CommittedTokens


@dataclass(frozen=True)
class _CommittedTokens:
    output_index: int
    token_ids: tuple[int, ...]
