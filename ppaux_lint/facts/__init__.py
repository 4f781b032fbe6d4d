"""What one file says: one parse of one file into its :class:`~.summary.FileSummary` (classes, methods,
returned mappings, calls, imports); :class:`~.spans.Span`, the one location type everything shares; and
:class:`~.findings.Finding`, what every rule yields and every renderer consumes. Summaries and findings are
the records the cache stores, so importing them loads nothing of the analysis (a replayed run decodes
findings and nothing else).

Takes a file's bytes and its module name; gives a frozen, picklable summary the cache can store. A summary
depends on its own file only, so it never looks at another file, a config or the project, and this package
must never import the project model, the index, the rules or anything above them.
"""
