"""A ``KeyError`` in ``from_pp_tensors`` names the class that read the key, where, and what was sent instead.

SGLang's pop strips ``__sampling_observer_output__.`` from every key before ``from_pp_tensors`` sees the dict,
so an observer that reads the prefixed key, or a name its output never sends, raises a bare ``KeyError``. The
row's words are built in the process that ran pop, so they must cross from the receiving rank (``dist``)
unchanged.
"""

from __future__ import annotations

import json

import pytest

from .conftest import plugin_module

pytest.importorskip("torch")

KEYS = plugin_module(
    "import torch",
    '''
    PREFIX = "__sampling_observer_output__."


    class KeepOutput:
        def __init__(self, keep, probs):
            self.keep = keep
            self.probs = probs

        @classmethod
        def ppaux_example(cls, device):
            return cls(torch.ones(2, device=device), torch.full((2,), 0.5, device=device))

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.keep)

        def to_pp_tensors(self):
            return {"keep": self.keep, "probs": self.probs}


    class PrefixedObserver:
        def from_pp_tensors(self, tensors):
            return KeepOutput(tensors[PREFIX + "keep"], tensors["probs"])


    class RenamedOutput(KeepOutput):
        pass


    class RenamedObserver:
        def from_pp_tensors(self, tensors):
            return RenamedOutput(tensors["keep"], _scores(tensors))


    def _scores(tensors):
        return tensors["scores"]


    _LABELS = {"keep": 0}


    class TableOutput(KeepOutput):
        pass


    class TableObserver:
        def from_pp_tensors(self, tensors):
            return TableOutput(tensors["keep"], tensors["probs"] * _label("vocab"))


    def _label(name):
        return _LABELS[name]
    ''',
)
PAIRS = '[tool.ppaux-lint.verify.pairs]\n"keys.m.KeepOutput" = "keys.m.PrefixedObserver"\n' \
        '"keys.m.RenamedOutput" = "keys.m.RenamedObserver"\n"keys.m.TableOutput" = "keys.m.TableObserver"\n'


@pytest.mark.parametrize("transport", ["local", "dist"])
def test_a_key_never_sent_is_named_with_its_reader_and_what_was_sent(project, run_cli, transport):
    project.package("keys", {"m": KEYS})
    project.write("pyproject.toml", '[project]\nname = "plugin"\nversion = "0"\n\n' + PAIRS)
    result = run_cli(str(project.root), "--device", "cpu", "--transport", transport, "--output-format", "json")
    rows = {row["symbol"]: row["message"] for row in json.loads(result.stdout)}
    source = project.root / "keys" / "m.py"
    lines = source.read_text().splitlines()
    prefixed = lines.index('        return KeepOutput(tensors[PREFIX + "keep"], tensors["probs"])') + 1
    renamed = lines.index('        return RenamedOutput(tensors["keep"], _scores(tensors))') + 1
    inner = lines.index('    return tensors["scores"]') + 1

    assert (f"KeyError: '__sampling_observer_output__.keep': keys.m.PrefixedObserver.from_pp_tensors read it at "
            f"{source}:{prefixed}, but that key was not sent: the output sent 'keep', 'probs' (SGLang's pop strips "
            "the prefix '__sampling_observer_output__.' before from_pp_tensors sees the keys: read 'keep')"
            ) in rows["keys.m.KeepOutput"]
    assert (f"KeyError: 'scores': keys.m.RenamedObserver.from_pp_tensors read it at {source}:{renamed} (in _scores at "
            f"{source}:{inner}), but that key was not sent: the output sent 'keep', 'probs'"
            ) in rows["keys.m.RenamedOutput"]
    # a KeyError from the observer's own table is no key that was not sent: the exception speaks for itself
    assert "KeyError: 'vocab'" in rows["keys.m.TableOutput"] and "not sent" not in rows["keys.m.TableOutput"]
    assert rows.keys() == {"keys.m.KeepOutput", "keys.m.RenamedOutput", "keys.m.TableOutput"}, rows
