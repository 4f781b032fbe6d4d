"""``verify --explore N``: round trips on examples drawn around a class's base example, failures shrunk.

One example hides the bugs that depend on the batch: a ``squeeze()`` that is harmless at batch 4, a
``view(4, -1)``, ids sent as ``float16`` that are exact only up to 2048. Hypothesis draws variants of the
base example (its generation and shrinking are what make a failure small enough to read), and each
variant is judged by the very round trip verify runs on the base example.

A variant keeps everything the model and config fix (each tensor's dtype and device, every dimension but
the leading one) and draws the rest: one batch size for every tensor whose leading dimension is the base
example's batch (so that tensors which share a batch keep sharing it), and values over the dtype's whole
range, with NaN and infinities only where the base example has them. Only the example's own tensor
attributes vary; tensors nested in containers keep their values. Hypothesis's database is off and what it
stores besides (``run_quietly``) goes to a temporary directory, so that a run writes nothing into the
user's project; the seed alone decides what is drawn.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import math
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

import hypothesis
import torch
from hypothesis import HealthCheck, Phase, Verbosity, assume, configuration, example, given, settings
from hypothesis import strategies as st

from ppaux_lint.runtime.sending.roundtrip import Falsified, Outcome

MAX_BATCH = 8
EDGE_BATCHES = (0, 1)
DRAWN_VALUES = 64
"""At most this many values are drawn per tensor; a larger one repeats them, which the reproducer can spell."""
SHOWN_VALUES = 8
"""How many of a counterexample tensor's values its JSON shows."""
_HOME = "__hypothesis_home_directory"
"""Where ``hypothesis.configuration`` keeps the storage directory set, which it has no function to read."""


def explore(base: Any, judge: Callable[[Any], None], count: int, seed: int) -> str:
    """Judge ``count`` variants of ``base`` with ``judge`` (which raises an ``Outcome`` on failure); return
    what was explored, or raise ``Falsified`` with the smallest failing variant hypothesis shrank to.

    Batches 0 and 1 (the base example's first row) always come first: they are where most batch bugs
    show, and a run of 50 draws could miss them.
    """
    fields = tensor_fields(base)
    if not fields:
        return "explored with its base example only: it has no tensor fields to vary"
    tried = 0
    failed: dict[str, Any] = {}

    def check(changes: dict[str, torch.Tensor]) -> None:
        nonlocal tried
        tried += 1
        try:
            judge(_variant(base, changes))
        except Outcome as outcome:  # hypothesis replays the shrunk failure last
            failed.update(changes=changes, outcome=outcome)
            raise

    test = given(variants(fields))(check)
    for batch in reversed(EDGE_BATCHES):  # the last one applied runs first
        test = example(edge(fields, batch))(test)
    try:
        run_quietly(test, count, seed)
    except Outcome:
        outcome, smallest = failed["outcome"], failed["changes"]
        message = f"explored, seed {seed}: fails at {describe_tensors(smallest)}: {outcome.message}"
        raise Falsified(Outcome(outcome.status, message, outcome.detail, outcome.provoked),
                        counterexample(smallest), reproducer(base, smallest)) from None
    return f"explored {tried} examples around it, seed {seed}"


def run_quietly(test: Callable[[], None], count: int, seed: int) -> None:
    """Run the ``@given`` ``test`` from ``seed`` as exploring wants it (``quiet_settings``), with hypothesis's
    storage in a temporary directory (``own_storage``)."""
    with own_storage():
        hypothesis.seed(seed)(quiet_settings(count)(test))()


