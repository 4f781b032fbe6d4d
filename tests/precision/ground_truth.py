"""Ground truth for the precision corpus: what SGLang's own pipeline-parallel helpers do with each class.

Run by hand (it is not a test: it needs SGLang's wheel, which the test suite does not)::

    pip download --no-deps sglang==0.5.23 -d /tmp/sgl
    python tests/precision/ground_truth.py --sglang /tmp/sgl/sglang-0.5.23-*.whl p10_decorators_src ...

``--sglang`` takes the wheel or the directory it was unzipped into. The helpers module
``sglang/srt/sampling/sampling_observer_pp.py`` and the two modules it imports are loaded from there
unchanged; only ``sglang/__init__.py`` (which imports the whole server) is bypassed, by registering an empty
``sglang`` package whose path is the wheel's. ``sglang.srt.model_executor.forward_observer`` is not in
0.5.23 (it is newer upstream); a Protocol with its documented ``after_forward`` stands in for it. Third-party
packages a project depends on but does not contain are replaced by the stand-ins in ``STAND_INS`` (each
says what it does); a class such a package touches is "unknown" by construction, and what the harness says
about it holds only for that stand-in.

For each project the harness imports every module, then drives every sampling observer the way SGLang 0.5.23
does under pipeline parallelism (``model_runner.py``, ``layers/sampler.py``, ``scheduler_pp_mixin.py``):

1. last stage: ``is_active``, ``before_grammar(logits, sampling_info)``, the sampler (greedy batches take
   ``argmax``; the others are divided by the temperatures and overwritten by their softmax in place, then
   sampled into int32 ids), ``after_sample(state, token_ids)``; over ``STEPS``, a fixed sequence of batches
   (sizes 1-4, greedy and sampled, one with a banned token);
2. ``add_auxiliary_output_to_pp_tensors(stage_dict, output)``;
3. the dict crosses (every tensor cloned);
4. first stage: ``pop_auxiliary_output_from_pp_tensors(received, observer)`` with a *fresh* observer built
   the same way, as the first stage's own model runner holds one that never sampled (its ``before_grammar``
   never ran);
5. what the first stage's ``from_pp_tensors`` reads (a second fresh observer, handed a mapping that records
   each key read), and whether the rebuilt output's host copy holds the same tensors as the original's.

Each failure is turned into evidence for a rule code on a class (see ``Evidence``), and the evidence is
compared with the project's ``EXPECTED.toml``: every expected finding must be confirmed, every class listed
silent must have none (classes listed under ``[[unknown]]`` are reported as what the stand-ins gave).
Python 3.12+'s ``isinstance`` against a runtime-checkable Protocol (``inspect.getattr_static``, never
``__getattr__``) is emulated with ``typing_extensions``' backport of it; the project's ``requires-python``
decides whether a 3.12+-only failure counts.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import sys
import tempfile
import textwrap
import types
import typing
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import torch
import typing_extensions
from packaging.specifiers import SpecifierSet

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
PROJECTS = HERE / "projects"
VOCAB = 32
HIDDEN = 8
PYTHONS_312_UP = ("3.12", "3.13", "3.14")
WHEEL_FILES = ("sglang/srt/sampling/sampling_observer_pp.py", "sglang/srt/sampling/sampling_observer.py",
               "sglang/srt/managers/auxiliary_output.py")
STEPS = (
    {"batch": 2, "greedy": False},
    {"batch": 1, "greedy": True},
    {"batch": 3, "greedy": False},
    {"batch": 4, "greedy": False},
    {"batch": 2, "greedy": True},
    {"batch": 3, "greedy": False, "banned": True},
    {"batch": 1, "greedy": False},
    {"batch": 4, "greedy": True},
)


# -- SGLang ------------------------------------------------------------------------------------------------


def load_sglang(source: Path, scratch: Path) -> types.ModuleType:
    """SGLang's real helpers module, imported from the wheel (or its unzipped directory) without the
    package's ``__init__``."""
    if source.is_file():
        with zipfile.ZipFile(source) as wheel:
            for name in WHEEL_FILES:
                wheel.extract(name, scratch)
        root = scratch
    else:
        root = source
    missing = [name for name in WHEEL_FILES if not (root / name).is_file()]
    if missing:
        raise SystemExit(f"ground_truth: {source} has no {', '.join(missing)}")
    package = types.ModuleType("sglang")
    package.__path__ = [str(root / "sglang")]
    sys.modules["sglang"] = package
    import sglang.srt  # noqa: F401  (a namespace package in the wheel: no __init__.py)

    executor = types.ModuleType("sglang.srt.model_executor")
    executor.__path__ = []
    forward = types.ModuleType("sglang.srt.model_executor.forward_observer")
    forward.ForwardObserver = _forward_observer_protocol()
    forward.__file__ = "<ground_truth stand-in: ForwardObserver is newer than SGLang 0.5.23>"
    sys.modules.update({executor.__name__: executor, forward.__name__: forward})
    import sglang.srt.sampling.sampling_observer_pp as helpers

    return helpers


