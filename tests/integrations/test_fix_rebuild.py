"""``--fix`` where the generated code must not break the project or lose data: what the planner has to see before
it offers a fix (import cycles through packages, names an annotation evaluates, what a rebuild passes back), and
``--diff`` showing what ``--fix`` writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ppaux_lint.fixes import apply as fix_apply

from .conftest import run_cli
from .test_fix import _output, read


def fixes_of(code: str) -> list:
    """The ``fix`` of every finding of ``code`` in the project under the working directory."""
    records = json.loads(run_cli("check", "--unsafe-fixes", "--output-format", "json", ".").stdout)
    return [r["fix"] for r in records if r["code"] == code]


def assert_no_fix(code: str) -> None:
    found = fixes_of(code)
    assert found and all(fix is None for fix in found), found


def import_fresh(root: Path, module: str) -> None:
    """Import ``module`` from ``root`` in a fresh interpreter, as a user would; fails on any error."""
    result = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=root, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(root)}, check=False)
    assert result.returncode == 0, result.stderr


def test_no_import_whose_target_package_imports_this_module(project) -> None:
    """Importing ``pkgb.out`` first runs ``pkgb/__init__.py``, which imports ``pkga.obs``: a top-level
    ``from pkgb.out import Out`` in ``pkga/obs.py`` would make that import fail (partially initialized module)."""
    root = project({"pkga/__init__.py": "", "pkga/obs.py": """
        from __future__ import annotations

        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from pkgb.out import Out


        class Obs:
            def is_active(self, sampling_info):
                return True

            def after_sample(self, state, token_ids) -> Out:
                import pkgb.out

                return pkgb.out.Out(ids=token_ids)
    """, "pkgb/__init__.py": "from pkga.obs import Obs\n", "pkgb/out.py": _ids_output()})
    before = read(root, "pkga/obs.py")
    assert_no_fix("PPA002")
    run_cli("check", "--fix", "--unsafe-fixes", ".")
    assert read(root, "pkga/obs.py") == before
    import_fresh(root, "pkga.obs")


def _ids_output(imports: str = "") -> str:
    """A module with an output ``Out`` that sends its ``ids``, ``imports`` (unindented) after its own."""
    return ("from dataclasses import dataclass\n\nimport torch\n\n" + imports + "\n\n\n@dataclass\nclass Out:\n"
            "    ids: torch.Tensor\n\n    def copy_to_host(self, copy_tensor):\n        return self\n\n"
            "    def to_pp_tensors(self):\n        return {'ids': self.ids}\n")


_OBSERVER_IMPORTING_LATE = """
    class Obs:
        def is_active(self, sampling_info):
            return True

        def after_sample(self, state, token_ids):
            import pkg.out as outputs

            return outputs.Out(ids=token_ids)
"""


@pytest.mark.parametrize("imports_obs", [
    "import pkg.obs\n\n\nDEFAULT = pkg.obs.Obs",  # runs ``pkg.obs``, though it binds ``pkg``
    "class Registry:\n    from pkg import obs",  # a class body runs when the module is imported
    "try:\n    import pkg.obs as obs\nexcept ImportError:\n    obs = None",
])
def test_no_import_that_closes_a_cycle_however_the_target_imports_this_module(project, imports_obs: str) -> None:
    """``pkg.out`` imports ``pkg.obs`` at import time, so ``obs`` imports ``Out`` inside a function; the search used
    to read ``import pkg.obs`` as an import of ``pkg`` alone and to skip class bodies, and offered a fix whose new
    ``from pkg.out import Out`` made ``import pkg.out`` fail (partially initialized module)."""
    root = project({"pkg/__init__.py": "", "pkg/obs.py": _OBSERVER_IMPORTING_LATE,
                    "pkg/out.py": _ids_output(imports_obs)})
    assert_no_fix("PPA002")
    run_cli("check", "--fix", "--unsafe-fixes", ".")
    import_fresh(root, "pkg.out")


def test_a_package_shared_with_the_target_does_not_count_as_a_cycle(project) -> None:
    """``pkg/__init__.py`` imports ``pkg.obs``; by the time ``pkg.obs`` runs, ``pkg`` is initializing already, so
    importing ``pkg.out`` from it does not run that ``__init__`` again: the fix and its import are offered."""
    root = project({"pkg/__init__.py": "from pkg.obs import Obs\n", "pkg/obs.py": _OBSERVER_IMPORTING_LATE,
                    "pkg/out.py": _ids_output()})
    assert all(fix is not None for fix in fixes_of("PPA002"))
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    assert "from pkg.out import Out\n" in read(root, "pkg/obs.py")
    import_fresh(root, "pkg.out")
    import_fresh(root, "pkg")


TYPE_CHECKING_TENSOR = """
    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from torch import Tensor


    class Out:
        def __init__(self, ids: "Tensor") -> None:
            self.ids = ids

        def copy_to_host(self, copy_tensor) -> "Out":
            return self
