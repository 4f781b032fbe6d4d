"""``ppaux-lint server``: the checks in an editor, over the Language Server Protocol on stdin/stdout.

Built on pygls (the ``lsp`` extra), which does the JSON-RPC framing, the protocol's life cycle and the
document syncing; this package is only what the messages mean for ppaux-lint. Importing it costs nothing
until :func:`serve` runs, so ``check`` never loads pygls.

Takes an editor's messages and unsaved buffers; gives diagnostics, code actions and fixes, from the same
engine, selection and fix machinery the command line uses. It must never import the command line or the
runtime (an editor never runs torch), and nothing but the command line imports it.
"""

from __future__ import annotations

from ppaux_lint.support.errors import UsageError
from ppaux_lint.support.install import pip_install

_PROTOCOL_PACKAGES = {"pygls", "lsprotocol", "cattrs"}


def serve() -> int:
    """Run the server until the client says ``exit``; the exit code LSP asks for."""
    try:
        from ppaux_lint.server.app import run
    except ImportError as error:
        if (error.name or "").partition(".")[0] not in _PROTOCOL_PACKAGES:
            raise
        raise UsageError(f"the language server needs pygls 2: {pip_install('lsp')}") from None
    return run()
