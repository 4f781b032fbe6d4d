"""Whose PP transport helpers judge a verify run: SGLang's own, or the bundled core.

The bundled core (``core.py``) lets verify run where SGLang is not installed, and matches SGLang's helpers
check for check and word for word. It cannot match them in one respect: its Protocols are its own classes.
``isinstance`` against a runtime-checkable Protocol answers yes first for a subclass or a ``register()``ed
class (the ABC machinery), and only then asks whether the members are there. So a class that explicitly
subclasses SGLang's ``PipelineParallelAuxiliaryOutput`` and sets ``to_pp_tensors = None`` passes SGLang's
check and fails calling ``None`` (a ``TypeError``), while the bundled core sees no usable member and raises
its ``RuntimeError``. Only SGLang's own module can give SGLang's answer there, and only it follows SGLang
when a release changes the helpers; hence ``auto``, which takes it whenever it imports.

An SGLang that is installed but cannot be imported (``pip install sglang --no-deps`` leaves out packages its
``__init__`` imports) is no reason to stop under ``auto``, but it must not pass in silence: the fallback
carries a warning that names what failed, which the front end prints once (its workers are handed the bundled
core and never try SGLang's module themselves). The failed attempt is undone, and every process that loads
helpers makes the plugin's own failing imports of SGLang raise the real error, not ``KeyError: 'sglang'``
(``sglang_imports``).

Where SGLang is not installed at all, the plugin's own ``import sglang...`` would fail before anything is
judged; there ``auto`` and ``bundled`` resolve to the ``stand-ins`` source: the bundled core, in processes
that also serve ppaux-lint's stand-ins for SGLang's protocol modules (``stand_ins``). Its label says so on
every row. The driver only decides; a worker that loads that source installs the stand-ins in itself.

Torch-free at import: the CLI names the choices (kept in ``config.py``, which reads them from a config
before anyone knows torch is there), and the driver hands a ``Helpers`` to its workers without loading
either module itself.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
from collections.abc import Sequence
from dataclasses import field
from types import ModuleType
from typing import Any

from ppaux_lint.project.config import HELPERS_CHOICES as CHOICES
from ppaux_lint.runtime import stand_ins
from ppaux_lint.runtime.terms import sglang_imports
from ppaux_lint.support.records import dataclass

AUTO, BUNDLED, SGLANG = CHOICES
STAND_INS = "stand-ins"
"""A source, not a choice: the bundled core where SGLang is not installed, its protocol modules stood in."""
STAND_INS_LABEL = "bundled (sglang stand-ins)"
SGLANG_MODULE = "sglang.srt.sampling.sampling_observer_pp"
_CORE = "ppaux_lint.runtime.core"
_MODULES = {BUNDLED: _CORE, STAND_INS: _CORE, SGLANG: SGLANG_MODULE}
# What verify calls; a module without them is not (this release of) SGLang's helper module.
_NEEDED = ("_OUTPUT_PREFIX", "PipelineParallelAuxiliaryOutput", "PipelineParallelSamplingObserver",
           "add_auxiliary_output_to_pp_tensors", "pop_auxiliary_output_from_pp_tensors")


class HelpersUnavailable(Exception):
    """``--helpers sglang`` was asked for and SGLang's helper module cannot be used; the message says why."""


@dataclass(frozen=True)
class Helpers:
    """One implementation of the helpers: ``source`` (``bundled``, ``stand-ins`` or ``sglang``) says which
    module a process loads, ``label`` is what the report shows (``bundled``, ``bundled (sglang stand-ins)``,
    ``sglang 0.5.23``). The module is looked up, not held, so that this value crosses to worker processes as
    two strings. ``warning`` says why ``auto`` fell back from an installed SGLang ("" otherwise): the driver's
    to print once, never sent to a worker."""

    source: str
    label: str
    warning: str = field(default="", compare=False)

    @property
    def module(self) -> ModuleType:
        return importlib.import_module(_MODULES[self.source])

    @property
    def prefix(self) -> str:
        return self.module._OUTPUT_PREFIX

    @property
    def output_protocol(self) -> type:
        return self.module.PipelineParallelAuxiliaryOutput

    @property
    def observer_protocol(self) -> type:
        return self.module.PipelineParallelSamplingObserver

    def add(self, tensors: Any, output: Any) -> None:
        self.module.add_auxiliary_output_to_pp_tensors(tensors, output)

    def pop(self, tensors: Any, observer: Any) -> Any:
        return self.module.pop_auxiliary_output_from_pp_tensors(tensors, observer)


