"""The plugin projects the pytester runs work on, written into ``pytester.path``.

Every class is recognised structurally (no ``sglang`` import), so the projects run without SGLang and
without its stand-in. ``GoodOutput``'s example leaves a file behind, which is how a test can tell whether
that row's round trip ran at all.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

PYPROJECT = """
[project]
name = "acme"
version = "0"

[tool.ppaux-lint.verify]
examples = { "acme.good.FactoryOutput" = "acme.good:make_factory_output" }
timeout = 30

[tool.pytest.ini_options]
pythonpath = ["src"]
"""

BROKEN = '''
from dataclasses import dataclass

import torch


@dataclass
class NoSendOutput:
    """Never taught to cross a stage: it has no to_pp_tensors."""

    values: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return copy_tensor(self.values)


class NoRebuildObserver:
    """Cannot rebuild anything on the first stage: it has no from_pp_tensors."""

    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids):
        return token_ids  # what it hands over may be an output, which the first stage cannot rebuild
'''

GOOD = '''
from dataclasses import dataclass
from pathlib import Path

import torch


@dataclass
class GoodOutput:
    values: torch.Tensor

    @classmethod
    def ppaux_example(cls, device):
        (Path(__file__).parent / "ran-GoodOutput").touch()
        return cls(torch.arange(4.0, device=device))

    def copy_to_host(self, copy_tensor):
        return copy_tensor(self.values)

    def to_pp_tensors(self):
        return {"values": self.values}


class GoodObserver:
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids) -> GoodOutput:
        return GoodOutput(state)

    def from_pp_tensors(self, tensors) -> GoodOutput:
        return GoodOutput(tensors["values"])


class SwappingObserver:
    """Rebuilds a GoodOutput whose values are not the ones sent."""

    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids):
        return GoodOutput(state)

    def from_pp_tensors(self, tensors):
        return GoodOutput(tensors["values"].flip(0))


class Handle:
    """Something only the project's own code can build, so verify cannot synthesise what holds one."""


class FactoryOutput:
    def __init__(self, handle: Handle, values: torch.Tensor):
        self.handle = handle
        self.values = values

    def copy_to_host(self, copy_tensor):
        return copy_tensor(self.values)

    def to_pp_tensors(self):
        return {"values": self.values}


class FactoryObserver:
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids) -> FactoryOutput:
        return FactoryOutput(Handle(), state)

    def from_pp_tensors(self, tensors) -> FactoryOutput:
        return FactoryOutput(Handle(), tensors["values"])


def make_factory_output(device):
    return FactoryOutput(Handle(), torch.ones(3, device=device))


class OpaqueOutput:
    def __init__(self, handle: Handle):
        self.handle = handle

    def copy_to_host(self, copy_tensor):
        return None

    def to_pp_tensors(self):
        return {"marker": torch.zeros(1)}


@dataclass
class ExampleRaisesOutput:
    values: torch.Tensor

    @classmethod
    def ppaux_example(cls, device):
        raise ValueError("needs a model config")

    def copy_to_host(self, copy_tensor):
        return copy_tensor(self.values)

    def to_pp_tensors(self):
        return {"values": self.values}
'''

# The rows ``--ppaux-verify src`` collects, by node id, and how verify judges each.
ROWS = {
    "src/acme/broken.py::ppaux-verify::acme.broken.NoRebuildObserver": "failed",
    "src/acme/broken.py::ppaux-verify::acme.broken.NoSendOutput": "failed",
    "src/acme/good.py::ppaux-verify::acme.good.ExampleRaisesOutput": "error",
    "src/acme/good.py::ppaux-verify::acme.good.FactoryObserver": "passed",
    "src/acme/good.py::ppaux-verify::acme.good.FactoryOutput": "passed",
    "src/acme/good.py::ppaux-verify::acme.good.GoodObserver": "passed",
    "src/acme/good.py::ppaux-verify::acme.good.GoodOutput": "passed",
    "src/acme/good.py::ppaux-verify::acme.good.OpaqueOutput": "skipped",
    "src/acme/good.py::ppaux-verify::acme.good.SwappingObserver": "failed",
}


def write_project(root: Path, tests: str | None = None) -> Path:
    """The acme project in ``root`` (no conftest.py anywhere), with ``tests/test_acme.py`` when given."""
    files = {"pyproject.toml": PYPROJECT, "src/acme/__init__.py": "", "src/acme/broken.py": BROKEN,
             "src/acme/good.py": GOOD}
    if tests is not None:
        files["tests/test_acme.py"] = tests
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def ran_good_output(root: Path) -> bool:
    """Whether GoodOutput's round trip (its example) ran."""
    return (root / "src" / "acme" / "ran-GoodOutput").exists()
