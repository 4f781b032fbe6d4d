"""The manual (docs/, built with MkDocs) and the short README that leads into it.

The rule pages are generated from the rule catalogue by a MkDocs hook (docs/hooks/rule_pages.py), so these
tests hold the hook to the catalogue; the strict build catches a broken link or anchor inside the manual, and
the README's own links, which MkDocs never reads, are checked here.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

from ppaux_lint.cli.main import cli
from ppaux_lint.project.config import ConfigError, parse_config
from ppaux_lint.rules import all_rules, rule_document

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"


def docs_hook(name: str) -> ModuleType:
    """A hook as MkDocs loads it: a file of docs/hooks, not a module of any package."""
    spec = importlib.util.spec_from_file_location(name, REPO / "docs" / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rule_pages_hook() -> ModuleType:
    return docs_hook("rule_pages")


def test_every_rule_has_a_generated_page_that_is_its_document():
    pages = rule_pages_hook().rule_pages()
    assert list(pages) == [f"rules/{rule.code}.md" for rule in all_rules()]
    for rule in all_rules():
        assert pages[f"rules/{rule.code}.md"] == rule_document(rule.code)


def test_no_rule_page_is_kept_by_hand():
    """A rule's text lives in ppaux_lint/rules/ only; a page under docs/ would be a second copy that drifts."""
    assert sorted(path.name for path in (REPO / "docs" / "rules").iterdir()) == ["index.md"]


def test_the_rules_index_table_lists_the_catalogue():
    table = rule_pages_hook().rules_table()
    rows = re.findall(r"^\| \[(PPA\d{3})\]\((PPA\d{3})\.md\) \| `([^`]+)` \| (.+) \| (\w*) \|$", table, re.MULTILINE)
    assert [(code, name, summary, fix) for code, _, name, summary, fix in rows] == [
        (rule.code, rule.name, rule.summary, "" if rule.fix == "none" else rule.fix) for rule in all_rules()]
    assert all(code == target for code, target, *_ in rows)


def test_the_rules_index_has_the_line_the_table_replaces():
    text = (REPO / "docs" / "rules" / "index.md").read_text(encoding="utf-8")
    assert len(rule_pages_hook().TABLE_MARKER.findall(text)) == 1


def config_keys_hook() -> ModuleType:
    return docs_hook("config_keys")


def test_the_configuration_page_tables_every_key_the_parser_reads():
    """docs/configuration.md holds the table the parser's keys make (``python docs/hooks/config_keys.py``
    rewrites it), and its keys are exactly those the parser accepts: the ones an unknown key's error lists."""
    hook = config_keys_hook()
    page = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert hook.table_in(page) == hook.config_table()
    tabled = re.findall(r"^\| `([^`]+)` \|", hook.table_in(page), re.MULTILINE)
    accepted = []
    for prefix, table in (("", {"typo": 1}), ("protocols.", {"protocols": {"typo": 1}}),
                          ("verify.", {"verify": {"typo": 1}})):
        with pytest.raises(ConfigError, match=r"known keys: ") as error:
            parse_config(table, None)
        accepted += [prefix + key for key in str(error.value).rpartition("known keys: ")[2].rstrip(")").split(", ")]
    assert sorted(tabled) == sorted(accepted)


def test_the_readme_stays_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) < 250


