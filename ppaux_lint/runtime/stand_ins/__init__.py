"""SGLang's protocol modules, stood in for where SGLang is not installed, so that verify can import a plugin.

A plugin imports SGLang's Protocols to subclass and annotate with (``from sglang.srt.managers.auxiliary_output
import DeviceAuxiliaryOutput``); without SGLang that import fails before any class can be judged, which on a
CPU CI box is every class. The ``sglang`` package beside this file is written from the contract and holds
only the modules plugins import for the contract's sake: ``sglang.srt.managers.auxiliary_output``,
``sglang.srt.sampling.sampling_observer``, ``sglang.srt.model_executor.forward_observer``, and
``sglang.srt.sampling.sampling_observer_pp``, which serves the bundled core's own objects. Any other SGLang
import still fails; ``beyond`` words that failure for the row.

The finder goes last on ``sys.meta_path`` and answers for the top-level ``sglang`` only, so it is asked only
when nothing else found one: a real SGLang, installed or in the project, always wins. Once it has served
``sglang``, the ordinary path machinery finds the submodules in the stand-in directory. It is installed
where plugin code runs, never in the ``ppaux-lint`` driver: in verify's worker and receiving rank (the
``stand-ins`` source of ``terms/helpers.py``), and in a pytest process that asks for it (``pytest_plugin.py``).
Torch-free, so that the driver and pytest can ask whether SGLang is installed at no cost.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

PACKAGE = "sglang"
_DIRECTORY = Path(__file__).resolve().parent
_OURS = str(_DIRECTORY / PACKAGE) + os.sep  # every stand-in module's file starts so
# How Python words ``from X import name`` when X has no ``name`` (3.12+ also sets ``ImportError.name_from``).
_CANNOT_IMPORT = re.compile(r"cannot import name '([^']+)'")


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the stand-in ``sglang``; its submodules are found through its ``__path__``."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != PACKAGE:
            return None
        return importlib.machinery.PathFinder.find_spec(fullname, [str(_DIRECTORY)])


_FINDER = _Finder()


def install() -> None:
    """Serve the stand-ins in this process, behind every other finder."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)


def uninstall() -> None:
    """Stop serving them, and forget the stand-in modules imported so far (a later import finds SGLang, or
    nothing, as if they had never been there)."""
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in [name for name, module in sys.modules.items() if _is_ours(name, module)]:
        del sys.modules[name]


def sglang_installed(roots: Sequence[str] = ()) -> bool:
    """Whether this process would import a ``sglang`` other than the stand-in, found without importing it;
    ``roots`` are directories a worker puts first on its path (a project that vendors SGLang has it there)."""
    if roots and importlib.machinery.PathFinder.find_spec(PACKAGE, list(roots)) is not None:
        return True
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):  # an ``sglang`` is there, if in a state that cannot be imported
        return True
    return spec is not None and not (spec.origin or "").startswith(_OURS)


def serving() -> bool:
    """Whether the ``sglang`` this process imported is the stand-in."""
    return _is_ours(PACKAGE, sys.modules.get(PACKAGE))


def beyond(exc: ImportError) -> str | None:
    """What a failed import asked of SGLang that the stand-ins do not provide, as the end of a sentence whose
    subject is the importing class: ``imports sglang.srt.utils, which ...``; ``None`` when the failure is not
    about a missing stand-in (the real SGLang is there, or it is another package's import)."""
    name = exc.name or ""
    if not (name == PACKAGE or name.startswith(PACKAGE + ".")) or not serving():
        return None
    found = None if isinstance(exc, ModuleNotFoundError) else _CANNOT_IMPORT.search(str(exc))
    missing = getattr(exc, "name_from", None) or (found and found.group(1))
    what = f"{missing} from {name}" if missing else name
    return (f"imports {what}, which ppaux-lint's stand-ins do not provide (sglang is not installed): "
            "install sglang to verify it")


def _is_ours(name: str, module: ModuleType | None) -> bool:
    if not (name == PACKAGE or name.startswith(PACKAGE + ".")) or module is None:
        return False
    return (getattr(module, "__file__", None) or "").startswith(_OURS)