def _forward_observer_protocol() -> type:
    class ForwardObserver(typing.Protocol):
        def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph): ...

    ForwardObserver.__module__ = "sglang.srt.model_executor.forward_observer"
    return ForwardObserver


@typing_extensions.runtime_checkable
class _Output312(typing_extensions.Protocol):
    def to_pp_tensors(self): ...


@typing_extensions.runtime_checkable
class _Observer312(typing_extensions.Protocol):
    def from_pp_tensors(self, tensors): ...


# -- the projects ------------------------------------------------------------------------------------------


def _identity_decorator_factory(*args, **kwargs):
    return lambda cls: cls


STAND_INS: dict[str, dict[str, object]] = {
    # obs-registry is a dependency of p10, not part of it: register_output(...) is taken to add nothing.
    "obs_registry": {"register_output": _identity_decorator_factory},
}


@dataclass(frozen=True)
class Spec:
    roots: tuple[str, ...]  # source roots, relative to the project
    constructors: Mapping[str, Callable[[Callable[[str], object]], object]] = field(default_factory=dict)


SPECS: dict[str, Spec] = {
    "p10_decorators_src": Spec(
        roots=("src",),
        constructors={"obsforge.wrappers.TimedObserver":
                      lambda get: get("obsforge.wrappers.TimedObserver")(get("obsforge.observers.TopKObserver")())},
    ),
    "p11_attached_flat": Spec(roots=(".",)),
    "p12_types_namespace": Spec(roots=("python",)),
    "p13_monorepo_member": Spec(
        roots=("src", "plugins/kvstats/src"),
        constructors={"kvstats.proxy.ObserverProxy":
                      lambda get: get("kvstats.proxy.ObserverProxy")(get("kvstats.observers.TopKObserver")())},
    ),
    "p14_vendored_copy": Spec(roots=(".",)),
    "p15_rebound_and_unread": Spec(roots=(".",)),
    "p16_python_builds_it": Spec(roots=("src",)),
    "p17_missing_key_guards": Spec(roots=(".",)),
}


def symbol(cls: type, module: str | None = None) -> str:
    """How the class is named: its module and qualname. ``type(name, bases, ns)`` with a base whose metaclass
    is ``ABCMeta`` (every Protocol, so every SGLang base) gets ``__module__ == "abc"`` (type.__new__ reads the
    calling frame's globals, which is ABCMeta.__new__'s), so such a class is named by the module whose
    top-level code made it (``BORN``)."""
    return f"{BORN.get(cls, module or cls.__module__)}.{cls.__qualname__}"


BORN: dict[type, str] = {}


