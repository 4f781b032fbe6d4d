"""``summarize.constructors``: what builds a class statement's instances, read once by the summarizer so that
planning a fix parses no file along the class's MRO again (``fixes/constructors.py`` reads these facts)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from ppaux_lint.facts.summarize.constructors import constructor_facts
from ppaux_lint.facts.summary import FieldFacts


def facts(source: str):
    text = textwrap.dedent(source)
    node = ast.parse(text).body[-1]
    assert isinstance(node, ast.ClassDef)
    return constructor_facts(node, text)


def test_init_parameters_defaults_annotations_and_stores() -> None:
    found = facts('''
        class C:
            def __init__(self): ...

            def __init__(self, a: "torch.Tensor", /, b: th.Tensor = None, *rest, c: "not valid (", d=1, **more):
                self.x = a
                self.y: int = b
                self.z = self.x
                other.w = c

            async def __init__(self): ...
    ''')
    init = found.init
    assert init is not None  # the last plain def: Python keeps the last binding of a name in a class body
    assert init.positional == ("self", "a", "b") and init.posonly == 2
    assert init.defaults == (True,) and init.kwonly == ("c", "d") and init.kw_defaults == ("", "other")
    assert init.annotations == (("a", "'torch.Tensor'", "torch.Tensor"), ("b", "th.Tensor", "th.Tensor"),
                                ("c", "'not valid ('", ""), ("d", "", ""))
    assert init.stores == (("x", "a"), ("y", "b"))
    assert init.variadic  # ``*rest`` and ``**more``: what they carry, a keyword rebuild does not pass back
    plain = facts("class C:\n    def __init__(self, a, *, b=1):\n        self.a = a\n").init
    assert plain is not None and not plain.variadic


def test_decorators_that_make_no_init() -> None:
    found = facts('''
        @dataclasses.dataclass(init=False, frozen=True)
        @attrs.define(init=flag)
        @other(init=True)
        class C:
            a: torch.Tensor
    ''')
    assert found.no_init == ("dataclasses.dataclass", "attrs.define")


def test_fields_and_decorators() -> None:
    found = facts('''
        @dataclasses.dataclass(frozen=True)
        @register
        @registry[0]
        class C(Base):
            a: torch.Tensor
            b: "torch.Tensor" = field(default=None, init=False)
            c: list = dataclasses.field(default_factory=list)
            d: ClassVar[int] = 0
            e: Optional[torch.Tensor] = None
            f: "a\\x00b" = make()
            g = 1
            if flag:
                h: int = 2
    ''')
    assert found.decorators == ("dataclasses.dataclass", "register", "")
    assert found.init is None
    assert found.fields == (
        FieldFacts("a", "torch.Tensor", "torch.Tensor", ""),
        FieldFacts("b", "'torch.Tensor'", "torch.Tensor", "call", callee="field", init_false=True,
                   keyword_default=True, keyword_none=True),
        FieldFacts("c", "list", "list", "call", callee="dataclasses.field", keyword_default=True),
        FieldFacts("d", "ClassVar[int]", "", "other"),
        FieldFacts("e", "Optional[torch.Tensor]", "", "none"),
        FieldFacts("f", "'a\\x00b'", "", "call", callee="make"),  # a NUL byte: no name, and no error
    )


def test_a_string_annotation_too_deep_for_the_parser_names_nothing_wherever_it_is() -> None:
    """The constructor facts and the methods' return types read string annotations through the one helper
    (``syntax.annotation_expression``): a string the parser cannot hold (a ``MemoryError`` for this one) names
    nothing, as a string with a syntax error does, instead of failing the whole file as an internal error."""
    from ppaux_lint.facts.summarize.source import summarize_source

    deep = "-" * 200_000 + "1"
    summary = summarize_source(textwrap.dedent(f'''
        import torch
        from dataclasses import dataclass

        @dataclass
        class C:
            x: "{deep}"
            y: torch.Tensor

            def __init__(self, a: "{deep}", b: torch.Tensor) -> "{deep}":
                self.a = a
    ''').encode(), "m.py", "m", False)
    assert summary.error is None
    (cls,) = summary.classes
    assert [(f.name, f.annotation_name) for f in cls.constructor.fields] == [("x", ""), ("y", "torch.Tensor")]
    assert [(name, named) for name, _, named in cls.constructor.init.annotations] == [("a", ""),
                                                                                        ("b", "torch.Tensor")]
    assert cls.method("__init__").return_type == ""


@pytest.mark.parametrize(("body", "altered"), [
    ("self.ids.add_(1)", ("ids",)),
    ("self.ids.add_ (1)", ("ids",)),
    ("torch.add(x, 1, out=self.ids)", ("ids",)),
    ("self.ids[0] = 0", ("ids",)),
    ("self.ids[0] += 1", ("ids",)),
    ("self.ids[0] //= 2", ("ids",)),
    ("self.ids[0] **= 2", ("ids",)),
    ("self.ids[0] >>= 1", ("ids",)),
    ("del self.ids[0]", ("ids",)),
    ("del(self.ids[0])", ("ids",)),
    ("setattr(self, 'ids', 0)", ("ids",)),
    ("self.__setattr__('ids', 0)", ("ids",)),
    ("delattr(self, name)", ("*",)),
    ("vars(self).update(x)", ("*",)),
    ("self.__dict__.update(x)", ("*",)),
    ("return dict(vars(self))", ()),
    ("return self.ids[0] == 0", ()),
    ("self.model = self.layout = self.about = 0", ()),
])
def test_what_the_methods_may_change_besides_plain_stores(body: str, altered: tuple[str, ...]) -> None:
    """Each form ``_alters`` reads is found whatever else the file holds (the file's text is searched for the
    forms before any class is walked: a form the search misses is an alteration the fix never sees)."""
    assert facts(f"""
        class Out:
            def touch(self, x):
                {body}
        """).alters == altered


@pytest.mark.parametrize(("body", "altered"), [
    ("t = ids\n    t += 1", ("ids",)),
    ("t = ids.view(-1)\n    t[0] = 0", ("ids",)),
    ("t = u = ids\n    u.add_(1)", ("ids",)),
    ("t = ids\n    u = t\n    u.add_(1)", ("ids",)),
    ("torch.Tensor.add_(ids, 1)", ("ids",)),
    ("ids.__iadd__(1)", ("ids",)),
    ("self.ids = ids\n    t = self.ids\n    t += 1", ("ids",)),
    ("n = ids.shape[0]\n    n += 1", ()),  # not a view of the tensor
    ("t = ids.clone()\n    t += 1", ()),
    ("self.buf.copy_(ids)", ()),  # ``ids`` is read, the buffer changed
])
def test_init_parameters_changed_through_an_alias(body: str, altered: tuple[str, ...]) -> None:
    """An ``__init__`` that changes a parameter's tensor through a local aliasing it stores a changed tensor: a
    rebuild that passes the sent one back would change it again (confirmed through SGLang 0.5.23's helpers: the
    fixed observer rebuilt ``ids + 2`` from the ``ids + 1`` sent), so the parameter is ``altered``."""
    init = facts(f"class Out:\n  def __init__(self, ids):\n    {body}\n").init
    assert init is not None and init.altered == altered