def quiet_settings(count: int) -> settings:
    """Hypothesis as exploring wants it: ``count`` draws after the explicit examples, then shrinking; no
    database (nothing written into the project), no deadline (the class's own timeout bounds it), and no
    output of its own (the row says what was found). Every setting a profile could change is given, so that
    neither the project's profile (``settings.load_profile``, ``HYPOTHESIS_PROFILE``) nor the one hypothesis
    loads on CI changes what is drawn, or where it is kept."""
    return settings(max_examples=count, database=None, deadline=None, derandomize=False, backend="hypothesis",
                    phases=(Phase.explicit, Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
                    report_multiple_bugs=False, verbosity=Verbosity.quiet, print_blob=False)


@contextlib.contextmanager
def own_storage() -> Iterator[None]:
    """Hypothesis's storage directory in a temporary directory, removed afterwards.

    Hypothesis stores more than its example database: a cache of the constants it finds in the project's
    own modules (``constants/``, one file per module), its character map, and more in later releases. It
    keeps them in ``.hypothesis/`` under the working directory (usually the user's project) whatever the
    ``database`` setting says. The directory set before is put back afterwards, so that the caller's own
    hypothesis tests in the same process (``pp_round_trip(explore=...)`` runs in the user's pytest) keep
    theirs. A class killed mid-exploration (by its timeout) leaves its directory behind, in the system's
    temporary directory, never in the project.
    """
    before = vars(configuration).get(_HOME)
    with tempfile.TemporaryDirectory(prefix="ppaux-lint-hypothesis-") as home:
        configuration.set_hypothesis_home_dir(home)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(before)


def tensor_fields(value: Any) -> dict[str, torch.Tensor]:
    """The instance's own tensor attributes, by name, in definition order."""
    return {name: item for name, item in vars(value).items() if torch.is_tensor(item)} if hasattr(
        value, "__dict__") else {}


def variants(fields: dict[str, torch.Tensor]) -> st.SearchStrategy[dict[str, torch.Tensor]]:
    """Replacements for ``fields``: one drawn batch size shared by every tensor with the base's batch."""
    batch = _batch(fields)

    @st.composite
    def replacements(draw: Any) -> dict[str, torch.Tensor]:
        size = draw(st.integers(0, MAX_BATCH))
        drawn = {}
        for name, base in fields.items():
            shape = list(base.shape)
            if shape and shape[0] == batch:
                shape[0] = size
            numel = math.prod(shape)
            values = draw(st.lists(_elements(base), min_size=min(numel, DRAWN_VALUES),
                                   max_size=min(numel, DRAWN_VALUES)))
            drawn[name] = _filled(values, shape, base.dtype).to(base.device)
        return drawn

    return replacements()


def edge(fields: dict[str, torch.Tensor], size: int) -> dict[str, torch.Tensor]:
    """``fields`` cut (or padded with zeros) to batch ``size``, their values otherwise the base example's."""
    batch = _batch(fields)
    return {name: t if not t.dim() or t.shape[0] != batch else (
        t[:size].clone() if size <= batch else torch.zeros((size, *t.shape[1:]), dtype=t.dtype, device=t.device))
        for name, t in fields.items()}


def _batch(fields: dict[str, torch.Tensor]) -> int | None:
    """The base example's batch: the leading dimension of its first tensor that has one."""
    return next((t.shape[0] for t in fields.values() if t.dim()), None)


def _elements(base: torch.Tensor) -> st.SearchStrategy[Any]:
    """Values over the dtype's range; NaN and infinities only where ``base`` has them."""
    dtype = base.dtype
    if dtype == torch.bool:
        return st.booleans()
    if dtype.is_floating_point or dtype.is_complex:
        finite = torch.isfinite(base)
        nan, inf = bool(torch.isnan(base).any()), bool((~finite & ~torch.isnan(base)).any())
        if dtype.is_complex:
            return st.complex_numbers(width=64 if dtype == torch.complex64 else 128, allow_nan=nan,
                                      allow_infinity=inf)
        width = {torch.float16: 16, torch.float64: 64}.get(dtype, 32)
        bound = float(torch.finfo(dtype).max)
        return st.floats(width=width, allow_nan=nan, allow_infinity=inf,
                         min_value=None if inf else -bound, max_value=None if inf else bound)
    info = torch.iinfo(dtype)
    return st.integers(max(info.min, -(2**63)), min(info.max, 2**63 - 1))


def _filled(values: list[Any], shape: list[int], dtype: torch.dtype) -> torch.Tensor:
    """A tensor of ``shape`` holding ``values`` repeated, as ``reproducer`` spells it."""
    numel = math.prod(shape)
    if not numel:
        return torch.empty(shape, dtype=dtype)
    flat = torch.tensor(values, dtype=dtype)
    return flat.repeat(-(-numel // len(values)))[:numel].reshape(shape)


def _variant(base: Any, changes: dict[str, torch.Tensor]) -> Any:
    """``base`` with ``changes``: through its constructor when every parameter is an attribute (a constructor
    that refuses the variant rejects the draw), else a shallow copy with the attributes set."""
    params = _constructor_parameters(base)
    if params is not None:
        try:
            return type(base)(**{name: changes.get(name, getattr(base, name)) for name in params})
        except Exception:  # noqa: BLE001 - the class refuses this shape: not a variant it can meet
            assume(False)
    value = copy.copy(base)
    for name, tensor in changes.items():
        setattr(value, name, tensor)
    return value


def _constructor_parameters(base: Any) -> list[str] | None:
    """The constructor's keyword parameters, if each one is an attribute of ``base`` (else ``None``)."""
    try:
        params = inspect.signature(type(base)).parameters.values()
    except (TypeError, ValueError):
        return None
    names = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if any(p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL) for p in params) or not all(
            n in vars(base) for n in names):
        return None
    return names


def describe_tensors(tensors: dict[str, torch.Tensor]) -> str:
    """One readable line: ``ids: int64[1, 4]``."""
    return ", ".join(f"{name}: {_dtype(t)}{list(t.shape)}" for name, t in tensors.items())


def counterexample(tensors: dict[str, torch.Tensor]) -> dict[str, Any]:
    """The JSON form: each tensor's shape, dtype and first few values."""
    return {name: {"shape": list(t.shape), "dtype": _dtype(t), "values": t.flatten()[:SHOWN_VALUES].tolist()}
            for name, t in tensors.items()}


def reproducer(base: Any, tensors: dict[str, torch.Tensor]) -> str:
    """A ``ppaux_example`` classmethod to paste into the class, which builds the counterexample; values it
    cannot spell (a handle, a config) are left as ``...`` for the user to fill in, and say so."""
    params = _constructor_parameters(base)
    attributes = {name: tensors.get(name, getattr(base, name)) for name in params} if params is not None else {
        **vars(base), **tensors}
    arguments = [f"{name}={_source(value)}" for name, value in attributes.items()]
    missing = [name for name, value in attributes.items() if _source(value) == "..."]
    lines = ["@classmethod", "def ppaux_example(cls, device):"]
    if missing:
        lines.append(f"    # fill in: {', '.join(missing)}")
    if params is None:
        return "\n".join([*lines, "    example = cls.__new__(cls)", *(f"    example.{a}" for a in arguments),
                          "    return example"])
    joined = ", ".join(arguments)
    if len(joined) > 80:
        joined = "".join(f"\n        {a}," for a in arguments) + "\n    "
    return "\n".join([*lines, f"    return cls({joined})"])


def _source(value: Any) -> str:
    """Python source for one constructor argument: a tensor on ``device``, a literal, else ``...``."""
    if not torch.is_tensor(value):
        return repr(value) if isinstance(value, (bool, int, float, str, type(None))) else "..."
    dtype = f"dtype=torch.{_dtype(value)}, device=device"
    flat = value.flatten().tolist()
    if not flat:
        return f"torch.empty({list(value.shape)}, {dtype})"
    if len(flat) <= DRAWN_VALUES:
        return f"torch.tensor({_literal(value.tolist())}, {dtype})"
    repeats = -(-len(flat) // DRAWN_VALUES)
    return (f"torch.tensor({_literal(flat[:DRAWN_VALUES])}, {dtype})"
            f".repeat({repeats})[:{len(flat)}].reshape({list(value.shape)})")


def _literal(value: Any) -> str:
    """Python source for nested lists of numbers, NaN and infinities included."""
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return f'float("{value}")'
    return repr(value)


def _dtype(tensor: torch.Tensor) -> str:
    return str(tensor.dtype).removeprefix("torch.")
