"""The language server: pygls speaks the protocol; this module says what each message does.

Open documents live in pygls's workspace (it applies incremental changes). An open, a save or a close
analyses at once, a change after the debounce (``initializationOptions: {"debounce": seconds}``, default
0.3). Each analysis covers every open document together, so when one file of a PPA015 pair changes, the
other's diagnostic changes with it. Analyses run one at a time on a worker thread, so the message loop keeps
answering while one runs; a code action waits for an analysis of the buffers as they are now, since its
edits are offsets into exactly that text.

pygls logs a message it cannot read and carries on, but a request among them would never be answered;
:class:`_Protocol` answers it with the JSON-RPC error and leaves the log line. The frames around the messages
are read by :mod:`ppaux_lint.server.frames`, not by pygls's reader (see there for why). Nothing is kept per
message or per analysis: the protocol keeps only the handlers still running (:class:`_Running`), and while it
serves the server collects reference cycles at Python's usual rate (``collector.USUAL_THRESHOLDS``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcException, JsonRpcInvalidRequest
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from ppaux_lint import __version__
from ppaux_lint.project.discover import file_key
from ppaux_lint.server.actions import code_actions
from ppaux_lint.server.diagnostics import Publisher
from ppaux_lint.server.frames import FrameReader
from ppaux_lint.server.linting import Document, Result, lint
from ppaux_lint.server.reading import DaemonReader
from ppaux_lint.server.schedule import Debouncer
from ppaux_lint.support import collector
from ppaux_lint.support.errors import UsageError

DEFAULT_DEBOUNCE = 0.3
logger = logging.getLogger("ppaux_lint.server")


class _Running(dict):
    """The protocol's handler futures by message id, each only until it is done.

    pygls files the future of every handler it runs here, under the request's id or, for a notification and
    for each step of its built-in handlers, under a fresh UUID; it removes a request's when it answers it,
    and nothing else, so every ``didChange`` left a finished future behind (issue 24: 54 -> 85 MiB over
    10,000 edits). A done future has nothing left to cancel, so dropping it here is all that was missing.
    """

    def __setitem__(self, key: Any, future: Any) -> None:
        super().__setitem__(key, future)
        future.add_done_callback(lambda done: self.pop(key, None) if self.get(key) is done else None)


class _Protocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._request_futures = _Running()

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:  # bad params: pygls logs it; the request still gets its answer
            if "method" in data and "id" in data:
                refused = self._refused(data["method"])
                self._send_response(_message_id(data["id"]), error=(refused or error).to_response_error())
            raise

    def handle_message(self, message: Any) -> None:
        if not hasattr(message, "jsonrpc"):  # valid JSON, but no JSON-RPC message (no "jsonrpc", not an object)
            logger.error("not a JSON-RPC message: %.200r", message)
            if isinstance(message, dict) and "id" in message:
                error = JsonRpcInvalidRequest("not a JSON-RPC 2.0 message").to_response_error()
                self._send_response(_message_id(message["id"]), error=error)
            return
        method = getattr(message, "method", None)
        refused = self._refused(method)
        if refused is not None:  # after shutdown pygls drops every message, so a request waited for ever
            if method is not None and hasattr(message, "id"):  # a request; notifications and responses are dropped
                self._send_response(message.id, error=refused.to_response_error())
            return
        super().handle_message(message)

    def _refused(self, method: Any) -> JsonRpcInvalidRequest | None:
        """Why a message for ``method`` is refused: after ``shutdown`` all but ``exit`` are (LSP's
        InvalidRequest)."""
        if self._shutdown and method != types.EXIT:
            return JsonRpcInvalidRequest("the server is shut down: only `exit` is accepted")
        return None


def _message_id(value: Any) -> int | str | None:
    """The id to answer with: JSON-RPC answers null when the request's own id is unusable."""
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


class PpauxLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("ppaux-lint", __version__, protocol_cls=_Protocol)
        self.debounce = DEFAULT_DEBOUNCE
        self.shut_down = False
        self.latest: Result | None = None
        self.publisher = Publisher()
        self.analyses = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ppaux-lint-analysis")
        self.debouncer = Debouncer(self.refresh)
        self._reported: str | None = None  # the last analysis error shown, so a broken config nags once
        _register(self)

    # -- handlers ------------------------------------------------------------------------------------------
    def on_initialize(self, params: types.InitializeParams) -> None:
        options = params.initialization_options
        debounce = options.get("debounce", DEFAULT_DEBOUNCE) if isinstance(options, dict) else DEFAULT_DEBOUNCE
        if isinstance(debounce, (int, float)) and not isinstance(debounce, bool) and debounce >= 0:
            self.debounce = float(debounce)
        else:
            logger.warning("initializationOptions.debounce must be a number of seconds >= 0, not %r", debounce)

    def on_shutdown(self, params: None) -> None:
        self.shut_down = True
        self.debouncer.cancel()

    async def on_code_action(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        only = params.context.only
        if only and not any(types.CodeActionKind.QuickFix.startswith(kind) for kind in only):
            return []
        path = to_fs_path(params.text_document.uri)
        result = await self.current()
        if result is None or path is None:
            return []
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.analyses, code_actions, result, file_key(Path(path)), params.range)

    # -- input ---------------------------------------------------------------------------------------------
    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve until ``exit`` or the end of the input: pygls's stdio server with our frame reader."""
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            # The command line collects rarely (what a run makes lives until it ends), and the server starts
            # through it; but the server drops an analysis at every edit, and some of it is cyclic (a module's
            # ``summarize.frames.Frame`` refers to itself), which only the collector frees.
            with collector.thresholds(collector.USUAL_THRESHOLDS):
                asyncio.run(self._receive(FrameReader(stdin or sys.stdin.buffer)))
        except BrokenPipeError:
            logger.error("the client closed the connection")
        except (KeyboardInterrupt, SystemExit):  # SystemExit: pygls's answer to ``exit``
            pass
        finally:
            self.shutdown()

    async def _receive(self, frames: FrameReader) -> None:
        """Hand each message to the protocol, reading the next frame only once this one is handled."""
        next_body = DaemonReader(frames.next_body, "ppaux-lint-input")
        while (body := await next_body()) is not None:
            try:
                self.protocol.handle_message(json.loads(body, object_hook=self.protocol.structure_message))
            except (json.JSONDecodeError, UnicodeDecodeError) as error:  # the body is not JSON: was it a frame?
                frames.reject()
                self._unhandled(error)
            except Exception as error:  # noqa: BLE001 - one bad message must not end the server (nor did it in pygls)
                self._unhandled(error)

    def _unhandled(self, error: Exception) -> None:
        """A message that could not be used: one log line, and the same in the client's log."""
        logger.error("Unable to handle message: %s", error)
        self._log_to_client(f"unable to handle a message: {error}")

    # -- analysis ------------------------------------------------------------------------------------------
    def documents(self) -> dict[str, Document]:
        """The open Python documents, by the name discovery gives their files."""
        out: dict[str, Document] = {}
        for uri, document in self.workspace.text_documents.items():
            path = to_fs_path(uri) if uri.startswith("file:") else None
            if path is not None and path.endswith((".py", ".pyi")) and "\0" not in path:  # ``%00`` names no file
                out[file_key(Path(path))] = Document(uri, document.version, document.source)
        return out

    async def refresh(self) -> Result | None:
        """Analyse the open documents as they are now and publish what changed."""
        documents = self.documents()
        encoding = self.workspace.position_encoding

        def analyse() -> tuple[Result, list[types.PublishDiagnosticsParams]]:
            result = lint(documents, encoding)
            return result, self.publisher.updates(result)  # it reads closed files' lines: off the loop too

        try:
            result, updates = await asyncio.get_running_loop().run_in_executor(self.analyses, analyse)
        except UsageError as error:  # a broken config: the user's to fix, shown once
            self._show_once(str(error))
            return None
        if result.error is not None:  # the documents its config kept out; the others are diagnosed below
            self._show_once(result.error)
        else:
            self._reported = None
        self.latest = result
        for update in updates:
            self.text_document_publish_diagnostics(update)
        return result

    async def current(self) -> Result | None:
        """The latest analysis if the documents are unchanged since it was made, else a new one."""
        if self.latest is not None and self.latest.documents == self.documents():
            return self.latest
        return await self.refresh()

    def _show_once(self, message: str) -> None:
        logger.error("%s", message)
        if message != self._reported:
            self._reported = message
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error,
                                                             message=f"ppaux-lint: {message}"))

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A failed request is answered with its error; anything else goes to the client's log, not a popup
        per malformed message."""
        logger.error("%s", error)
        if source is not FeatureRequestError:
            self._log_to_client(str(error))

    def _log_to_client(self, message: str) -> None:
        self.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=f"ppaux-lint: {message}"))


def _register(server: PpauxLanguageServer) -> None:
    """The handlers, one function per method (pygls keeps its bookkeeping on the function object)."""
    server.feature(types.INITIALIZE)(lambda params: server.on_initialize(params))
    server.feature(types.SHUTDOWN)(lambda params: server.on_shutdown(params))
    for method in (types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_SAVE, types.TEXT_DOCUMENT_DID_CLOSE):
        server.feature(method)(lambda params: server.debouncer.request(0))
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(lambda params: server.debouncer.request(server.debounce))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    async def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
        return await server.on_code_action(params)


def run() -> int:
    """Serve on stdin/stdout until ``exit``: 0 after a ``shutdown`` request, else 1 (as LSP asks)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="ppaux-lint server: %(levelname)s: %(message)s")
    server = PpauxLanguageServer()
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print anywhere must not corrupt the protocol stream
    server.start_io(sys.stdin.buffer, protocol_out)
    return 0 if server.shut_down else 1
