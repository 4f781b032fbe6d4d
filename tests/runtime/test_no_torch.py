"""Without torch: the linter imports cleanly and the runtime says how to get what it needs.

These run in subprocesses where ``import torch`` is made to fail, so they
hold whether or not torch is installed here.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

BLOCK_TORCH = "import sys; sys.modules['torch'] = None\n"


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120)


def test_the_linter_never_imports_torch():
    done = run_python("""
        import sys
        import ppaux_lint, ppaux_lint.cli.main, ppaux_lint.cli.verify
        import ppaux_lint.runtime, ppaux_lint.runtime.terms.targets, ppaux_lint.runtime.run.verify
        import ppaux_lint.runtime.run.report, ppaux_lint.runtime.hosts.worker
        print("torch" in sys.modules)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_the_helpers_name_the_runtime_extra():
    done = run_python(BLOCK_TORCH + textwrap.dedent("""
        try:
            from ppaux_lint.runtime import add_auxiliary_output_to_pp_tensors
        except ImportError as exc:
            print(exc)
    """))
    assert "pip install 'ppaux-lint[runtime] @ git+https://github.com/ppaux-lint/ppaux-lint'" in done.stdout


def test_verify_exits_2_naming_the_runtime_extra(tmp_path):
    done = run_python(BLOCK_TORCH + textwrap.dedent(f"""
        from ppaux_lint.cli.verify import verify
        verify.main([{str(tmp_path)!r}], prog_name="ppaux-lint verify")
    """))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "ppaux-lint: error: ppaux-lint's runtime checks need PyTorch: "
        "pip install 'ppaux-lint[runtime] @ git+https://github.com/ppaux-lint/ppaux-lint'"
    ]
