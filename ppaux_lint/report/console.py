"""The one place rich consoles are made, so every command honours NO_COLOR the same way.

rich alone drops colours under NO_COLOR but keeps bold and other styles;
no-color.org asks for no ANSI styling at all, so we turn the colour system off.
"""

from __future__ import annotations

import os
from typing import Any

from rich.console import Console


def make_console(**options: Any) -> Console:
    if os.environ.get("NO_COLOR"):
        options["color_system"] = None
    return Console(**options)
