"""Every request a client can send gets an answer: a result, or an error
with the right code and one line of text, never InternalError or silence.

Each row sends one request with bad parameters to the real server (through
pytest-lsp, with raw JSON parameters so that the client does not check
them first) and names the answer it must get."""

from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import Future

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient
from test_lsp_sample import SERVER, opened

INVALID_PARAMS = -32602
REQUEST_FAILED = -32803
#: The answer is a result (no error), whatever it is.
RESULT = "result"

DOC = "<doc>"  # replaced by the URI of the open drivers/Kconfig
GONE = "file:///no/such/dir/Kconfig"


def position(line, character):
    return {"line": line, "character": character}


def at(uri, line, character, **extra):
    return {"textDocument": {"uri": uri}, "position": position(line, character), **extra}


def command(name, *arguments):
    return ("workspace/executeCommand", {"command": name, "arguments": list(arguments)})


#: (id, method, params, expected answer)
CASES = [
    ("hover-negative", "textDocument/hover", at(DOC, -1, -1), INVALID_PARAMS),
    ("definition-negative", "textDocument/definition", at(DOC, -1, -1), INVALID_PARAMS),
    ("references-negative", "textDocument/references", at(DOC, 0, -5, context={"includeDeclaration": True}),
     INVALID_PARAMS),
    ("completion-string-line", "textDocument/completion", at(DOC, "a", 0), INVALID_PARAMS),
    ("hover-no-position", "textDocument/hover", {"textDocument": {"uri": DOC}}, INVALID_PARAMS),
    ("hover-past-the-end", "textDocument/hover", at(DOC, 10**6, 0), INVALID_PARAMS),
    ("hover-huge-column", "textDocument/hover", at(DOC, 0, 10**6), RESULT),
    ("hover-unknown-uri", "textDocument/hover", at(GONE, 0, 0), RESULT),
    ("definition-unknown-uri", "textDocument/definition", at(GONE, 0, 0), RESULT),
    ("completion-unknown-uri", "textDocument/completion", at(GONE, 0, 0), RESULT),
    ("symbols-unknown-uri", "textDocument/documentSymbol", {"textDocument": {"uri": GONE}}, RESULT),
    ("folding-unknown-uri", "textDocument/foldingRange", {"textDocument": {"uri": GONE}}, RESULT),
    ("workspace-symbol-huge", "workspace/symbol", {"query": "X" * 100_000}, RESULT),
    ("explain-number", *command("kconfig.explain", 42), INVALID_PARAMS),
    ("explain-missing", *command("kconfig.explain"), INVALID_PARAMS),
    ("explain-unknown", *command("kconfig.explain", "NO_SUCH_SYMBOL"), INVALID_PARAMS),
    ("explain-huge", *command("kconfig.explain", "A" * 1_000_000), INVALID_PARAMS),
    ("explain-object", *command("kconfig.explain", {"symbol": ["E1000"]}), INVALID_PARAMS),
    ("howto-bad-target", *command("kconfig.howTo", "E1000", "maybe"), INVALID_PARAMS),
    ("howto-never-m", *command("kconfig.howTo", "IOSCHED_NOOP", "m"), INVALID_PARAMS),
    ("howto-number", *command("kconfig.howTo", 5, "y"), INVALID_PARAMS),
    ("apply-howto-unknown", *command("kconfig.applyHowTo", "NO_SUCH_SYMBOL", "y"), INVALID_PARAMS),
    ("set-arch-number", *command("kconfig.setArch", 7), INVALID_PARAMS),
    ("set-arch-missing", *command("kconfig.setArch"), INVALID_PARAMS),
    ("write-config-number", *command("kconfig.writeConfig", 12), INVALID_PARAMS),
    ("status-extra-args", *command("kconfig.status", 1, 2, 3), RESULT),
    ("set-value-unknown", *command("kconfig.setValue", "NO_SUCH_SYMBOL", "y"), INVALID_PARAMS),
    ("set-value-no-value", *command("kconfig.setValue", "NET"), INVALID_PARAMS),
    ("set-value-list", *command("kconfig.setValue", "NET", ["y"]), INVALID_PARAMS),
    ("set-value-bad-tristate", *command("kconfig.setValue", "NET", "maybe"), RESULT),
    # (This client refuses edits: the answer says it was not applied.)
    ("set-value-huge", *command("kconfig.setValue", "LOCALVERSION", "x" * 1_000_000), RESULT),
    ("menu-string-node", "kconfig/menu", {"node": "top"}, INVALID_PARAMS),
    ("menu-unknown-node", "kconfig/menu", {"node": 10**12}, INVALID_PARAMS),
    ("menu-list-params", "kconfig/menu", [1, 2], INVALID_PARAMS),
    ("menu-no-params", "kconfig/menu", None, RESULT),
    ("search-number", "kconfig/search", {"query": 5}, INVALID_PARAMS),
    ("search-huge", "kconfig/search", {"query": "e" * 100_000}, RESULT),
]


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


def raw_request(client: LanguageClient, method: str, params) -> asyncio.Future:
    """Send ``params`` as they are (the client would type-check them)."""
    proto = client.protocol
    msg_id = str(uuid.uuid4())
    future: Future = Future()
    proto._request_futures[msg_id] = future
    proto._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return asyncio.wrap_future(future)


def _with_uri(value, uri):
    if value == DOC:
        return uri
    if isinstance(value, dict):
        return {k: _with_uri(v, uri) for k, v in value.items()}
    return value


@pytest.mark.asyncio
async def test_every_bad_request_gets_the_right_answer(client: LanguageClient, tmp_path):
    _, _, uri = await opened(client, tmp_path, "drivers/Kconfig")
    client.feature(lsp.WORKSPACE_APPLY_EDIT)(lambda params: lsp.ApplyWorkspaceEditResult(applied=False))
    logs_before = len(client.log_messages)
    wrong = []
    for name, method, params, expected in CASES:
        try:
            await asyncio.wait_for(raw_request(client, method, _with_uri(params, uri)), 30)
            got = RESULT
            message = ""
        except JsonRpcException as exc:
            got, message = exc.code, exc.message
        except TimeoutError:
            got, message = "no answer in 30 s", ""
        if got != expected:
            wrong.append(f"{name}: expected {expected}, got {got} {message}")
        elif got != RESULT:
            # One line, no traceback.
            assert "\n" not in message and "Traceback" not in message and len(message) < 400, (name, message)
    assert not wrong, "\n".join(wrong)
    # Nothing above was unexpected for the server: nothing was logged as a failure.
    failures = [m for m in client.log_messages[logs_before:] if m.type == lsp.MessageType.Error]
    assert not failures, failures
    # And it still serves.
    hover = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(0, 0)))
    assert hover is None or hover.contents
