"""The per-file summary: everything the project-wide analysis needs to know about one file.

Summaries are the unit of caching and of parallelism. They are frozen, made
only of tuples, strings, ints and bools (so they pickle small and compare by
value), and never refer to another file: cross-file meaning is the index's job.
Rules must be answerable from summaries alone, never from a syntax tree.

Each class's docstring names the module of ``ppaux_lint/facts/summarize/`` that
produces it, which is where to look for exactly what a fact does and does not
cover.
"""

from __future__ import annotations

from dataclasses import field, replace

from ppaux_lint.facts.spans import Span
from ppaux_lint.support.records import dataclass

SUMMARY_FORMAT = 35  # 35: ``FunctionFlow.hands``/``absent`` for the first parameter only (34: ``hands``)
# 27: ``InitFacts.altered`` through aliases (``t = ids; t += 1``); 26: the binding
# "partial:N:names" (``functools.partial(f, x, k=v)``)
# 25: "call" edits in functions and in other arguments (``LATER``), loose edits, ``alters``
# read in a file that holds only ``del(``; 24: ``ClassSummary.made``, calls inside module-level expressions,
# ``Import.certain``,
# ``ConstructorFacts.alters``, ``InitFacts.altered`` and ``declared``; 23: ``FunctionFlow.wraps``; 22: an
# empty-tensors guard after the mapping is handed on; 21: ``FunctionFlow.rewraps``; 20: ``up`` through any method;
# 19: ``MemberAssign.binding``
"""Bumped whenever a field changes meaning, so stale cache entries are never read."""


@dataclass(frozen=True)
class Import:
    """One name bound by an import statement in a module's namespace.

    ``local`` is the bound name; ``target`` the absolute dotted name it refers
    to. ``import a.b`` binds ``a`` to ``a``; ``import a.b as m`` binds ``m`` to
    ``a.b``; ``from x import Y as Z`` binds ``Z`` to ``x.Y``. Relative imports
    are already made absolute. ``star`` marks ``from x import *`` (local is "*").
    Produced by ``summarize.imports``.
    """

    local: str
    target: str
    star: bool = False
    nested: bool = False  # made inside a function or class body rather than at module level
    certain: bool = True  # a star import at the module's top level, which certainly runs (not under an ``if``,
    # in a ``try``, a loop): of two stars that bind a name, the later such one holds it


@dataclass(frozen=True)
class KeyFact:
    """A key of a dict literal returned by ``to_pp_tensors``, or of a dict it builds step by step.

    kind: "str" (a non-empty string literal, in ``value``), "empty" (""),
    "nonstr" (a literal that is not a string: number, None, tuple, ...; its
    source in ``value``), or "dynamic" (anything the analysis cannot see through).
    A "dynamic" key that Python computes from constants alone (names the method does not bind, string
    literals, f-strings and ``+`` of them: ``K_ACCEPTED``, ``keys.TOP1``, ``f"{_NS}.top1"``) is ``computed``,
    its source in ``value``, for the index to resolve across files (``index.constants``).
    Produced by ``summarize.values`` for ``returns`` and ``built``; ``summarize.key_reads`` makes the same
    facts (never "nonstr") for the keys a method reads from the mapping it receives.
    """

    kind: str
    value: str
    span: Span
    computed: bool = False
    read: str = ""  # for a key read (``key_reads``), what a missing key does: "" raises KeyError (``t["k"]``,
    # ``t.pop("k")``), "get" gives a default (``.get``, ``.pop("k", d)``), "caught" raises into a ``try`` whose
    # handler catches it (or a ``suppress``), "reraised" into one whose handler raises again, "guarded" is never
    # read (under ``if "k" in t``), "in" makes a membership test false


