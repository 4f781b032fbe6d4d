"""The one place rich consoles are made, so every command honours NO_COLOR the same way.

rich alone drops colours under NO_COLOR but keeps bold and other styles;
no-color.org asks for no ANSI styling at all, so we turn the colour system off.

No console reads emoji codes: what ppaux-lint prints quotes class names, paths, reasons and exception
messages from the checked project, and a ``:smile:`` there must stay as written. Rich markup is the caller's
to avoid: text from outside goes in as ``rich.text.Text`` (or escaped), never as a markup string.
"""

from __future__ import annotations

import os
from typing import Any

from rich.console import Console


def make_console(**options: Any) -> Console:
    options.setdefault("emoji", False)
    if os.environ.get("NO_COLOR"):
        options["color_system"] = None
    return Console(**options)
