"""Everything ppaux-lint keeps on disk, behind one owner: the cache directory, the per-file summaries keyed by
content, the prefilter's scan index keyed by stat, and the replay record of the last run of each command.

Takes the project and its files; gives summaries and scan answers to the engine, and replays a run nothing
has changed since. It may import the stages below it (project, facts, scan, and the findings model of
rules) to store their records, and must never import the engine, the reports, the fixes or anything above.
"""