@dataclass(frozen=True)
class ValueFact:
    """A value of a returned dict literal. ``not_tensor`` names why it is certainly not a tensor, or is "".

    When that takes more than the expression (what a name denotes, what a field is declared as), the rule
    reads ``call``, the dotted callee as written when the value is a call (``np.zeros``), and ``attribute``,
    the name of ``self.<attribute>`` when the value is an attribute of the method's receiver.
    Produced by ``summarize.values`` for ``returns`` and ``built``, which also judges ``not_tensor``; ``built`` sets
    ``attribute`` for ``getattr(self, "<attribute>")`` too.
    """

    key: KeyFact
    not_tensor: str
    span: Span
    call: str = ""
    attribute: str = ""


@dataclass(frozen=True)
class ReturnFact:
    """One way a method returns.

    kind:
      "none"      ``return None``, a bare ``return``, or falling off the end;
      "dict"      a dict literal or ``dict(k=v)`` call (``items``; ``exact`` is
                  False when it has ``**`` spreads or comprehension parts), or a local
                  dict built step by step and returned (``built``: ``summarize.built``
                  says what its items and ``exact`` then mean; a key may come once per
                  value it may hold);
      "sequence"  a list, tuple or set display or comprehension, or a generator
                  expression (``container``: "list", "tuple", "set" or "generator");
      "construct" a call of a name (``constructs`` holds the dotted callee as written);
      "other"     anything else.
    ``empty`` marks a "sequence" display with no element, or a "construct" call with no argument
    (``set()``). ``implicit`` marks falling off the end of the body. A conditional expression
    (``a if c else b``) gives one fact per branch, each with its branch's span, so one ``return``
    statement may have several; so do ``a or b`` and ``a and b``, one per operand that can be the result.
    ``when`` says when that is: "truthy" for a value returned only when it is truthy (every operand of
    ``or`` but the last), "falsy" for one returned only when it is falsy (of ``and``), "" always. The last
    operand's ``after`` holds the operator and the operands before it as written (("or", "self._live()"): it is
    returned whenever those are falsy; after ``and``, truthy), for the messages; () otherwise.
    Produced by ``summarize.returns``; whether the body can fall off its end is ``summarize.flow``'s answer.
    """

    kind: str
    span: Span
    items: tuple[ValueFact, ...] = ()
    exact: bool = True
    constructs: str = ""
    implicit: bool = False
    container: str = ""
    empty: bool = False
    built: bool = False
    when: str = ""
    after: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()  # for an implicit fact: the callees of the call statements every path falling off
    # the end ends with (``summarize.flow.trailing_calls``): if none of them returns, neither does the body
    argument: str = ""  # of a "construct": the dotted source of its one argument, when it has just one
    # (``dataclasses.asdict(self)``: "self")
    empty_input: bool = False  # of ``from_pp_tensors``: under a test that its tensors are empty or None
    # (``if not tensors: return None``), which the helper never calls it with (``summarize.returns``)
    always: tuple[str, ...] = ()  # of a "dict" built step by step: the literal str keys every path to this return puts
    # there and none takes out (``summarize.built``), where ``items`` names every key some path puts there
    absent_keys: tuple[str, ...] = ()  # of a None that ``from_pp_tensors`` returns: literal keys one of which is absent
    # from its tensors whenever it is returned (``if "ids" not in tensors: return None``, ``... if "ids" in tensors else
    # None``, the ``else`` of ``if "ids" in tensors:`` or after one that returns, falling off the end after one, the
    # ``KeyError`` of ``tensors["ids"]`` caught: ``summarize.key_tests``), never taken when the output always sends
    # them all (``summarize.returns``)
    hands_over: bool = False  # of a "construct" that ``from_pp_tensors`` returns: its one argument is the tensors as
    # the helper handed them over (the method neither rebinds nor empties them, nor hands them to anything else
    # first), so a helper it calls sees every key that arrived (``summarize.returns``)


@dataclass(frozen=True)
class Param:
    """One parameter of a method's signature (``summarize.methods``)."""

    name: str
    kind: str  # "posonly", "pos", "vararg", "kwonly", "varkw"
    has_default: bool
    annotation: str = ""


