"""``summarize.key_tests``: which tests say a literal key is absent from ``tensors`` (or, all there, make it true).

Each case is a function whose last statement is ``if TEST: ...``; the answer is about that test. PPA014's own
tests (test_rules.py) show what the answers change for a finding, and that each was checked against SGLang."""

from __future__ import annotations

import ast
import textwrap

import pytest

from ppaux_lint.facts.summarize.key_tests import KeyTests


def keys_of(body: str, absent: bool = True) -> tuple[str, ...]:
    function = ast.parse(f"def f(self, tensors, flag=None):\n{textwrap.indent(textwrap.dedent(body), '    ')}").body[0]
    assert isinstance(function, ast.FunctionDef)
    test = function.body[-1].test  # type: ignore[attr-defined]
    tests = KeyTests(function, "tensors")
    return tests.absent(test) if absent else tests.present(test)


@pytest.mark.parametrize("body, absent, present", [
    ('if "a" not in tensors: pass', ("a",), ()),
    ('if "a" in tensors: pass', (), ("a",)),
    ('if "a" in tensors.keys(): pass', (), ("a",)),
    ('if "a" in other: pass', (), ()),
    ('if tensors.get("a") is None: pass', ("a",), ()),
    ('if tensors.get("a", None) is not None: pass', (), ("a",)),
    ('if tensors.get("a", 0) is None: pass', (), ()),  # a default that is not None
    ('if not tensors.get("a"): pass', (), ()),  # a tensor's truth is its value
    ('a = tensors.get("a")\nif a is None: pass', ("a",), ()),
    ('a = tensors.get("a")\nif a is not None: pass', (), ("a",)),
    ('a = tensors.get("a")\na = a or flag\nif a is None: pass', (), ()),  # bound twice
    ('a = tensors.get("a")\nfor a in flag: pass\nif a is None: pass', (), ()),  # a loop rebinds it
    ('flag = tensors.get("a")\nif flag is None: pass', (), ()),  # a parameter: it may hold None before
    ('a = tensors.get("a")\ndef g():\n    nonlocal a\n    a = None\nif a is None: pass', (), ()),
    ('if (a := tensors.get("a")) is None: pass', ("a",), ()),
    ('if not "a" in tensors: pass', ("a",), ()),
    ('if not ("a" in tensors and "b" in tensors): pass', ("a", "b"), ()),
    ('if "a" not in tensors or "b" not in tensors: pass', ("a", "b"), ()),
    ('if "a" not in tensors or flag: pass', (), ()),  # true without a missing key
    ('if "a" not in tensors and flag: pass', ("a",), ()),  # true only with it missing
    ('if "a" in tensors and "b" in tensors: pass', (), ("a", "b")),
    ('if "a" in tensors and flag: pass', (), ()),  # may be false with the key there
    ('if "a" in tensors or flag: pass', (), ("a",)),
    ('if any(k not in tensors for k in ("a", "b")): pass', ("a", "b"), ()),
    ('if all(k in tensors for k in ["a", "b"]): pass', (), ("a", "b")),
    ('if not all(k in tensors for k in ("a", "b")): pass', ("a", "b"), ()),
    ('if all(k in tensors for k in ("a", flag)): pass', (), ()),  # a key that is not a literal
    ('if all(k in tensors for k in ("a", "b") if k): pass', (), ()),  # a filter
    ('if all(j in tensors for k in ("a", "b")): pass', (), ()),  # not the loop's name
    ('if {"a", "b"} <= tensors.keys(): pass', (), ("a", "b")),
    ('if not tensors.keys() >= {"a"}: pass', ("a",), ()),
    ('if {"a", "b"} < tensors.keys(): pass', (), ()),  # a proper subset: may fail with both there
    ('if {"a", flag} <= tensors.keys(): pass', (), ()),
    ('if {"a"} <= tensors: pass', (), ()),  # a dict is no set of keys
])
def test_what_a_test_says_of_the_keys(body, absent, present):
    assert keys_of(body, absent=True) == absent
    assert keys_of(body, absent=False) == present


def _try(head: str, handler: str = "KeyError") -> list[tuple[tuple[str, ...], int]]:
    source = f"def f(self, tensors):\n    try:\n{textwrap.indent(head, '        ')}\n    except {handler}:\n        return None"
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    return [(keys, len(body)) for keys, body in KeyTests(function, "tensors").handled(function.body[0])]


@pytest.mark.parametrize("head, handler, keys", [
    ('a = tensors["a"]\nb = tensors["b"]', "KeyError", ("a", "b")),
    ('a = tensors["a"]', "(ValueError, LookupError)", ("a",)),
    ('a = tensors["a"]', "Exception", ("a",)),
    ('a = tensors["a"]', "ValueError", None),  # never catches a missing key
    ('a = tensors["a"]\nb = self.table["b"]', "KeyError", None),  # another mapping's key
    ('a = tensors["a"].float()', "KeyError", None),  # more than the read
    ('a, b = tensors["a"], tensors["b"]', "KeyError", ("a", "b")),
    ('a, b = tensors["a"], self.table["b"]', "KeyError", None),
    ('a, b = tensors["a"]', "KeyError", None),  # unpacking a tensor: a ValueError there is not a missing key
    ('self.a = tensors["a"]', "KeyError", None),
    ('a = tensors[flag]', "KeyError", None),
])
def test_a_handler_runs_only_when_a_read_key_is_missing(head, handler, keys):
    assert _try(head, handler) == ([] if keys is None else [(keys, 1)])


@pytest.mark.parametrize("chain", ["if", "elif"])
def test_thousands_of_key_tests_are_read_in_one_pass(monkeypatch, chain):
    """Each statement is visited a bounded number of times however many key tests come before it: a pass that walked
    what follows each test again took 5.8 s for 3,000 of them (0.2 s before the tests were read at all)."""
    from ppaux_lint.facts.summarize import returns as returns_module
    from ppaux_lint.facts.summarize.source import summarize_source

    visited = []
    real = returns_module.walk_statements

    def counted(nodes, into_scopes=False):
        for node in real(nodes, into_scopes):
            visited.append(node)
            yield node

    monkeypatch.setattr(returns_module, "walk_statements", counted)
    tests = 800
    lines = ["def helper(tensors):"]
    for i in range(tests):
        keyword = "elif" if chain == "elif" and i else "if"
        lines += [f'    {keyword} "k{i}" in tensors:', f"        return {i}"]
    lines.append("    return None")
    summary = summarize_source("\n".join(lines).encode(), "m.py", "m", False)
    (flow,) = [f for f in summary.flows if f.qualname == "helper"]
    assert len(visited) < 20 * tests, len(visited)
    # the nearest test before it: the last ``if``, or the chain's first (the return follows that statement)
    assert flow.absent == ((len(lines), (f"k{tests - 1}",) if chain == "if" else ("k0",)),)
