"""Renderers: each takes findings (and nothing else the analysis knows) and writes one format.

A run imports only the renderer of its format (rich comes with ``full``, the rule documents with ``sarif``).

Takes findings (and, for SARIF's rule list and GitHub's titles, the rule catalogue); gives text on a stream.
It must never import the engine, the cache, the fixes, the runtime or the server: a renderer that needed the
analysis could not render a replayed run, which has only the findings.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from ppaux_lint.facts.findings import Finding

Renderer = Callable[[Sequence["Finding"], TextIO], None]

RENDERERS: dict[str, str] = {  # format -> the module of this package whose ``render`` writes it
    "full": "full",
    "concise": "concise",
    "json": "json_format",
    "sarif": "sarif",
    "github": "github",
}


def renderer(output_format: str) -> Renderer:
    return importlib.import_module(f"{__name__}.{RENDERERS[output_format]}").render