@dataclass(frozen=True)
class MethodSummary:
    """A method's signature; for the methods rules read (the transport methods, their near misses and
    ``after_sample``) also its returns, generator-ness and key reads, which are empty for the rest.

    Produced by ``summarize.methods``; returns and generator-ness by ``summarize.returns``, key reads by
    ``summarize.key_reads``.
    """

    name: str
    span: Span  # the ``def`` name
    is_async: bool
    is_generator: bool
    decorators: tuple[str, ...]  # dotted names as written, e.g. "staticmethod", "functools.cached_property"
    params: tuple[Param, ...]
    return_annotation: str  # source text, "" when absent
    returns: tuple[ReturnFact, ...]
    keys_read: tuple[KeyFact, ...] = ()  # keys read from the first real parameter: p["k"], p.get("k"), p.pop("k")
    keys_read_exact: bool = True  # False when the parameter escapes or is iterated, so unread keys are unknown
    body_is_stub: bool = False  # body is only ``...``/``pass``/a docstring/raise NotImplementedError
    return_type: str = ""  # dotted class named by the return annotation, Optional/None stripped
    return_optional: bool = False  # the annotation admits None (Optional[X], X | None, None)
    return_annotation_span: Span | None = None
    parts: tuple[tuple[str, str, int], ...] = ()  # for ``to_pp_tensors``: (``self.<attr>...``, how it is used, the
    # line), by ``summarize.parts``: "returned", "merged", "renamed" (its ``to_pp_tensors()`` is called), "read", "sent"
    up: str = ""  # for ``to_pp_tensors``: how it uses the one above it along the MRO (``super().to_pp_tensors()``):
    # "returned", "merged" or "renamed" as for ``parts``, "" when it calls none (``summarize.parts``)

    @property
    def receiver(self) -> str:
        """The parameter a call such as ``self._pack()`` goes through: the first positional one, "" for a
        staticmethod (what a method returns the call of is followed through it: ``rules/sent.expanded``)."""
        positional = [p for p in self.params if p.kind in ("posonly", "pos")]
        return positional[0].name if positional and "staticmethod" not in self.decorators else ""

    def bound_as(self, binding: str) -> MethodSummary:
        """The method as a class attribute holding it wrapped (``syntax.unwrapped``) binds it: as ``staticmethod`` or
        ``classmethod`` decorates it; ``partial:N:a,b`` (``functools.partial(f, x, a=1, b=2)``, which binds no
        instance) as a staticmethod whose first ``N`` positional parameters and those named are given already."""
        if not binding.startswith("partial:"):
            return replace(self, decorators=(binding, *self.decorators))
        _, given, named = binding.split(":")
        skip, names, params = int(given), set(named.split(",")), []
        for param in self.params:
            if param.kind in ("posonly", "pos") and skip:
                skip -= 1
            else:
                params.append(replace(param, has_default=True) if param.name in names else param)
        return replace(self, decorators=("staticmethod", *self.decorators), params=tuple(params))


@dataclass(frozen=True)
class MemberAssign:
    """A class attribute bound by assignment, e.g. ``to_pp_tensors = _helper`` or ``= None``.

    value: "none" for ``None``; otherwise the dotted source of the value
    (``_helper``), or "" when it is some other expression. ``binding`` is "staticmethod" or "classmethod" for
    ``staticmethod(_helper)`` or ``classmethod(_helper)`` (``value`` is then the function's), and "staticmethod"
    for ``functools.partial(_helper)`` too, which no instance binds. Produced by ``summarize.classes``.
    """

    name: str
    value: str
    span: Span
    binding: str = ""


@dataclass(frozen=True)
class Field:
    """A class-level annotated attribute (a dataclass field candidate), from ``summarize.classes``."""

    name: str
    annotation: str
    has_default: bool


