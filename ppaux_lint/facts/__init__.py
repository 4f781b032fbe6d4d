"""What one file says: one parse of one file into its :class:`~.summary.FileSummary` (classes, methods,
returned mappings, calls, imports), and :class:`~.spans.Span`, the one location type everything shares.

Takes a file's bytes and its module name; gives a frozen, picklable summary the cache can store. A summary
depends on its own file only, so it never looks at another file, a config or the project, and this package
must never import the project model, the index, the rules or anything above them.
"""