def born_in(cls: type, name: str, project_modules: Mapping[str, Path]) -> bool:
    """Whether ``cls``, found in module ``name``'s namespace, was made there (not imported from elsewhere)."""
    if cls.__module__ == name:
        return True
    if cls.__module__ in project_modules or cls in BORN:
        return False
    home = sys.modules.get(cls.__module__)
    if home is not None and getattr(home, cls.__qualname__, None) is cls:
        return False
    if cls.__module__ == "abc":
        BORN[cls] = name
        return True
    return False


def owner(cls: type, name: str) -> type | None:
    """The class whose namespace holds the ``name`` that an instance of ``cls`` finds first."""
    return next((base for base in cls.__mro__ if name in vars(base)), None)


def requires_python(path: Path, project: Path) -> str | None:
    """The ``requires-python`` of the nearest pyproject.toml above ``path`` (within the project)."""
    for directory in (path.parent, *path.parents):
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            return tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("requires-python")
        if directory == project:
            return None
    return None


def admits_312_up(spec: str | None) -> bool:
    return spec is None or any(version in SpecifierSet(spec) for version in PYTHONS_312_UP)


def module_names(project: Path, spec: Spec) -> Iterator[tuple[str, Path]]:
    for root in spec.roots:
        base = (project / root).resolve()
        for path in sorted(base.rglob("*.py")):
            parts = path.relative_to(base).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if parts and not any(p.startswith(".") for p in parts):
                yield ".".join(parts), path


# -- evidence ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Evidence:
    """A run-time failure, read as the rule that describes it, on the classes it may be reported on."""

    code: str
    symbols: frozenset[str]  # the concrete class, and the class whose namespace holds the method that ran
    detail: str
    pythons: str = "3.10+"  # "3.12+" when only the emulated 3.12+ isinstance fails


ADD_ERRORS = (
    ("does not support pipeline-parallel transport", "PPA001"),
    ("must contain at least one tensor", "PPA010"),
    ("tensor names must be non-empty strings", "PPA011"),
    ("is not a tensor", "PPA012"),
)
SHAPE_ERRORS = ("object is not callable", "positional argument")  # a TypeError from calling to_pp_tensors itself
POP_ERRORS = (
    ("does not support pipeline-parallel transport", "PPA002"),
    ("did not reconstruct its PP output", "PPA014"),
)


class ReadRecorder(Mapping):
    """What ``from_pp_tensors`` is handed on the second fresh observer: a mapping that notes each key read.
    A key that was not sent is noted too and answered with a placeholder tensor, so that reading goes on past
    it and every key the method reads is seen (``.get`` and ``in`` answer as a dict would)."""

    def __init__(self, data: dict):
        self._data = data
        self.read: set[str] = set()
        self.missing: set[str] = set()

    def __getitem__(self, key):
        self.read.add(key)
        if key not in self._data:
            self.missing.add(key)
            return torch.zeros(1)
        return self._data[key]

    def get(self, key, default=None):
        self.read.add(key)
        return self._data.get(key, default)

    def __contains__(self, key):
        self.read.add(key)
        return key in self._data

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


def tensor_leaves(value, path: str = "", seen: set[int] | None = None) -> Iterator[tuple[str, torch.Tensor]]:
    """The tensors a host object holds, by where they are, so two host copies can be compared."""
    seen = set() if seen is None else seen
    if isinstance(value, torch.Tensor):
        yield path, value
        return
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, Mapping):
        for key in sorted(value, key=str):
            yield from tensor_leaves(value[key], f"{path}[{key!r}]", seen)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from tensor_leaves(item, f"{path}[{index}]", seen)
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        yield from tensor_leaves(vars(value), f"{path}.", seen)


def lost_tensors(original, rebuilt) -> list[str]:
    before = dict(tensor_leaves(original.copy_to_host(torch.clone)))
    after = dict(tensor_leaves(rebuilt.copy_to_host(torch.clone)))
    return sorted(path for path, tensor in before.items() if path not in after or not same(tensor, after[path]))


