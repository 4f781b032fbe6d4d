"""``check`` never imports or runs the code it checks: every module here would leave a trace if it did."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ._support import AUX, by_file, cli, run, write_tree

PROJECT_MODULES = ("evilpkg", "evilpkg.out", "evilpkg.meta", "evilpkg.sub", "evilpkg.sub.deep", "conftest",
                   "setup", "sitecustomize", "usercustomize", "evil_backend")
# Modules a careless tool might import from the working directory instead of the real ones.
SHADOWS = ("click", "rich", "pathspec", "tomli", "ast", "tokenize", "json", "dataclasses", "typing", "libcst",
           "ppaux_lint_plugin")  # not sglang: a project module of that name rightly shadows SGLang


def _trace(markers: Path, name: str) -> str:
    """Code that leaves ``markers/name`` behind and then makes the importer's life hard."""
    return (f"import os as _os, sys as _sys\n"
            f"open({str(markers / name)!r}, 'w').write('imported')\n"
            f"_os.system('touch ' + {str(markers / (name + '.system'))!r})\n")


def _evil_project(tmp_path: Path) -> tuple[Path, Path]:
    markers = tmp_path / "markers"
    markers.mkdir()
    files = {
        "evilpkg/__init__.py": _trace(markers, "init") + "raise SystemExit(3)\n",
        "evilpkg/out.py": _trace(markers, "out") + f"""
from {AUX} import DeviceAuxiliaryOutput


def default():
    open({str(markers / 'default')!r}, 'w')


class Leaky(DeviceAuxiliaryOutput):
    open({str(markers / 'class_body')!r}, 'w')

    def copy_to_host(self, copy_tensor, flag=default()):
        return self

SAMPLE = Leaky()  # constructed: judged itself, not only through Deeper
_os._exit(9)
""",
        "evilpkg/meta.py": _trace(markers, "meta") + f"""
class Meta(type):
    def __new__(mcs, *args):
        open({str(markers / 'metaclass')!r}, 'w')
        return super().__new__(mcs, *args)


def decorate(cls):
    open({str(markers / 'decorator')!r}, 'w')
    return cls


@decorate
class Structural(metaclass=Meta):
    def __init_subclass__(cls):
        open({str(markers / 'init_subclass')!r}, 'w')

    def copy_to_host(self, copy_tensor):
        return self

_sys.exit(4)
""",
        "evilpkg/sub/__init__.py": _trace(markers, "sub") + "import evilpkg.sub.deep\n",
        "evilpkg/sub/deep.py": _trace(markers, "deep") + "from evilpkg.out import Leaky\n\n"
                                                         "class Deeper(Leaky):\n    pass\n",
        "conftest.py": _trace(markers, "conftest"),
        "setup.py": _trace(markers, "setup"),
        "sitecustomize.py": _trace(markers, "sitecustomize"),
        "usercustomize.py": _trace(markers, "usercustomize"),
        "evil_backend.py": _trace(markers, "backend"),
        "__main__.py": _trace(markers, "main"),
        **{f"{name}.py": _trace(markers, f"shadow_{name}") for name in SHADOWS},
    }
    pyproject = ('\n[build-system]\nrequires = []\nbuild-backend = "evil_backend"\nbackend-path = ["."]\n')
    return write_tree(tmp_path / "proj", files, pyproject), markers


EXPECTED = {"evilpkg/out.py": {"PPA001"}, "evilpkg/sub/deep.py": {"PPA001"}}
UNKNOWN = {"evilpkg.meta.Structural"}  # read, and unknown: its metaclass's __new__ may rewrite its namespace


def _found(analysis, root: Path) -> tuple[dict, set[str]]:
    return by_file(analysis.findings, root), {info.fqn for info in analysis.unjudged()}


def test_analyze_in_process_runs_nothing(tmp_path: Path) -> None:
    root, markers = _evil_project(tmp_path)
    before = set(sys.modules)
    assert _found(run(root, no_cache=True), root) == (EXPECTED, UNKNOWN)
    assert _found(run(root), root) == (EXPECTED, UNKNOWN)  # cold cache
    assert _found(run(root), root) == (EXPECTED, UNKNOWN)  # warm cache
    assert _found(run(root, no_cache=True, prefilter=False), root) == (EXPECTED, UNKNOWN)
    assert list(markers.iterdir()) == []
    assert not {m for m in set(sys.modules) - before if m.split(".")[0] in {p.split(".")[0] for p in PROJECT_MODULES}}


def test_the_console_script_runs_nothing(tmp_path: Path) -> None:
    root, markers = _evil_project(tmp_path)
    for args in (["check", "--output-format", "json", "."], ["check", "evilpkg/out.py"], ["inventory", "."],
                 ["check", "--statistics", "."]):
        result = cli(args, root)
        assert result.returncode in (0, 1), (args, result.stderr)
        assert "Traceback" not in result.stderr
    assert list(markers.iterdir()) == []


def test_sys_modules_after_a_check_holds_no_project_module(tmp_path: Path) -> None:
    root, markers = _evil_project(tmp_path)
    # The modules the check loaded, and where every module came from: the interpreter's own ``sitecustomize``
    # (Debian's installs one) is loaded at start-up from the standard library, which is no project module.
    script = ("import json, sys\n"
              "before = set(sys.modules)\n"
              "from ppaux_lint.cli.main import main\n"
              "try:\n    main(['check', '--output-format', 'json', '.'])\n"
              "except SystemExit as exit:\n    code = exit.code\n"
              "files = [str(getattr(m, '__file__', None) or '') for m in list(sys.modules.values())]\n"
              "print('\\nMODULES=' + json.dumps({'code': code, 'modules': sorted(set(sys.modules) - before),"
              " 'files': files}))\n")
    # -I: the working directory (the project) is not on sys.path, as for the console script.
    result = subprocess.run([sys.executable, "-I", "-c", script], cwd=root, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.rsplit("MODULES=", 1)[1])
    assert report["code"] == 1
    modules = set(report["modules"])
    assert not modules & set(PROJECT_MODULES)
    assert not [f for f in report["files"] if Path(f).resolve().is_relative_to(root.resolve())]
    assert "torch" not in modules and "sglang" not in modules
    for shadow in SHADOWS:  # the real ones may be loaded, but never from the project
        assert not (markers / f"shadow_{shadow}").exists()
    assert list(markers.iterdir()) == []


def test_python_dash_m_runs_nothing(tmp_path: Path) -> None:
    root, markers = _evil_project(tmp_path)
    result = subprocess.run([sys.executable, "-m", "ppaux_lint", "check", "."], cwd=root, capture_output=True,
                            text=True, timeout=120)
    assert list(markers.iterdir()) == []
    assert result.returncode == 1, result.stderr