"""

TORCH_AT_THE_BOTTOM = """
    class Out:
        def __init__(self, ids: "torch.Tensor") -> None:
            self.ids = ids

        def copy_to_host(self, copy_tensor) -> "Out":
            return self


    import torch  # noqa: E402
"""

A_METHOD_CALLED_DICT = """
    import torch


    class Out:
        def __init__(self, ids: torch.Tensor) -> None:
            self.ids = ids

        def dict(self) -> dict:
            return {"ids": self.ids.tolist()}

        def copy_to_host(self, copy_tensor) -> "Out":
            return Out(copy_tensor(self.ids))
"""


@pytest.mark.parametrize("source, annotation", [
    (TYPE_CHECKING_TENSOR, '"dict[str, Tensor]"'),  # bound for type checkers only: NameError at import
    (TORCH_AT_THE_BOTTOM, '"dict[str, torch.Tensor]"'),  # bound after the class runs
    (A_METHOD_CALLED_DICT, '"dict[str, torch.Tensor]"'),  # the class body's `dict` is a function: TypeError
    (A_METHOD_CALLED_DICT.replace("def dict(", "def as_dict("), "dict[str, torch.Tensor]"),  # nothing in the way
], ids=["type-checking-only", "imported-below", "class-binds-dict", "plain"])
def test_a_generated_annotation_that_would_not_evaluate_is_quoted(project, source, annotation) -> None:
    root = project({"m.py": source})
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    assert f"    def to_pp_tensors(self) -> {annotation}:\n" in read(root, "m.py")
    import_fresh(root, "m")


def test_a_from_pp_annotation_the_class_body_shadows_is_quoted(project) -> None:
    """The observer binds ``Out`` in its own body: ``-> Out`` on a method there would name that attribute."""
    root = project({"m.py": """
        from dataclasses import dataclass

        import torch


        @dataclass
        class Out:
            ids: torch.Tensor

            def copy_to_host(self, copy_tensor) -> "Out":
                return self

            def to_pp_tensors(self) -> dict:
                return {"ids": self.ids}


        class Obs:
            Out = None

            def is_active(self, sampling_info) -> bool:
                return True

            def after_sample(self, state, token_ids) -> Out:
                return Out(token_ids)
    """})
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    assert '    def from_pp_tensors(self, tensors) -> "Out":\n' in read(root, "m.py")
    import_fresh(root, "m")


POST_INIT = "ids: torch.Tensor\n\ndef __post_init__(self):\n    {}"
INIT = "def __init__(self, ids: torch.Tensor):\n    {}"


@pytest.mark.parametrize("body, decorator", [
    (POST_INIT.format('object.__setattr__(self, "ids", self.ids + 1)'), "@dataclass(frozen=True)"),
    (POST_INIT.format('setattr(self, "ids", self.ids + 1)'), "@dataclass"),
    (POST_INIT.format('super().__setattr__("ids", self.ids + 1)'), "@dataclass"),
    (POST_INIT.format("self.ids.add_(1)"), "@dataclass"),
    (POST_INIT.format("self.ids[0] = 0"), "@dataclass"),
    (POST_INIT.format("torch.add(self.ids, 1, out=self.ids)"), "@dataclass"),
    (POST_INIT.format("vars(self).update(ids=self.ids + 1)"), "@dataclass"),
    (POST_INIT.format('self.__dict__["ids"] = self.ids + 1'), "@dataclass"),
    (INIT.format("ids = ids + 1\n    self.ids = ids"), ""),
    (INIT.format("self.ids = ids\n    ids += 1"), ""),
    (INIT.format("ids.mul_(2)\n    self.ids = ids"), ""),
    (INIT.format("self.ids = ids\n    self.ids.clamp_(min=0)"), ""),
    (INIT.format("self.ids = ids\n    object.__setattr__(self, 'ids', ids + 1)"), ""),
], ids=["object-setattr", "setattr", "super-setattr", "in-place-method", "subscript-store", "out-keyword",
        "vars-update", "dict-store", "param-rebound-before", "param-rebound-after", "param-in-place",
        "attribute-in-place", "init-object-setattr"])
def test_no_fix_for_a_tensor_the_constructor_changes(project, body, decorator) -> None:
    """Rebuilt through the constructor, the received tensor would be changed a second time."""
    project({"m.py": _output(body, decorator=decorator, build="Out(t)")})
    assert_no_fix("PPA001")
    assert_no_fix("PPA002")


def test_reading_the_instance_dict_still_gets_a_fix(project) -> None:
    project({"m.py": _output("ids: torch.Tensor\n\ndef as_dict(self):\n    return dict(self.__dict__)",
                             build="Out(t)")})
    assert all(fix is not None for fix in fixes_of("PPA001"))


@pytest.mark.parametrize("body, decorator", [
    ("ids: torch.Tensor\nlogprobs: torch.Tensor = field(init=False, default_factory=lambda: torch.empty(0))",
     "@dataclass"),
    ("ids: torch.Tensor\nlogprobs: torch.Tensor = field(init=False, default=None)", "@dataclass"),
    ("ids: torch.Tensor\nlogprobs: torch.Tensor = field(init=False)\n\ndef __post_init__(self):\n"
     "    self.logprobs = self.ids.float()", "@dataclass"),  # computed, yet the hook may set it again
    ("def __init__(self, ids: torch.Tensor):\n    self.ids = ids\n    self.logprobs: Optional[torch.Tensor] = None",
     ""),
    ("def __init__(self, ids: torch.Tensor):\n    self.ids = ids\n    if ids.numel():\n"
     "        self.logprobs: torch.Tensor = ids.float()", ""),
    ("logprobs: Optional[torch.Tensor]\n\ndef __init__(self, ids: torch.Tensor):\n    self.ids = ids", ""),
], ids=["init-false-factory", "init-false-none", "init-false-computed", "init-declared-optional",
        "init-declared-nested", "class-level-annotation"])
def test_no_fix_when_a_tensor_attribute_is_not_a_constructor_parameter(project, body, decorator) -> None:
    """The hook sets ``out.logprobs`` after building ``Out(ids)``: sent without it and rebuilt through the
    constructor, the logprobs would be lost without a word."""
    source = _output(body, decorator=decorator, build="Out(t)").replace("import torch\n",
                                                                       "from typing import Optional\n\nimport torch\n")
    project({"m.py": source})
    assert_no_fix("PPA001")
    assert_no_fix("PPA002")


TOP_PART = """
    @dataclass
    class TopPart:
        ids: torch.Tensor
        logprobs: torch.Tensor