@dataclass(frozen=True)
class Decorator:
    """A decorator of a class statement as written (``summarize.classes``): the dotted name of what it names
    (of the callee when it is a call: ``pp_fields`` in ``@pp_fields("a")``, "" when it is neither), whether it
    is a call (``called``: the class goes to what the call returns, a factory's result) and its line."""

    name: str
    called: bool
    line: int


@dataclass(frozen=True)
class InitFacts:
    """A class's own ``__init__`` (the first plain ``def`` of that name in its body) as a generated method relies on
    it (``fixes/constructors.py``), from ``summarize.constructors``: its parameters as written, and what its body
    stores from them."""

    positional: tuple[str, ...]  # positional-only then positional parameters, ``self`` included
    posonly: int  # how many of ``positional`` are positional-only
    defaults: tuple[bool, ...]  # for each default of ``positional`` (the last ones), whether it is ``None``
    kwonly: tuple[str, ...]
    kw_defaults: tuple[str, ...]  # for each of ``kwonly``: "" no default, "none" ``None``, "other"
    annotations: tuple[tuple[str, str, str], ...]  # (parameter, annotation as written, the dotted name it names
    # (a string annotation's too), "" when none) for each parameter but ``self``, annotated or not
    stores: tuple[tuple[str, str], ...]  # (attribute, parameter) of each ``self.<attribute> = <parameter>``
    variadic: bool = False  # it takes ``*args`` or ``**kwargs``: what they carry no keyword rebuild passes back
    altered: tuple[str, ...] = ()  # parameters the body rebinds (``ids = ids + 1``) or changes in place
    # (``ids.add_(1)``, ``ids[0] = 0``, ``out=ids``): an attribute stored from one may not hold what was passed
    declared: tuple[tuple[str, str], ...] = ()  # (attribute, annotation as written) of each ``self.<attribute>: T
    # = ...`` anywhere in the body: one that may hold a tensor and is not stored from a parameter stays home


@dataclass(frozen=True)
class FieldFacts:
    """An annotated name in a class body, as ``dataclasses`` would make a field of it (``summarize.constructors``)."""

    name: str
    annotation: str  # as written
    annotation_name: str  # the dotted name it names (a string annotation's too), "" when none
    value: str  # "" none, "call" a call (``field(...)``?), "none" the literal ``None``, "other"
    callee: str = ""  # the dotted name a "call" calls ("" when it is no plain name)
    init_false: bool = False  # the call says ``init=False``
    keyword_default: bool = False  # the call gives ``default`` or ``default_factory``
    keyword_none: bool = False  # the call gives ``default=None``


@dataclass(frozen=True)
class ConstructorFacts:
    """What builds a class statement's instances, as far as a generated method may rely on it
    (``fixes/constructors.py``), from ``summarize.constructors``: read here once, so that planning a fix parses no
    file along the class's MRO again."""

    decorators: tuple[str, ...]  # the dotted name of each decorator (a call's callee), "" when it is no plain name
    init: InitFacts | None  # None: the body defines no ``__init__``
    fields: tuple[FieldFacts, ...]  # the body's annotated names, in order
    no_init: tuple[str, ...] = ()  # the decorators called with ``init=`` anything but ``True``
    # (``@dataclass(init=False)`` makes no ``__init__``)
    alters: tuple[str, ...] = ()  # attributes the body's methods may change in ways ``ClassSummary.stores`` does
    # not show (``object.__setattr__(self, "ids", ...)``, ``self.ids.add_(1)``, ``self.ids[0] = 0``, ``out=self.ids``),
    # "*" for any (``vars(self).update(...)``, ``setattr(self, name, ...)``), sorted


