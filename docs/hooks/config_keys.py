"""The table of every configuration key in docs/configuration.md, printed from the parser's own list of keys.

``ppaux_lint.project.config`` reads ``[tool.ppaux-lint]`` through its ``Key`` entries (name, type, default,
meaning), so the table is made from them, as the rule pages are made from the rules: a key the parser gains
or loses changes the table. The table is kept in the page, between its two marker comments, so that the page
reads whole on GitHub too; ``python docs/hooks/config_keys.py`` rewrites it, and as a MkDocs hook this module
fails the build (and ``tests/test_manual.py`` fails) where the page's table is not the one the keys make.
"""

from __future__ import annotations

import re
from pathlib import Path

from ppaux_lint.project.config import KEYS, PROTOCOL_KEYS, VERIFY_KEYS

PAGE = "configuration.md"
PAGE_PATH = Path(__file__).resolve().parents[1] / PAGE
# What lies between these two lines is the generated table; the lines themselves stay.
SECTION = re.compile(r"(^<!-- config-keys: start\b.*-->\n)(.*?)(^<!-- config-keys: end -->$)",
                     re.MULTILINE | re.DOTALL)


def config_table() -> str:
    """Every key, the nested tables' as ``protocols.output``, with its type, default and meaning."""
    rows = ["| Key | Type | Default | Meaning |", "|---|---|---|---|"]
    for prefix, keys in (("", KEYS), ("protocols.", PROTOCOL_KEYS), ("verify.", VERIFY_KEYS)):
        for key in keys:
            cells = (f"`{prefix}{key.name}`", key.kind, key.default, key.meaning)
            rows.append("| " + " | ".join(cell.replace("|", r"\|") for cell in cells) + " |")
    return "\n".join(rows) + "\n"


def table_in(text: str) -> str | None:
    """The table between the page's markers, or None where the markers are missing."""
    found = SECTION.search(text)
    return None if found is None else found.group(2)


def with_table(text: str) -> str:
    """The page with the generated table between its markers."""
    return SECTION.sub(lambda found: found.group(1) + config_table() + found.group(3), text, count=1)


def on_page_markdown(markdown, page, config, files):
    """Refuse to build a manual whose table of keys is not the parser's."""
    if page.file.src_uri == PAGE and table_in(markdown) != config_table():
        from mkdocs.exceptions import PluginError

        raise PluginError(f"docs/{PAGE}'s table of keys is not the parser's: run python docs/hooks/config_keys.py")
    return markdown


if __name__ == "__main__":
    PAGE_PATH.write_text(with_table(PAGE_PATH.read_text(encoding="utf-8")), encoding="utf-8")
