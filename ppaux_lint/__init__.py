"""ppaux-lint: catch SGLang auxiliary outputs and observers that cannot cross a pipeline-parallel stage.

Importing this package is cheap on purpose: it must never import torch (only
``ppaux_lint.runtime`` does) and defers libcst until a file needs parsing.
"""

__version__ = "0.1.0"
