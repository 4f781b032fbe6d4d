"""One parse of one file, producing its FileSummary.

This is the only package that sees syntax trees. It records facts, not
verdicts: which names a class lists as bases, what its methods return, which
keys they read. Whether any of that is a problem needs the whole project, and
is decided by the index and the rules.

It parses with the standard library's ``ast``, not libcst: analysis needs no
concrete syntax, and CPython's C parser is 10-50x faster than building a
libcst tree with position metadata (see docs/design.md). libcst is
kept for what it is best at, rewriting code losslessly in ``--fix``.

Each module extracts one kind of fact, so a rule's author can see where the
fields they read come from:

- ``text``: decoding (coding cookie, BOM), character columns of every ``Span``, ``noqa``;
- ``walker``: the single source-order pass that hands statements to the modules below, and ``defs``;
- ``classes``: ``ClassSummary``, its bases, decorators, ``MemberAssign`` and ``Field`` facts (``init_fields``:
  what ``__init__`` stores, with the annotation it is stored from);
- ``methods``: ``MethodSummary`` and ``Param``: signatures, return annotations, stub bodies;
- ``returns``: ``ReturnFact``/``KeyFact``/``ValueFact`` of what a method returns, and generator-ness,
  judged with ``values`` (certainly not a tensor) and ``flow`` (falling off the end);
- ``built``: the ``ReturnFact`` of a returned local that the method builds step by step (``out = {}``,
  ``out["a"] = t``, ``return out``), followed path by path;
- ``key_reads``: the keys a method reads from the mapping it receives;
- ``imports``: ``Import`` (relative made absolute), ``all_names`` and module-level ``assignments``;
- ``calls``: ``CallSite`` of the transport helpers and ``PrefixUse`` of the key prefix;
- ``frames``: what a name is bound to, when certain (``observer = None``, ``_PREFIX = "..."``), for ``calls``;
- ``handoffs``: ``Handoff`` of new objects passed to calls, which route outputs to forward observers and say what
  a constructor's parameters receive;
- ``flows``: ``FunctionFlow`` of what each function returns and binds, for the inference;
- ``namespaces``: what code outside class bodies does to classes (``NamespaceEdit``, ``ClassEditor``), the
  ``ClassSummary`` of each ``type(name, bases, ns)`` call, and ``FunctionSummary`` of the functions that may
  become methods;
- ``uses``: ``value_names``, the class-like names used other than as bases or annotations;
- ``constants``: ``constants`` and ``rebound``, the names a module or class binds once to a constant
  expression (keys written as names, type variables), and the module's names bound more than once;
- ``syntax``: dotted names, literals and scopes, read the same way by all of them.

- ``source``: ``summarize_source``, which turns the file's bytes into a tree and the collected facts into a
  summary, and any failure on the way into a summary that carries the error.

This module imports none of them: a process that needs one piece (fix planning reads ``syntax``, ``noqa`` reads
``text``) does not pay for the whole summarizer, which only the workers that parse need.
"""