"""


@pytest.mark.parametrize("body, build", [
    ("lp: torch.Tensor\ntemperature: float = 1.0", "Out(t, temperature=0.7)"),  # by keyword
    ("lp: torch.Tensor\ntemperature: float = 1.0", "Out(t, 0.7)"),  # by position
    ("lp: torch.Tensor\ntemperature: float = 1.0", "Out(t, **{'temperature': 0.7})"),
    ("lp: torch.Tensor\ntemperature: float = 1.0", "functools.partial(Out, temperature=0.7)(t)"),
    ("lp: torch.Tensor\ntemperature: float = 1.0\n\ndef scaled(self):\n    return dataclasses.replace(self, "
     "temperature=2.0)", "Out(t)"),
    ("def __init__(self, lp: torch.Tensor, temperature: float = 1.0):\n    self.lp = lp\n"
     "    self.temperature = temperature", "Out(t, temperature=0.7)"),
    ("lp: torch.Tensor\ntop: Optional[TopPart] = None", "Out(t)"),  # a container of tensors: lost if not passed
    ("lp: torch.Tensor\nextra: dict = field(default_factory=dict)", "Out(t)"),
    ("def __init__(self, lp: torch.Tensor, scale=1.0):\n    self.lp = lp\n    self.scale = scale", "Out(t)"),
], ids=["keyword", "positional", "double-star", "partial", "replace", "init-keyword", "optional-project-class",
        "container", "unannotated"])
def test_no_fix_when_a_parameter_left_home_may_matter(project, body, build) -> None:
    """Rebuilt with its default, ``temperature`` would be 1.0 on the last stage where the hook passed 0.7, and
    ``top`` None where it held tensors."""
    source = _output(body, build=build).replace(
        "import torch\n", "import dataclasses\nimport functools\nfrom typing import Optional\n\nimport torch\n")
    source = source.replace("\n\n@dataclass\nclass Out", "\n\n" + textwrap.dedent(TOP_PART) + "@dataclass\nclass Out")
    source = source.replace("\n\nclass Out", "\n\n" + textwrap.dedent(TOP_PART) + "class Out")
    project({"m.py": source})
    assert_no_fix("PPA001")
    assert_no_fix("PPA002")


@pytest.mark.parametrize("body", ["lp: torch.Tensor\ntemperature: float = 1.0",
                                  "lp: torch.Tensor\nlabel: Optional[str] = None",
                                  "lp: torch.Tensor\nmode: Literal['a', 'b'] = 'a'"])
def test_a_plain_setting_no_site_passes_is_rebuilt_with_its_default(project, body) -> None:
    source = _output(body, build="Out(t)").replace("import torch\n",
                                                   "from typing import Literal, Optional\n\nimport torch\n")
    root = project({"m.py": source})
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    assert "        return Out(lp=tensors[" in read(root, "m.py")


def test_from_pp_reads_the_keys_of_the_last_to_pp_tensors(project) -> None:
    """Python keeps the last ``def`` of a name in a class body: the output sends ``ids``, not ``old_ids``."""
    root = project({"m.py": _output('ids: torch.Tensor\n\ndef to_pp_tensors(self):\n    return {"old_ids": self.ids}\n\n'
                                    'def to_pp_tensors(self):  # noqa: F811\n    return {"ids": self.ids}',
                                    build="Out(t)")})
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    text = read(root, "m.py")
    assert '        return Out(ids=tensors["ids"])\n' in text and "tensors[\"old_ids\"]" not in text


def test_no_from_pp_fix_when_the_last_binding_of_to_pp_tensors_is_no_def(project) -> None:
    project({"m.py": _output('ids: torch.Tensor\n\ndef to_pp_tensors(self):\n    return {"ids": self.ids}\n\n'
                             "to_pp_tensors = lambda self: {'other': self.ids}", build="Out(t)")})
    assert_no_fix("PPA002")


BASE_WITH_NEAR_MISS = """
    from dataclasses import dataclass

    import torch


    @dataclass
    class Out:
        ids: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return self

        def to_pp_tensor(self):
            return {"ids": self.ids}