def test_the_readme_s_links_resolve():
    """GitHub shows the README with relative links into docs/ and the package; MkDocs checks none of them."""
    text = README.read_text(encoding="utf-8")
    targets = [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", t)]
    assert any(t.startswith("docs/") for t in targets), targets
    missing = [t for t in targets if not (REPO / t.partition("#")[0]).exists()]
    assert missing == []


def test_the_readme_s_check_example(monkeypatch):
    """The README's example of `check` prints what the README shows."""
    monkeypatch.chdir(REPO)
    block = re.search(r"```console\n\$ (ppaux-lint check [^\n]*--output-format concise[^\n]*)\n(.*?)```",
                      README.read_text(encoding="utf-8"), re.DOTALL)
    result = CliRunner().invoke(cli, ["check", "--no-cache", *block.group(1).split()[2:]])
    assert result.exit_code == 1
    assert result.stdout == block.group(2)


def test_the_manual_builds_strictly_with_a_page_per_rule(tmp_path):
    pytest.importorskip("mkdocs", reason="MkDocs is not installed (the dev extra installs it)")
    pytest.importorskip("material", reason="mkdocs-material is not installed (the dev extra installs it)")
    site = tmp_path / "site"
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                           cwd=REPO, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    for rule in all_rules():
        page = (site / "rules" / rule.code / "index.html").read_text(encoding="utf-8")
        assert rule.name in page
    index = (site / "rules" / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{rule.code}/"' in index for rule in all_rules())
    published_as_the_project_s_pages(site)


def published_as_the_project_s_pages(site: Path) -> None:
    """The site as GitHub Pages serves it, under a sub-path (``https://owner.github.io/ppaux-lint/``): the sitemap
    lists every page at its address, the 404 page (served for any missing address, at any depth) links
    nowhere relatively, and no page loads web fonts, without which offline the box-drawing of the quoted
    tables lost its alignment."""
    homepage = re.search(r'^Homepage = "https://github\.com/([^/"]+)/([^/"]+)"$',
                         (REPO / "pyproject.toml").read_text(encoding="utf-8"), re.MULTILINE)
    site_url = f"https://{homepage.group(1)}.github.io/{homepage.group(2)}/"
    pages = sorted(page.parent.relative_to(site).as_posix() for page in site.rglob("index.html")
                   if page.parent.name != "search")
    addresses = re.findall(r"<loc>([^<]*)</loc>", (site / "sitemap.xml").read_text(encoding="utf-8"))
    assert sorted(addresses) == sorted(site_url + ("" if page == "." else page + "/") for page in pages)
    links = re.findall(r'(?:href|src)="([^"]*)"', (site / "404.html").read_text(encoding="utf-8"))
    sub_path = f"/{homepage.group(2)}/"
    assert links and [link for link in links if not link.startswith(("https://", "#", sub_path))] == []
    loading_fonts = [page.name for page in site.rglob("*") if page.suffix in (".html", ".css", ".js")
                     and re.search(r"fonts\.(googleapis|gstatic)\.com", page.read_text(encoding="utf-8"))]
    assert loading_fonts == []


def test_the_readme_names_every_command_ci_runs():
    """The README says what ``.ci/run`` runs after installing; it once said "exactly this" (the test command) while
    the script also ran ruff, lint-imports and the manual's build. Each command is named by its words up to the
    first long option (``mkdocs build --strict``'s ``--site-dir`` is the script's own business)."""
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    after_install = script.rpartition("pip install")[2].partition("\n")[2]
    commands = [line.partition("#")[0].split() for line in after_install.splitlines()]
    named = [" ".join(words[:next((i for i, w in enumerate(words) if w.startswith("--")), len(words))])
             for words in commands if words]
    assert "python -m pytest" in named
    paragraph = next(p for p in README.read_text(encoding="utf-8").split("\n\n") if p.startswith("`.ci/run`"))
    assert [command for command in named if f"`{command}" not in paragraph] == []


NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_the_quick_start_s_check_gives_what_the_page_quotes(page, monkeypatch):
    """The first command a newcomer runs: its exit code, its count of findings in words, the finding the page
    shows whole (a run of the output) and its closing lines (the output's end) are the tool's."""
    monkeypatch.chdir(REPO)
    text = (REPO / page).read_text(encoding="utf-8")
    command = re.search(r"^\$ pip install -e \. && (ppaux-lint check [^\n]*)$", text, re.MULTILINE).group(1)
    said = re.search(r"It exits (\d) with (\w+) findings.*?```text\n(.*?)\n\.\.\.\n(.*?)```", text, re.DOTALL)
    result = CliRunner().invoke(cli, ["check", "--no-cache", *command.split()[2:]])
    assert result.exit_code == int(said.group(1))
    assert f"Found {NUMBERS.index(said.group(2))} errors." in result.stdout
    assert said.group(3) + "\n" in result.stdout
    assert result.stdout.endswith(said.group(4))


def quoted_verify_runs() -> list[tuple[str, str, str]]:
    """Each ``ppaux-lint verify`` of a bundled fixture that the README or docs/verify.md quote: the page, the
    command and what the page shows it printing."""
    runs = []
    for page in ("README.md", "docs/verify.md"):
        text = (REPO / page).read_text(encoding="utf-8")
        for command, shown in re.findall(r"^\$ (ppaux-lint verify fixtures/[^\n]*)\n(.*?)(?=^\$ |^```)", text,
                                         re.MULTILINE | re.DOTALL):
            runs.append((page, command, shown))
    return runs


@pytest.mark.slow
@pytest.mark.parametrize(("page", "command", "shown"), quoted_verify_runs(),
                         ids=lambda value: value if "\n" not in value else "")
def test_the_quoted_verify_runs_end_as_the_pages_say(page, command, shown):
    """The counts under a quoted verify table ("24 classes verified: 10 pass, 12 fail ...") and the line after
    them are the run's own."""
    pytest.importorskip("torch")
    done = subprocess.run([sys.executable, "-m", "ppaux_lint", *command.split()[1:]], cwd=REPO, capture_output=True,
                          text=True, timeout=300, check=False, env={**os.environ, "COLUMNS": "300"})
    assert done.stdout.splitlines()[-2:] == shown.strip().splitlines()[-2:], done.stderr
