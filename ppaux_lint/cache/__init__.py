"""Everything ppaux-lint keeps on disk for a project, behind one owner, :class:`~.owner.ProjectCache`: the cache
directory and its markers, the replay record of the last run of each command, the per-file summaries keyed
by content, and the prefilter's scan index keyed by stat.

Takes a project and the run's options (``--no-cache`` and ``--cache-dir`` decide whether and where); gives
``check`` the run it may replay, keeping the one it could not, and gives the engine a store of summaries
whose questions about the disk go back to the owner. Only the owner (``owner.py``) knows the pieces: the
store (``store.py``: the run's memory of bytes and summaries, its worker processes), the record
(``replay.py``), this version's entries (``summaries.py``), the scan index and its stamps
(``scan_index.py``), the directory and its markers (``directory.py``), and ``codec.py`` beneath them all.
``clean.py``, for the ``clean`` command, removes what they wrote, and nothing else.

It may import the stages below it (project, facts, scan, support, and the findings model of rules) to store
their records. It must never import the engine (``check``), the reports, the fixes, the runtime, the
server or the command line, not even lazily: they stand on it.
"""