"""

OBSERVER_OF_OUT = """
    from base import Out


    class Obs:
        def is_active(self, sampling_info):
            return True

        def after_sample(self, state, token_ids):
            return Out(token_ids)

        def from_pp_tensors(self, tensors):
            return Out(tensors["ids"])
"""


@pytest.mark.parametrize("use", ["tensors = super().to_pp_tensor()", 'tensors = getattr(self, "to_pp_tensor")()'])
def test_no_rename_when_another_file_uses_the_old_name(project, use) -> None:
    """Renamed in base.py, ``super().to_pp_tensor()`` in sub.py raises AttributeError."""
    root = project({"base.py": BASE_WITH_NEAR_MISS, "obs.py": OBSERVER_OF_OUT, "sub.py": f"""
        from dataclasses import dataclass

        import torch

        from base import Out


        @dataclass
        class RichOut(Out):
            extra: torch.Tensor

            def to_pp_tensors(self):
                {use}
                tensors["extra"] = self.extra
                return tensors
    """})
    before = read(root, "base.py")
    assert_no_fix("PPA017")
    run_cli("check", "--fix", ".")
    assert read(root, "base.py") == before


def test_a_rename_is_still_offered_when_other_files_only_spell_the_real_name(project) -> None:
    root = project({"base.py": BASE_WITH_NEAR_MISS, "obs.py": OBSERVER_OF_OUT, "other.py": """
        def send(out):
            return out.to_pp_tensors()
    """})
    assert run_cli("check", "--fix", "base.py").exit_code == 0
    assert "    def to_pp_tensors(self):\n" in read(root, "base.py")


def test_diff_shows_every_round_that_fix_applies(project) -> None:
    """The rename of ``to_pp_tensor`` lets the observer's ``from_pp_tensors`` be generated in the next round:
    ``--diff`` showed the first round only, while ``--fix`` wrote both."""
    root = project({"m.py": _output('ids: torch.Tensor\n\ndef to_pp_tensor(self):\n    return {"ids": self.ids}',
                                    build="Out(t)")})
    before = read(root, "m.py")
    shown = run_cli("check", "--diff", "--unsafe-fixes", ".")
    assert shown.exit_code == 1 and read(root, "m.py") == before
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    after = read(root, "m.py")
    assert "def to_pp_tensors(self)" in after and "def from_pp_tensors(self, tensors)" in after
    expected = fix_apply.unified_diff([fix_apply.FileResult(str(root / "m.py"), "utf-8", before, after)])
    assert shown.stdout == expected
    assert "Would fix 2 errors." in shown.stderr


def test_a_rename_is_still_offered_when_another_file_defines_its_own_near_miss(project) -> None:
    """Another class's own ``def to_pp_tensor`` is no use of this one's; each file's rename goes in."""
    root = project({"base.py": BASE_WITH_NEAR_MISS, "obs.py": OBSERVER_OF_OUT,
                    "twin.py": BASE_WITH_NEAR_MISS.replace("class Out", "class Twin")})
    assert run_cli("check", "--fix", "base.py").exit_code == 0
    assert "    def to_pp_tensors(self):\n" in read(root, "base.py")


