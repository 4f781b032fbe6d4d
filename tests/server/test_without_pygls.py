"""pygls is an optional extra: ``check`` (stdin included) never loads it, and ``server`` without it says which
extra to install, in one line, exit 2.

A poisoned ``pygls`` placed first on the path stands for "not installed" whether or not the real one is.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from lintkit import IMPORT_AUX, make_project

POISON = 'raise ModuleNotFoundError("No module named \'pygls\'", name="pygls")\n'


def run_python(code: str, cwd: Path, poison: Path, stdin: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(poison), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, input=stdin, capture_output=True,
                          text=True, timeout=120, check=False)


def test_server_without_pygls_names_the_extra(tmp_path):
    (tmp_path / "pygls.py").write_text(POISON, encoding="utf-8")
    result = run_python("from ppaux_lint.cli.main import main; main(['server'])", tmp_path, tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == ("ppaux-lint: error: the language server needs pygls 2: "
                             "pip install 'ppaux-lint[lsp] @ git+https://github.com/ppaux-lint/ppaux-lint'\n")


def test_check_on_stdin_never_imports_pygls(tmp_path):
    poison = tmp_path / "poison"
    poison.mkdir()
    (poison / "pygls.py").write_text(POISON, encoding="utf-8")
    root = make_project(tmp_path / "proj", {})
    code = textwrap.dedent("""\
        import sys
        from ppaux_lint.cli.main import main
        try:
            main(["check", "--output-format", "concise", "--stdin-filename", "mod.py", "-"])
        except SystemExit as exit:
            assert not any(m.split(".")[0] in ("pygls", "lsprotocol") for m in sys.modules), sorted(sys.modules)
            raise
        """)
    result = run_python(code, root, poison, stdin=IMPORT_AUX + "\n\nclass Out(DeviceAuxiliaryOutput):\n    pass\n")
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("mod.py:4:7: PPA001 ")