def same(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal shape and values (NaN equal to NaN: a row whose logits had -inf gives NaN entropy on both
    stages alike)."""
    if a.shape != b.shape:
        return False
    b = b.to(a.dtype)
    if a.is_floating_point():
        return bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all())
    return torch.equal(a, b)


def written_keys(method) -> int | None:
    """How many keys the single dict display that ``method`` returns is written with (None: not that shape)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
    except (OSError, TypeError, SyntaxError):
        return None
    displays = [node.value for node in ast.walk(tree) if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict)]
    if len(displays) != 1 or any(key is None for key in displays[0].keys):
        return None
    return len(displays[0].keys)


# -- driving -----------------------------------------------------------------------------------------------


def sampling_info(batch: int, greedy: bool) -> SimpleNamespace:
    return SimpleNamespace(
        temperatures=torch.full((batch, 1), 1.0 if greedy else 0.7),
        top_ps=torch.full((batch,), 1.0 if greedy else 0.9),
        top_ks=torch.full((batch,), 1 if greedy else 20, dtype=torch.int32),
        min_ps=torch.full((batch,), 0.0 if greedy else 0.05),
        vocab_size=VOCAB,
        device=torch.device("cpu"),
        is_all_greedy=greedy,
        need_min_p_sampling=not greedy,
    )


def sample(logits: torch.Tensor, info: SimpleNamespace, generator: torch.Generator) -> torch.Tensor:
    """What layers/sampler.py's standard path does between the two hooks, on CPU."""
    if info.is_all_greedy:
        return torch.argmax(logits, -1)
    logits.div_(info.temperatures)
    logits[:] = torch.softmax(logits, dim=-1)
    return torch.multinomial(logits, 1, generator=generator).view(-1).to(torch.int32)


@dataclass
class ClassReport:
    symbol: str
    roles: set[str] = field(default_factory=set)
    evidence: dict[Evidence, list[str]] = field(default_factory=dict)  # -> the steps that showed it
    notes: list[str] = field(default_factory=list)
    crossed: int = 0  # steps on which an output of this class (or this observer's) made the whole trip
    added: int = 0  # steps on which add_ accepted this output
    accepted: int = 0  # steps on which pop_'s isinstance check accepted this observer

    def add(self, when: str, evidence: Evidence) -> None:
        self.evidence.setdefault(evidence, [])
        if when not in self.evidence[evidence]:
            self.evidence[evidence].append(when)


