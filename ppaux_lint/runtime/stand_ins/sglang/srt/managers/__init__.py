"""Part of ppaux-lint's stand-in for ``sglang`` (see ``ppaux_lint/runtime/stand_ins/__init__.py``)."""