@dataclass(frozen=True)
class ClassSummary:
    """A class statement at any depth, with its namespace as written (``summarize.classes``); or a class made by a
    ``type(name, bases, namespace)`` call (``made_by`` "type", ``summarize.namespaces``), its members read from
    the namespace's dict literal."""

    name: str
    qualname: str  # dotted path inside the module, e.g. "Outer.Inner" or "make.<locals>.C"
    span: Span  # the class name
    class_line: int  # line of the ``class`` keyword, where a noqa comment is read
    bases: tuple[str, ...]  # dotted source of each base, subscripts stripped ("m.X", "Generic")
    decorators: tuple[str, ...]
    methods: tuple[MethodSummary, ...]
    assigns: tuple[MemberAssign, ...]
    fields: tuple[Field, ...] = ()
    metaclass: str = ""  # the dotted ``metaclass=`` keyword as written, "" when absent
    init_fields: tuple[Field, ...] = ()  # ``self.<name>`` that only ``__init__`` stores, with the annotation it
    # is stored from: its parameter's (``self.lengths = lengths``) or its own (``self.lengths: T = ...``)
    decorations: tuple[Decorator, ...] = ()  # the decorators as written, top first (``decorators`` without calls)
    made_by: str = ""  # "type", "make_dataclass" or "new_class" for a call that makes it, "" for a class statement
    opaque: str = ""  # why its namespace as written cannot be read whole (``type(name, bases, ns)``, ``vars()``), or ""
    opaque_line: int = 0  # the line of what makes it so in a class body (``vars().update(...)``); 0 otherwise
    base_args: tuple[tuple[str, ...], ...] = ()  # the type arguments of each base as written, in the order of
    # ``bases`` (``Stat[float]``: ("float",); unsubscripted: ()); () when no base is subscripted
    type_params: tuple[str, ...] = ()  # the names of ``class C[T, U]:`` (PEP 695)
    constructor: ConstructorFacts | None = None  # a class statement's (``summarize.constructors``); None for ``type()``
    stores: tuple[str, ...] = ()  # the attributes its methods store on the instance (``__init__`` from something else
    # than a parameter as it is) or a ``converter=`` makes, sorted (``summarize.classes``)
    unread: tuple[tuple[str, str, int], ...] = ()  # (name, what binds it, line): looked-up names its body or its
    # instances get in a form ``methods`` and ``assigns`` do not read (``summarize.unread_members``)
    made: tuple[tuple[str, str, int, bool], ...] = ()  # (name, callee as written, line, under a condition): members
    # whose value a call makes (``ids = PPField()``); were the callee a class with ``__set_name__``, that runs on this
    # class as it is made

    def method(self, name: str) -> MethodSummary | None:
        for m in self.methods:
            if m.name == name:
                return m
        return None

    def assign(self, name: str) -> MemberAssign | None:
        for a in self.assigns:
            if a.name == name:
                return a
        return None


GLOBALS = "globals()"
"""The ``target`` of a ``NamespaceEdit`` made through ``globals()[name]`` (directly or through a local bound to
it): some class of the edit's own module, which one known only at run time."""


LATER = "later"
"""The ``value`` of a "call" ``NamespaceEdit`` whose class is not the first argument (``install(fn, Out)``,
``enable_pp((A, B))``): the callee's edits are read for its first parameter, so what it does to the class is not
known."""


