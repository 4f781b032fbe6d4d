"""A MkDocs hook: the manual's rule pages, made from the rule catalogue each time the site is built.

A rule's document (``ppaux_lint/rules/PPA001.md``) is the one place its text lives: ``ppaux-lint rule``
prints it, SARIF's rule help is read from it, and the tests run its examples. A copy under ``docs/`` would be
a second text to keep in step, so this hook adds one generated page per rule (``rules/PPA001.md``, the
document as it is), lists those pages under the nav's Rules section, and fills the rules index's table from
the catalogue. Adding a rule module and its document adds its page; mkdocs.yml never names a code.

MkDocs is imported only inside the hooks, so the tests can compare the pages with the catalogue without it.
"""

from __future__ import annotations

import re

from ppaux_lint.rules import all_rules, rule_document
from ppaux_lint.rules.base import NO_FIX

INDEX = "rules/index.md"
# The line of the index page that the table replaces: a comment, so the page reads well on GitHub too.
TABLE_MARKER = re.compile(r"^<!-- rules-table\b.*-->$", re.MULTILINE)


def rule_pages() -> dict[str, str]:
    """Each rule's page in the site (``rules/PPA001.md``), in code order, and its Markdown: the document."""
    return {f"rules/{rule.code}.md": rule_document(rule.code) for rule in all_rules()}


def rules_table() -> str:
    """The catalogue as a Markdown table: each rule's code (a link to its page), name, summary and fix."""
    rows = ["| Code | Name | Summary | Fix |", "|---|---|---|---|"]
    for rule in all_rules():
        fix = "" if rule.fix == NO_FIX else rule.fix
        summary = rule.summary.replace("|", r"\|")
        rows.append(f"| [{rule.code}]({rule.code}.md) | `{rule.name}` | {summary} | {fix} |")
    return "\n".join(rows) + "\n"


def on_config(config):
    """List every rule's page after the rules index, in the nav section that holds the index."""
    section = _section_holding(config.nav or [], INDEX)
    if section is None:
        _fail(f"mkdocs.yml's nav has no section that lists {INDEX}, so the rule pages have no place in it")
    section.extend({f"{rule.code} {rule.name}": f"rules/{rule.code}.md"} for rule in all_rules())
    return config


def on_files(files, config):
    """Add the rule pages; each page's edit link opens the document it was made from."""
    from mkdocs.structure.files import File

    for path, text in rule_pages().items():
        page = File.generated(config, path, content=text)
        page.edit_uri = f"../ppaux_lint/{path}"  # relative to edit_uri, which points into docs/
        files.append(page)
    return files


def on_page_markdown(markdown, page, config, files):
    """Put the catalogue's table in the rules index, where its marker comment stands."""
    if page.file.src_uri != INDEX:
        return markdown
    if not TABLE_MARKER.search(markdown):
        _fail(f"{INDEX} has lost its `<!-- rules-table ... -->` line, so the rules table has nowhere to go")
    return TABLE_MARKER.sub(lambda _: rules_table(), markdown, count=1)


def _section_holding(items: list, target: str) -> list | None:
    """The list in the nav (the top level or a section, at any depth) that holds ``target`` as an entry."""
    if target in items:
        return items
    for item in items:
        for value in item.values() if isinstance(item, dict) else ():
            if isinstance(value, list) and (found := _section_holding(value, target)) is not None:
                return found
    return None


def _fail(message: str):
    from mkdocs.exceptions import PluginError

    raise PluginError(message)