def test_two_fixes_in_a_file_that_need_the_same_import_add_it_once(project) -> None:
    root = project({"out.py": """
        from dataclasses import dataclass

        import torch


        @dataclass
        class Out:
            ids: torch.Tensor

            def copy_to_host(self, copy_tensor):
                return self

            def to_pp_tensors(self):
                return {"ids": self.ids}
    """, "helpers.py": "from out import Out\n\n\ndef make(ids):\n    return Out(ids)\n", "obs.py": """
        from typing import TYPE_CHECKING

        from helpers import make

        if TYPE_CHECKING:
            from out import Out


        class ObsA:
            def is_active(self, sampling_info):
                return True

            def after_sample(self, state, token_ids) -> "Out":
                return make(token_ids)


        class ObsB:
            def is_active(self, sampling_info):
                return True

            def after_sample(self, state, token_ids) -> "Out":
                return make(token_ids + 1)
    """})
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    text = read(root, "obs.py")
    assert text.splitlines().count("from out import Out") == 1 and text.count("def from_pp_tensors(") == 2
    import_fresh(root, "obs")


def test_an_import_the_file_already_has_is_not_added_again() -> None:
    from ppaux_lint.fixes.codemod import transform
    from ppaux_lint.fixes.plan import Plan

    plan = Plan(finding=None, path="m.py", description="", safe=False, class_name="Nothing", class_line=0,
                add_import=("out", "Out"))
    assert transform([plan], "import os\nfrom out import Out\n", '"') == "import os\nfrom out import Out\n"
    assert transform([plan], "import os\n", '"') == "import os\nfrom out import Out\n"