class Harness:
    def __init__(self, helpers: types.ModuleType, project: Path, spec: Spec):
        self.helpers = helpers
        self.prefix = helpers._OUTPUT_PREFIX
        self.project = project
        self.spec = spec
        self.classes: dict[str, type] = {}
        self.files: dict[str, Path] = {}
        self.reports: dict[str, ClassReport] = {}
        self.when = ""

    # import ---------------------------------------------------------------------------------------------
    def load(self) -> None:
        for root in self.spec.roots:
            sys.path.insert(0, str((self.project / root).resolve()))
        for name, members in STAND_INS.items():
            module = types.ModuleType(name)
            module.__dict__.update(members)
            sys.modules[name] = module
        import importlib

        modules = dict(module_names(self.project, self.spec))
        for name, path in modules.items():
            module = importlib.import_module(name)
            for value in list(vars(module).values()):
                if isinstance(value, type) and born_in(value, name, modules):
                    self.classes.setdefault(symbol(value, name), value)
                    self.files.setdefault(symbol(value, name), path)
        # A class statement whose name its module bound to something else afterwards (``Out = _PP``) is in no
        # namespace, but lives on along the MRO of what replaced it.
        known = set(self.classes.values())
        for cls in list(known):
            for base in cls.__mro__[1:]:
                if base not in known and base.__module__ in modules:
                    known.add(base)
                    self.classes.setdefault(symbol(base), base)
                    self.files.setdefault(symbol(base), modules[base.__module__])

    def report(self, name: str) -> ClassReport:
        return self.reports.setdefault(name, ClassReport(name))

    def get(self, name: str) -> type:
        return self.classes[name]

    def make(self, name: str):
        build = self.spec.constructors.get(name)
        return build(self.get) if build is not None else self.classes[name]()

    # roles ----------------------------------------------------------------------------------------------
    def roles(self) -> None:
        for name, cls in self.classes.items():
            report = self.report(name)
            if callable(getattr(cls, "copy_to_host", None)):
                report.roles.add("output")
            if callable(getattr(cls, "after_sample", None)):
                report.roles.add("observer")
            if callable(getattr(cls, "after_forward", None)):
                report.roles.add("forward observer")
            if callable(getattr(cls, "consume", None)) and not report.roles:
                report.roles.add("host")

    def sampling_observers(self) -> list[str]:
        return [name for name, cls in self.classes.items() if "observer" in self.report(name).roles
                and not getattr(cls, "_is_protocol", False)]

    # the trip -------------------------------------------------------------------------------------------
    def drive(self, name: str) -> None:
        generator = torch.Generator().manual_seed(1234)
        report = self.report(name)
        try:
            last = self.make(name)
        except Exception as exc:  # noqa: BLE001 - a class that cannot be built is a note, not a crash
            report.notes.append(f"cannot be constructed here: {type(exc).__name__}: {exc}")
            return
        for step, shape in enumerate(STEPS, start=1):
            info = sampling_info(shape["batch"], shape["greedy"])
            logits = torch.randn(shape["batch"], VOCAB, generator=generator) * 3
            if shape.get("banned"):
                logits[:, 0] = float("-inf")
            if not last.is_active(info):
                continue
            state = last.before_grammar(logits, info)
            if state is None:
                continue
            token_ids = sample(logits, info, generator)
            output = last.after_sample(state, token_ids)
            if output is None:
                continue
            self.trip(name, output, token_ids, f"step {step} (batch {shape['batch']}, "
                      f"{'greedy' if shape['greedy'] else 'sampled'})")

    def trip(self, observer_name: str, output, token_ids: torch.Tensor, when: str) -> None:
        self.when = when
        helpers = self.helpers
        out_cls = type(output)
        out_name = symbol(out_cls)
        out_report = self.report(out_name)
        out_report.roles.add("output")
        if f"returned by {observer_name}" not in out_report.notes:
            out_report.notes.append(f"returned by {observer_name}")
        obs_report = self.report(observer_name)
        to_owner = owner(out_cls, "to_pp_tensors")
        to_symbols = frozenset({out_name} | ({symbol(to_owner)} if to_owner else set()))
        self._python_312(output, _Output312, "PPA001", out_report, frozenset({out_name}))
        stage = {"next_token_ids": token_ids}
        try:
            helpers.add_auxiliary_output_to_pp_tensors(stage, output)
        except RuntimeError as exc:
            code = next((c for text, c in ADD_ERRORS if text in str(exc)), "other")
            symbols = frozenset({out_name}) if code == "PPA001" else to_symbols
            out_report.add(self.when, Evidence(code, symbols, f"add_: RuntimeError: {exc}"))
            self._observer_alone(observer_name)
            return
        except Exception as exc:  # noqa: BLE001 - exceptions from to_pp_tensors propagate unchanged
            # calling what the attribute holds failed: a property's value, or the wrong arity (PPA016's shapes)
            shape = isinstance(exc, TypeError) and any(text in str(exc) for text in SHAPE_ERRORS)
            out_report.add(self.when, Evidence("PPA016" if shape else "other", to_symbols,
                                               f"add_: {type(exc).__name__}: {exc}"))
            return
        out_report.added += 1
        sent = {key.removeprefix(self.prefix): value for key, value in stage.items() if key.startswith(self.prefix)}
        received = {key: value.clone() for key, value in stage.items()}
        first = self.make(observer_name)
        first_cls = type(first)
        from_owner = owner(first_cls, "from_pp_tensors")
        from_symbols = frozenset({observer_name} | ({symbol(from_owner)} if from_owner else set()))
        self._python_312(first, _Observer312, "PPA002", obs_report, frozenset({observer_name}))
        rebuilt = None
        try:
            rebuilt = helpers.pop_auxiliary_output_from_pp_tensors(received, first)
        except RuntimeError as exc:
            code = next((c for text, c in POP_ERRORS if text in str(exc)), "other")
            symbols = frozenset({observer_name}) if code == "PPA002" else from_symbols
            obs_report.add(self.when, Evidence(code, symbols, f"pop_: RuntimeError: {exc}"))
            if code == "PPA002":
                return
        except KeyError as exc:
            obs_report.add(self.when, Evidence("PPA015", from_symbols, f"pop_: KeyError {exc} (read but never sent; sent "
                                    f"{sorted(sent)})"))
        except Exception as exc:  # noqa: BLE001 - exceptions from from_pp_tensors propagate unchanged
            obs_report.add(self.when, Evidence("other", from_symbols, f"pop_: {type(exc).__name__}: {exc}"))
        obs_report.accepted += 1
        recorder = ReadRecorder(dict(sent))
        try:
            gave_up = self.make(observer_name).from_pp_tensors(recorder) is None
        except Exception:  # noqa: BLE001 - placeholders for unsent keys may not fit; the reads are noted
            gave_up = False
        unread = [] if gave_up else sorted(set(sent) - recorder.read)  # None: nothing was rebuilt, nor dropped
        if unread:
            out_report.add(self.when, Evidence("PPA015", to_symbols, f"sent but never read: {unread} (read "
                                    f"{sorted(recorder.read)})"))
        if rebuilt is None:
            return
        lost = lost_tensors(output, rebuilt)
        if lost and not unread:
            written = written_keys(to_owner.to_pp_tensors) if to_owner else None
            if written is not None and written > len(sent):
                out_report.add(self.when, Evidence("PPA013", to_symbols, f"the returned dict is written with {written} keys "
                                        f"and holds {len(sent)} ({sorted(sent)}): host copy differs at {lost}"))
            else:
                out_report.add(self.when, Evidence("lost", to_symbols, f"host copy differs at {lost}"))
        if not unread and not lost:
            out_report.crossed += 1
            obs_report.crossed += 1

    def _observer_alone(self, observer_name: str) -> None:
        """The output did not cross; would the observer be accepted by pop_ at all? (A probe entry, so pop_
        reaches its isinstance check; what from_pp_tensors does with the probe is not judged.)"""
        probe = {f"{self.prefix}probe": torch.zeros(1)}
        first = self.make(observer_name)
        report = self.report(observer_name)
        self._python_312(first, _Observer312, "PPA002", report, frozenset({observer_name}))
        try:
            self.helpers.pop_auxiliary_output_from_pp_tensors(probe, first)
        except RuntimeError as exc:
            if "does not support" in str(exc):
                report.add(self.when, Evidence("PPA002", frozenset({observer_name}),
                                               f"pop_ (probe entry, its output failed add_): RuntimeError: {exc}"))
                return
        except Exception:  # noqa: BLE001 - the probe's key is not the observer's: only isinstance counts
            pass
        report.accepted += 1

    def _python_312(self, instance, protocol: type, code: str, report: ClassReport, symbols: frozenset[str]) -> None:
        real = isinstance(instance, self._real_protocol(protocol))
        if real and not isinstance(instance, protocol):
            report.add(self.when, Evidence(code, symbols, f"isinstance passes on this Python ({sys.version.split()[0]}) "
                                "and fails under Python 3.12+'s check (typing_extensions' backport): "
                                f"'{'auxiliary output' if code == 'PPA001' else 'sampling observer'} does not "
                                f"support pipeline-parallel transport' on 3.12+", pythons="3.12+"))

    def _real_protocol(self, protocol: type) -> type:
        return (self.helpers.PipelineParallelAuxiliaryOutput if protocol is _Output312
                else self.helpers.PipelineParallelSamplingObserver)

    def forward(self) -> None:
        """Forward observers never meet the PP helpers (SGLang refuses them with pp_size > 1); note what they
        return, so a class returned only there is known for what it is."""
        for name, cls in self.classes.items():
            if "forward observer" not in self.report(name).roles or getattr(cls, "_is_protocol", False):
                continue
            try:
                output = self.make(name).after_forward(
                    None, None, SimpleNamespace(hidden_states=torch.randn(3, HIDDEN)), can_run_graph=False)
            except Exception as exc:  # noqa: BLE001
                self.report(name).notes.append(f"after_forward failed here: {type(exc).__name__}: {exc}")
                continue
            if output is not None:
                self.report(symbol(type(output))).notes.append(f"returned by the forward observer {name} only")

    def run(self) -> None:
        self.load()
        self.roles()
        for name in self.sampling_observers():
            self.drive(name)
        self.forward()


