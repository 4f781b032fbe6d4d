"""The project index: summaries joined into a graph of modules and classes, which classes are outputs and
observers (by inheritance at any depth, re-exports and aliases, or structurally), and what an observer
really returns, which classes can have instances, where each output goes, and which outputs are parts of another.

Takes summaries (and a loader for more, on demand) and the protocols a config names; gives
:class:`~.model.ClassInfo` for every class the rules judge, through :class:`~.project_index.ProjectIndex`. It
knows nothing of files on disk, findings or rules: it imports only facts, project, contract and support, and
must never import scan (its sibling) or anything above it: the rules, the cache, the check or what uses them.

Inside, floors too, each importing only those below it: ``model``, ``hooks`` and ``known_bases``; ``graph``
(names, inheritance, members, roles); ``arguments`` (what constructors are handed) and ``constants`` (what
names bound to constants hold); ``inference`` and ``generics`` (what type variables stand for); ``instances``,
``routes``, ``parts`` and ``empty_returns`` (the paths on which a helper returns nothing); ``project_index``.
"""
