"""The check itself: the engine wires project -> cache -> index -> rules -> selection once, for the command
line, ``inventory``, ``verify`` and the language server alike.

Takes paths and options; gives an :class:`~.engine.Analysis` (findings, classes, indexes, summaries).
It must never import the reports, the fixes, the runtime, the server or the command line: they all
stand on it, and it offers no fix (a rule declares its fix; :mod:`ppaux_lint.fixes` reads that).
"""