# -- comparison with EXPECTED.toml -------------------------------------------------------------------------


@dataclass
class Verdict:
    kind: str  # "finding", "silent", "unknown"
    code: str
    symbol: str
    status: str  # CONFIRMED / NOT CONFIRMED / CONFLICT / ...
    said: str


def judge(harness: Harness, expected: dict) -> tuple[list[Verdict], list[str]]:
    """Each expectation against the evidence. Evidence is *explained* by an expected finding of its code on
    one of its classes (a PPA012 seen on both ``Stat`` and ``BatchTemperature`` is explained by the finding on
    ``BatchTemperature``); a silent class conflicts only with evidence nothing explains."""
    project = harness.project
    findings = {(item["code"], item["symbol"]) for item in expected.get("finding", [])}
    unknown = {item["symbol"] for item in expected.get("unknown", [])}
    silent = {item["symbol"] for item in expected.get("silent", [])}
    seen = [(e, steps) for report in harness.reports.values() for e, steps in report.evidence.items()
            if e.pythons == "3.10+" or admits_312_up(requires_python(harness.files[next(iter(e.symbols))], project))]

    def explained(e: Evidence) -> bool:
        return any((e.code, name) in findings for name in e.symbols)

    def shown(pairs) -> str:
        return "; ".join(f"{e.code}: {e.detail} [{steps_text(steps)}]" for e, steps in pairs)

    verdicts = []
    for code, name in sorted(findings, key=lambda f: (f[1], f[0])):
        hits = [(e, steps) for e, steps in seen if e.code == code and name in e.symbols]
        if name not in harness.classes:
            verdicts.append(Verdict("finding", code, name, "NOT FOUND", "no such class at run time"))
        elif hits:
            spec = requires_python(harness.files[name], project)
            extra = f" [requires-python {spec!r}]" if any(e.pythons != "3.10+" for e, _ in hits) else ""
            verdicts.append(Verdict("finding", code, name, "CONFIRMED", shown(hits[:1]) + extra))
        else:
            verdicts.append(Verdict("finding", code, name, "NOT CONFIRMED",
                                    shown([(e, s) for e, s in seen if name in e.symbols])
                                    or describe(harness.reports.get(name))))
    for name in sorted(silent):
        kind = "unknown" if name in unknown else "silent"
        against = [(e, steps) for e, steps in seen if name in e.symbols and not explained(e)]
        if name not in harness.classes:
            verdicts.append(Verdict(kind, "-", name, "NOT FOUND", "no such class at run time"))
        elif not against:
            verdicts.append(Verdict(kind, "-", name, "CONFIRMED", describe(harness.reports.get(name))))
        elif kind == "unknown":
            verdicts.append(Verdict(kind, "-", name, "UNKNOWN (with the stand-ins)", shown(against)))
        else:
            verdicts.append(Verdict(kind, "-", name, "CONFLICT", shown(against)))
    problems = [f"UNEXPECTED {e.code} on {', '.join(sorted(e.symbols))}: {e.detail} [{steps_text(steps)}]"
                for e, steps in seen if not explained(e) and not e.symbols & (silent | unknown)]
    listed = silent | {name for _, name in findings}
    for name, report in sorted(harness.reports.items()):
        if report.roles & {"output", "observer", "forward observer"} and name not in listed:
            problems.append(f"UNLISTED {name} ({', '.join(sorted(report.roles))}): {describe(report)}")
    for name in sorted(unknown - silent):
        problems.append(f"[[unknown]] {name} is not also listed as [[silent]]")
    return verdicts, problems


