"""An import of SGLang that fails must fail the same way every time, not leave a half-filled module table.

When ``sglang/__init__.py`` raises (``pip install sglang --no-deps`` leaves out packages it imports, such as
``orjson``), Python drops ``sglang`` from ``sys.modules`` but keeps what it imported before failing, among them
``sglang.srt``: a namespace package (SGLang 0.5.23 has no ``sglang/srt/__init__.py``) whose path is computed
from its parent's. The next ``import sglang.srt...`` then dies with ``KeyError: 'sglang'``, far from the real
error; a plugin that tries one import of SGLang and falls back to another (as SGLang's own releases moved the
Protocols) shows only that ``KeyError``. Two remedies, both needed where plugin code runs:

- ``forget_added`` drops the ``sglang`` modules a failed import of ours added (``terms/helpers.py`` trying
  SGLang's helper module under ``auto``);
- the finder ``install`` puts first on ``sys.meta_path`` answers nothing itself, but where it finds SGLang's
  modules without ``sglang`` (what a failed import of the plugin's left) it drops them and imports ``sglang``
  afresh, so the import raises what stops SGLang, ``No module named 'orjson'``, each time it is tried.

Torch-free, and silent while SGLang imports: the finder only acts on a table that is already broken.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Set

from ppaux_lint.runtime.stand_ins import PACKAGE


def is_sglang(name: str) -> bool:
    return name == PACKAGE or name.startswith(PACKAGE + ".")


def forget_added(before: Set[str]) -> None:
    """Drop every ``sglang`` module in ``sys.modules`` that is not in ``before`` (those are left alone: a
    project may have imported SGLang itself). Other packages a failed attempt imported in full stay, as any
    import leaves them."""
    for name in [name for name in sys.modules if is_sglang(name) and name not in before]:
        del sys.modules[name]


class _Reimport(importlib.abc.MetaPathFinder):
    """Asked first for every module; acts only on a submodule of SGLang asked for while ``sglang`` itself is
    missing from ``sys.modules`` and some of its submodules are not."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname == PACKAGE or not is_sglang(fullname) or PACKAGE in sys.modules:
            return None
        forget_added(set())
        importlib.import_module(PACKAGE)  # raises what stops it; if it imports now, the import goes on as usual
        return None


_FINDER = _Reimport()


def install() -> None:
    """Make every failed import of SGLang in this process repeat its real error (first on ``sys.meta_path``)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