BUNDLED_HELPERS = Helpers(BUNDLED, BUNDLED)
STAND_IN_HELPERS = Helpers(STAND_INS, STAND_INS_LABEL)


def load_helpers(choice: str, roots: Sequence[str] = ()) -> Helpers:
    """The helpers for ``auto``, ``bundled`` or ``sglang``, imported and ready in this process; or for a source
    a driver resolved them to, which is how its workers load them.

    ``auto`` takes SGLang's module when it imports (any exception while importing it, not only an
    ImportError, means it cannot be used) and has every name verify calls, else the bundled core;
    ``sglang`` raises ``HelpersUnavailable`` instead of falling back. Where SGLang is not installed (asked of
    the import system, not by importing it, here or in the project's import ``roots``) ``auto`` and
    ``bundled`` give the ``stand-ins`` source, and loading that source installs the stand-ins in this process.
    """
    sglang_imports.install()
    if choice == STAND_INS:
        stand_ins.install()
        return _bundled(STAND_IN_HELPERS)
    if choice not in CHOICES:
        raise ValueError(f"unknown helpers {choice!r}: use {', '.join(CHOICES)}")
    if not stand_ins.sglang_installed(roots):
        if choice == SGLANG:
            raise HelpersUnavailable(f"cannot import {SGLANG_MODULE}: sglang is not installed")
        return _bundled(STAND_IN_HELPERS)
    if choice == BUNDLED:
        return _bundled(BUNDLED_HELPERS)
    before = set(sys.modules)
    try:
        module = importlib.import_module(SGLANG_MODULE)
    except Exception as exc:  # noqa: BLE001 - whatever its import raises, SGLang's module cannot be used
        version = _sglang_version()
        sglang_imports.forget_added(before)
        problem = f"cannot import {SGLANG_MODULE}: {_import_failure(exc)}"
    else:
        missing = [name for name in _NEEDED if not hasattr(module, name)]
        if not missing:
            return Helpers(SGLANG, f"sglang {_sglang_version()}")
        version = _sglang_version()
        problem = (f"{SGLANG_MODULE} ({getattr(module, '__file__', None) or 'no file'}) has no "
                   f"{', '.join(missing)}, so it is not SGLang's helper module")
    if choice == SGLANG:
        raise HelpersUnavailable(problem)
    return _bundled(Helpers(BUNDLED, BUNDLED, warning=(
        f"SGLang {version} is installed but its helpers cannot be used: {problem}; verify judges with the "
        "bundled core instead (docs/verify.md says what verify needs of an SGLang install)")))


def _import_failure(exc: BaseException) -> str:
    """What an import of SGLang's helper module raised, on one line: the exception, then the SGLang module it
    was raised in where that is another one, and, where a package outside SGLang is missing, that SGLang was
    installed without its dependencies."""
    where = _raised_in(exc)
    missing = exc.name if isinstance(exc, ModuleNotFoundError) else None
    notes = [*([f"raised in {where}"] if where and where != SGLANG_MODULE else []),
             *(["a package SGLang imports is not installed: was sglang installed with --no-deps?"]
               if missing and not sglang_imports.is_sglang(missing) else [])]
    words = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    return f"{words} ({'; '.join(notes)})" if notes else words


def _raised_in(exc: BaseException) -> str | None:
    """The innermost SGLang module on the traceback of ``exc``: where its import went wrong."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_globals.get("__name__")
        if isinstance(name, str) and sglang_imports.is_sglang(name):
            found = name
        tb = tb.tb_next
    return found


def _bundled(helpers: Helpers) -> Helpers:
    importlib.import_module(_CORE)  # torch is needed from here on: fail now, not mid-trip
    return helpers


def _sglang_version() -> str:
    """The imported package's own ``__version__`` first, as it describes the code that runs; else the
    installed distribution's."""
    version = getattr(sys.modules.get("sglang"), "__version__", None)
    if isinstance(version, str) and version:
        return version
    try:
        return importlib.metadata.version("sglang")
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown)"
