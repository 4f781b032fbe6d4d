"""ppaux-lint's stand-in for the ``sglang`` package, served only where SGLang is not installed (see
``ppaux_lint/runtime/stand_ins/__init__.py``): the protocol modules a plugin imports, and nothing else."""
