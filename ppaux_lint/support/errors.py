"""The one kind of error a user can fix: a usage or configuration problem.

Every command (``check``, ``verify``, ``inventory``, ``rule``, ``clean``) reports one of these the same way:
exit code 2 and a single line that names the bad value and where it came from (the flag, or the file and
key). Anything else that escapes is a bug in ppaux-lint and is reported as an internal error.
"""

from __future__ import annotations


class UsageError(Exception):
    """A bad flag, path or setting; the message names the value and where it came from."""
