"""Primitives every stage may use: the user's kind of error, the exit-code policy, safe file I/O, the encoding
Python reads a source file in, worker processes, the garbage collector's tuning, the standard streams and a
regex matcher that cannot backtrack exponentially.

Takes nothing of ppaux-lint and knows nothing of SGLang, plugins or findings; gives small, dependable tools.
It must never import any other package of ``ppaux_lint``: it is the floor everything else stands on.
"""