def steps_text(steps: list[str]) -> str:
    return f"{len(steps)} of {len(STEPS)} steps, first {steps[0]}"


def describe(report: ClassReport | None) -> str:
    if report is None or not report.roles:
        return "not an output or observer"
    roles = ", ".join(sorted(report.roles))
    notes = "; ".join(report.notes)
    if report.crossed:
        return f"{roles}; crossed stages intact on {report.crossed} step(s)"
    if "output" in report.roles and report.added:
        return f"{roles}; add_ accepted it on {report.added} step(s); {notes} (the observer's side is judged there)"
    if "observer" in report.roles and report.accepted:
        return (f"{roles}; pop_'s isinstance check accepts it ({report.accepted} step(s)); its output never "
                "crossed (the output's own failure), so from_pp_tensors never ran on real tensors")
    if "output" in report.roles and not any(n.startswith("returned by ") and "forward" not in n for n in report.notes):
        return f"{roles}; never returned by a sampling observer, so never meets the helpers" + (
            f" ({notes})" if notes else "")
    return roles + (f"; {notes}" if notes else "")


def render(name: str, verdicts: list[Verdict], problems: list[str]) -> str:
    lines = [f"### {name}", "", "| expectation | code | class | harness | what it saw |", "|---|---|---|---|---|"]
    for v in verdicts:
        said = v.said.replace("|", "\\|")
        lines.append(f"| {v.kind} | {v.code} | `{v.symbol}` | {v.status} | {said} |")
    lines.append("")
    lines.extend(f"- {p}" for p in problems) if problems else lines.append("(nothing unexpected or unlisted)")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sglang", type=Path, required=True, help="sglang 0.5.23 wheel or its unzipped directory")
    parser.add_argument("--write", type=Path, help="also write the Markdown report to this file")
    parser.add_argument("projects", nargs="*", help=f"project directories (default: {', '.join(SPECS)})")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    out, failed = [], 0
    with tempfile.TemporaryDirectory() as scratch:
        helpers = load_sglang(args.sglang, Path(scratch))
        for name in args.projects or list(SPECS):
            project = PROJECTS / name
            harness = Harness(helpers, project, SPECS[name])
            harness.run()
            expected = tomllib.loads((project / "EXPECTED.toml").read_text(encoding="utf-8"))
            verdicts, problems = judge(harness, expected)
            failed += sum(v.status in ("NOT CONFIRMED", "CONFLICT", "NOT FOUND") for v in verdicts) + len(problems)
            out.append(render(name, verdicts, problems))
            _forget(harness)
    text = "\n".join(out)
    print(text)
    if args.write:
        args.write.write_text(text, encoding="utf-8")
    return 1 if failed else 0


def _forget(harness: Harness) -> None:
    """Unload the project's modules, so the next project's imports start clean."""
    tops = {name.split(".")[0] for name, _ in module_names(harness.project, harness.spec)} | set(STAND_INS)
    for name in [m for m in sys.modules if m.split(".")[0] in tops]:
        del sys.modules[name]
    for root in harness.spec.roots:
        path = str((harness.project / root).resolve())
        while path in sys.path:
            sys.path.remove(path)


if __name__ == "__main__":
    raise SystemExit(main())
