"""Renderers: each takes findings (and nothing else the analysis knows) and writes one format."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

from ppaux_lint.findings import Finding
from ppaux_lint.report import concise, full, github, json_format, sarif

Renderer = Callable[[Sequence[Finding], TextIO], None]

RENDERERS: dict[str, Renderer] = {
    "full": full.render,
    "concise": concise.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
}
