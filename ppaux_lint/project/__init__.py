"""Which project a run is about: its root and configs (``[tool.ppaux-lint]``), the files that make it up, the
ones asked about, each file's module name, and what the command line adds (:class:`~.loading.Options`).

Takes the paths a command was given; gives a :class:`~.loading.Project` and a :class:`~.discover.Discovery`.
It reads directories and ``pyproject.toml`` files, never a Python file's contents, and must never import the
summaries, the index, the rules, the cache or anything above them.
"""
