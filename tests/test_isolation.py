"""``import ppaux_lint`` and ``ppaux-lint check`` never import torch, and never import or run project code.

Each test runs in a fresh interpreter so that modules imported by other tests
cannot hide (or fake) an import. A poisoned ``torch`` package placed first on
``sys.path`` makes any import of torch fail loudly and leave a marker, so the
tests mean the same whether or not the real torch is installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from lintkit import make_project

POISON = textwrap.dedent("""\
    import os
    open(os.environ["PPAUX_MARKER_DIR"] + "/torch-imported", "w").close()
    raise ImportError("ppaux-lint test: torch must not be imported by check")
    """)

PROJECT_MODULE = textwrap.dedent("""\
    import os
    open(os.environ["PPAUX_MARKER_DIR"] + "/project-imported-" + __name__, "w").close()
    from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


    class Out(DeviceAuxiliaryOutput):
        def copy_to_host(self, copy_tensor):
            return self

        def to_pp_tensors(self):
            return {"a": self.a}


    class Broken(Out):
        to_pp_tensors = None
    """)


def _run(code: str, cwd: Path, markers: Path, poison: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PPAUX_MARKER_DIR"] = str(markers)
    env["PYTHONPATH"] = os.pathsep.join([str(poison), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("PYTHONSTARTUP", None)
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def _setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    markers = tmp_path / "markers"
    markers.mkdir()
    poison = tmp_path / "poison"
    (poison / "torch").mkdir(parents=True)
    (poison / "torch" / "__init__.py").write_text(POISON, encoding="utf-8")
    project = make_project(tmp_path / "proj", {
        "pkg/__init__.py": PROJECT_MODULE,
        "pkg/mod.py": PROJECT_MODULE,
        "conftest.py": PROJECT_MODULE,
        "setup.py": PROJECT_MODULE,
        "pkg/__main__.py": PROJECT_MODULE,
    })
    return markers, poison, project


def test_import_and_check_never_import_torch_or_project_code(tmp_path):
    markers, poison, project = _setup(tmp_path)
    code = textwrap.dedent("""\
        import json, sys
        import ppaux_lint
        assert "torch" not in sys.modules, "import ppaux_lint imported torch"
        from ppaux_lint.cli.main import main
        try:
            main(["check", "--output-format", "json", "."])
        except SystemExit as exit:
            status = exit.code
        print(json.dumps({"status": status, "torch": "torch" in sys.modules,
                          "project": sorted(m for m in sys.modules if m == "pkg" or m.startswith("pkg."))}))
        """)
    done = _run(code, project, markers, poison)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    state = json.loads(lines[-1])
    findings = json.loads("\n".join(lines[:-1]))
    assert state == {"status": 1, "torch": False, "project": []}
    # the project was analysed (statically) all the same
    assert {f["symbol"] for f in findings} == {"pkg.Broken", "pkg.mod.Broken", "pkg.__main__.Broken",
                                               "conftest.Broken", "setup.Broken"}
    assert sorted(p.name for p in markers.iterdir()) == []


def test_console_script_check_never_imports_torch_or_project_code(tmp_path):
    markers, poison, project = _setup(tmp_path)
    env = dict(os.environ, PPAUX_MARKER_DIR=str(markers),
               PYTHONPATH=os.pathsep.join([str(poison), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    script = Path(sys.executable).with_name("ppaux-lint")
    command = [str(script) if script.exists() else "ppaux-lint", "check", "--output-format", "json"]
    for args in ([], ["--statistics"], ["--output-format", "full"]):
        done = subprocess.run(command + args, cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 1, done.stderr
        assert "torch" not in done.stderr
    for args in (["rules"], ["rule", "PPA001"], ["--version"]):
        done = subprocess.run([command[0], *args], cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in markers.iterdir()) == []