@dataclass(frozen=True)
class NamespaceEdit:
    """A statement outside a class's body that changes what a class's namespace holds (``summarize.namespaces``):
    ``Out.to_pp_tensors = fn``, ``setattr(Out, "to_pp_tensors", fn)``, ``del Out.x``, and in a function that
    takes a class (``ClassEditor``) the same done to its parameter (``cls.to_pp_tensors = to_pp_tensors``).

    ``target`` is the class as written (``Out``, ``mod.Out``; a loop over a literal tuple of classes gives one
    edit per class), or the parameter's name in a ``ClassEditor``. ``kind`` is "set", "delete", "call" (the class
    is handed to the function ``how`` names, which may edit it: first, or where ``value`` is ``LATER`` in another
    argument; in a function where ``scope`` says so), "decorate" (``Out =
    deco(Out)`` or ``Out = factory(...)(Out)`` at module level: ``how`` is ``deco`` or ``factory()``) or "opaque": the
    code changes the namespace in a way the analysis cannot read (``how`` says which: ``setattr`` with a
    computed name, ``vars(Out).update``, ``Out.__dict__``), and ``name`` is then "". For "set", ``value`` is
    "none" for ``None``, the dotted source of a name (``_to_pp``, ``helpers.pack``), or "" for any other
    expression; ``function`` is the qualname, in this module, of the ``def`` (or ``lambda``, named
    ``<lambda>@line:column``) the value is, whose ``FunctionSummary`` the file holds. ``scope`` is the qualname
    of the enclosing function ("" at module level) and ``conditional`` says that the statement is under an
    ``if``, ``try``, ``while``, ``match`` or a loop over something else than a literal tuple or list, so it may
    not run.
    """

    target: str
    name: str
    kind: str
    span: Span
    value: str = ""
    function: str = ""
    scope: str = ""
    conditional: bool = False
    how: str = ""


@dataclass(frozen=True)
class Escape:
    """A ``ClassEditor``'s class handed to a call as an argument (``register(cls)``, ``REGISTRY.append(cls)``): the
    callee as written and the line (``summarize.namespaces``). A method of the function's own parameters or
    locals (``self._classes.append(cls)``) is bookkeeping, and not recorded."""

    callee: str
    line: int
    first: bool  # the class is the first positional argument, as a decorator receives it


@dataclass(frozen=True)
class ClassEditor:
    """A function that may be handed a class and change it: what a class decorator, a decorator factory's inner
    function, a helper a decorator calls, or an ``__init_subclass__`` does to the class it receives
    (``summarize.namespaces``).

    ``param`` is the parameter the class arrives in (the first positional one; after ``self`` for a method,
    ``cls`` for ``__init_subclass__``; "" for a decorator factory that takes none, ``pp_fields(*names)``).
    ``edits`` are what the body does to it (their ``target`` is ``param``),
    ``escapes`` where the body passes it on, and ``returns`` what each ``return`` gives back: "param" (the class
    itself), "def:<qualname>" (a function defined in it: a factory's decorator), "class:<qualname>" (a class
    defined in it, a ``class`` statement or a ``type(...)`` call, usually one built on the parameter),
    "call:<dotted>" (``return dataclass(cls)``), "none" (``return None`` or falling off the end) or "other".
    Recorded only for functions that return their parameter, a function or class of their own, a call on the
    parameter, or that change the parameter: any other function hands back something that is not the class.
    """

    qualname: str
    param: str
    line: int
    edits: tuple[NamespaceEdit, ...] = ()
    escapes: tuple[Escape, ...] = ()
    returns: tuple[str, ...] = ()


@dataclass(frozen=True)
class FunctionSummary:
    """A function that is no method where it is written but may become one, summarized as a method is (returns,
    key reads): one that takes ``self`` first, is named like a transport method or hook, or that this file binds
    into a class (``Out.to_pp_tensors = fn``, ``to_pp_tensors = fn`` in a class body, a ``type(...)`` namespace);
    and each ``lambda`` so bound, named ``<lambda>@line:column``. ``qualname`` is its path in the module
    (``summarize.namespaces``)."""

    qualname: str
    method: MethodSummary


