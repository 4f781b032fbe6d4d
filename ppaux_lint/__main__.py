"""``python -m ppaux_lint``.

Python puts the working directory first on ``sys.path`` for ``-m``; in a checked
project that directory may hold a ``click.py`` or ``rich.py``, which the tool
would then import (and run) in place of its own dependencies. Drop it first,
as pylint does. (Nothing here can stop a ``ppaux_lint/`` in that directory: ``-m``
imports the package from there before this file runs; ``python -P -m`` or the
console script avoid it, docs/reliability.md.)
"""

import os
import sys

if sys.path and sys.path[0] in ("", os.getcwd()):
    sys.path.pop(0)

from ppaux_lint.cli.main import entry  # after the sys.path repair, on purpose

entry()
