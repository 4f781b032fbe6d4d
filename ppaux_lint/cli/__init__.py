"""The command line: ``check``, ``rule``, ``rules``, ``inventory``, ``server`` and ``verify``, their options,
and how their outcomes become output and exit codes.

Takes argv; gives output and an exit code. It is the top floor: it may import every stage, and nothing
but ``__main__`` imports it. What one command needs is imported when that command runs (see
``tests/test_laziness.py``), so ``check`` on one file never loads the fix machinery, rich or torch.
"""