@dataclass(frozen=True)
class CallSite:
    """A call of a function named ``callee`` (dotted, as written) with what each argument is.

    Each argument is described by a kind: "none" for None, "construct:<dotted>"
    for a call of a name, "name:<dotted>" for a name that the module binds by
    ``def``, ``class`` or ``import`` (or does not bind at all), "*" for a
    ``*args`` (``keywords``: "**" for a ``**kwargs``), or "" for anything else. A
    local bound exactly once, before the call, counts as what it was bound to
    (``observer = None``). ``arg_kinds`` are the positional arguments in order,
    ``keywords`` (name, kind) the keyword ones. Produced by ``summarize.calls``,
    with ``summarize.frames``.
    """

    callee: str
    span: Span
    arg_kinds: tuple[str, ...]
    scope: str = ""  # qualname of the enclosing function/class ("" at module level)
    keywords: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Handoff:
    """A newly constructed object handed to a call: ``Obs(Out())``, ``Obs(out)`` after ``out = Out()`` in the
    same function, or ``Result(forward_auxiliary_output=Out())``.

    ``callee`` and ``constructs`` are dotted names as written; ``keyword`` is "" for a positional argument,
    whose index among the positional arguments is ``position``. It is how an output reaches a forward observer
    that returns what it was given (``return self.output``), and how the inference learns what a constructor's
    parameter holds (``Bundle(TopK(...))``). ``functools.partial`` binds a constructor or hands one over:
    ``partial(Obs, Out())`` is a handoff to ``Obs``, ``Obs(partial(Out, x)())`` one of an ``Out``; ``through``
    is then the partial's callee as written, which the index must resolve to ``functools.partial``.
    Produced by ``summarize.handoffs``, only for files that mention observers or transport methods at all.
    """

    callee: str
    constructs: str
    keyword: str
    scope: str = ""  # qualname of the enclosing function/class ("" at module level)
    position: int = -1
    through: str = ""


@dataclass(frozen=True)
class PrefixUse:
    """A key that starts with the transport key prefix, in a subscript, ``.get``/``.pop`` or ``in`` test.

    The prefix is written in the key (``"__sampling_observer_output__.x"``, ``f"...{name}"``), or comes
    ``through`` a name of this module bound once to it (``_PREFIX + name``), or may come from ``constant``,
    another module's name spelled as a helper module spells its prefix constant (``_OUTPUT_PREFIX``), which
    the rule resolves in ``scope``. Produced by ``summarize.calls``, in the same scan of expressions as the
    helper calls.
    """

    span: Span
    how: str
    through: str = ""
    constant: str = ""
    scope: str = ""  # qualname of the enclosing function/class ("" at module level)


Expr = str
"""What an expression is, as far as its syntax shows, for the inference (``inference.py``), kept as the Python
source of a simplified expression: names, attribute chains, ``None``, calls with at most their first argument
(``self._build()``, ``Capture.from_rows()``, ``dataclasses.replace(self._template)``), and ``...`` (``(...)``
inside another) for anything else. Text rather than nested tuples: a summary holds one per return, local and
store of every function of the file, and a string is a sixth of the memory. Produced by
``summarize.flows``; read back by ``inference.parse_expr``."""


@dataclass(frozen=True)
class FunctionFlow:
    """What a function or method can hand back, and what it binds on the way (``summarize.flows``).

    ``qualname`` is the definition's path in its module (``make``, ``Obs.after_sample``, ``f.<locals>.g``);
    the module body itself is the flow with qualname "" (its ``locals`` only: names bound to a call).
    ``returns`` holds one ``Expr`` per value a ``return`` can give (a conditional expression or ``a or b``
    gives one per branch), and ``None`` for falling off the end. ``locals`` are the function's
    names with every value assigned to them (``...`` for a binding the syntax does not show, such as a
    ``for`` target), kept only when a return or a store can read them; ``stores`` the values assigned to
    ``<receiver>.attr``. ``params`` are (name, the class its annotation names, or "") for the parameters
    a return, a local or a store reads; ``receiver`` is the first parameter's name for a method ("" otherwise);
    ``binding`` is "method", "classmethod", "staticmethod", "property" or "function". A generator or a
    coroutine hands back neither of its returns: ``opaque`` says so. ``lines`` holds the line of each return's
    statement, in the order of ``returns``; falling off the end has the ``def``'s line, negated.
    """

    qualname: str
    returns: tuple[Expr, ...] = ()
    locals: tuple[tuple[str, tuple[Expr, ...]], ...] = ()
    stores: tuple[tuple[str, Expr], ...] = ()
    params: tuple[tuple[str, str], ...] = ()
    receiver: str = ""
    binding: str = "function"
    return_type: str = ""
    return_optional: bool = False
    opaque: bool = False
    lines: tuple[int, ...] = ()
    calls: tuple[str, ...] = ()  # the callees of the call statements every path falling off the end ends with
    wraps: str = ""  # a module-level function that, as a decorator, certainly "changes" how what it decorates is
    # called (a wrapper of its own signature, an event loop, changed keywords) or "drops" what it returns (a
    # wrapper that never returns a value): ``summarize.flows``
    hands: tuple[int, ...] = ()  # the lines of the returns of a call whose one argument is the first parameter after
    # the receiver, which the function changes nowhere else: it hands on the very mapping it was given
    absent: tuple[tuple[int, tuple[str, ...]], ...] = ()  # (line, keys) for each return of None at ``line`` (as in
    # ``lines``) taken only when one of the literal ``keys`` is absent from the mapping passed as the first parameter
    # after the receiver, which the function never changes (``summarize.returns``)


@dataclass(frozen=True)
class NoqaComment:
    """A ``# noqa`` in a comment (``summarize.text``); one in a string literal is no comment, and not one."""

    line: int
    codes: tuple[str, ...]  # upper case; none: every code
    column: int  # 0-based, in characters: where the directive's ``#`` is, which the language server extends


@dataclass(frozen=True)
class ParseError:
    """Why a file has no facts: bytes that do not decode (``summarize.text``) or a tree that does not parse."""

    reason: str
    span: Span


@dataclass(frozen=True)
class FileSummary:
    """Assembled by ``summarize.source.summarize_source``; ``defs`` come from ``summarize.walker``, ``noqa`` from
    ``summarize.text``, the other facts from the modules their classes name."""

    path: str  # absolute, as discovered
    module: str  # dotted module name ("" when the file is not importable as a module)
    is_package: bool  # an ``__init__.py``
    classes: tuple[ClassSummary, ...] = ()
    imports: tuple[Import, ...] = ()
    all_names: tuple[str, ...] | None = None  # ``__all__`` when it is a literal list/tuple
    assignments: tuple[tuple[str, str], ...] = ()  # module-level ``Alias = dotted.Name``
    calls: tuple[CallSite, ...] = ()
    prefix_uses: tuple[PrefixUse, ...] = ()
    noqa: tuple[NoqaComment, ...] = ()
    defs: tuple[str, ...] = ()  # module-level function names
    defines_helpers: bool = False  # defines the add/pop helpers itself, so raw prefix use is expected
    error: ParseError | None = None
    format: int = field(default=SUMMARY_FORMAT)
    handoffs: tuple[Handoff, ...] = ()  # objects constructed and passed to a call (summarize.handoffs)
    flows: tuple[FunctionFlow, ...] = ()  # what each function hands back (summarize.flows)
    value_names: tuple[str, ...] = ()  # class-like names used as values, not only as bases (summarize.uses)
    edits: tuple[NamespaceEdit, ...] = ()  # what statements outside class bodies do to classes (summarize.namespaces)
    editors: tuple[ClassEditor, ...] = ()  # functions that may change a class they are handed (summarize.namespaces)
    functions: tuple[FunctionSummary, ...] = ()  # functions that may become methods (summarize.namespaces)
    constants: tuple[tuple[str, str, int], ...] = ()  # (qualname, source, line): module and class names bound
    # once, to a constant expression, a ``TypeVar(...)`` call among them (summarize.constants)
    rebound: tuple[str, ...] = ()  # module-level names bound more than once, in any form (summarize.constants)
    shadowed: tuple[tuple[str, str, str, int], ...] = ()  # (name, kind, target, line): module-level class names that
    # hold something else when the module has run, and what (summarize.shadows)
