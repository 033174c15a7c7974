"""An edit storm on a real kernel Kconfig file: 1,200 random incremental
edits (keywords, symbol names, garbage, non-BMP unicode, newlines,
deletions), with hover, definition, completion and outline requests in
between and pauses that let the tree re-link.  Every request is answered
without an error; afterwards the original text gives the same diagnostics,
hovers and outline as the fresh server had, and the server has not kept
the trees it replaced: its RSS grows by 10% at most (~162 -> ~161 MB).

    STORM_EDITS=3000 scripts/test tests/server/test_edit_storm.py   # a longer storm"""

from __future__ import annotations

import asyncio
import os
import random
import re

import pytest
import pytest_lsp
from conftest import kernel_tree_path
from lsprotocol import types as lsp
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient
from test_lsp_kernel import SERVER

pytestmark = pytest.mark.kernel

TREE = kernel_tree_path()
FILE = "drivers/net/ethernet/intel/Kconfig"
EDITS = int(os.environ.get("STORM_EDITS", 1200))
PIECES = ["config ", "menuconfig", "depends on ", " && ", " || ", "!", "(", ")", "select ", "default y",
          "if ", "endif\n", "menu \"x\"\n", "endmenu\n", "choice\n", "endchoice\n", "help\n", "\t", "\n",
          "E1000", "PCI", "NET_VENDOR_INTEL", "IGB", "$(", "\"", "#", "source \"nowhere\"\n",
          "\x00", "\ufffd", "é", "漢字", "🙂", "𝔘", "\r\n", " = ", " != ", "0x", "-"]


#: A cold start (no tree snapshot), so the server holds its lexing of every
#: file from the first load on, as after any re-link: the memory compared
#: before and after the storm is of the same kind.
COLD_SERVER = ClientServerConfig(server_command=SERVER.server_command,
                                 server_env={**SERVER.server_env, "KCONFIG_LS_NO_CACHE": "1"})


@pytest_lsp.fixture(config=COLD_SERVER)
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


def utf16_col(line: str, index: int) -> int:
    return len(line[:index].encode("utf-16-le")) // 2


def position(text: str, offset: int) -> lsp.Position:
    """The LSP position (UTF-16 columns) of ``offset`` in ``text``; lines
    end at \\r\\n, \\n or a lone \\r."""
    head = text[:offset]
    breaks = list(re.finditer(r"\r\n|\r|\n", head))
    start = breaks[-1].end() if breaks else 0
    return lsp.Position(len(breaks), utf16_col(head[start:], offset - start))


def not_inside_crlf(text: str, offset: int) -> int:
    """``offset``, moved off the middle of a \\r\\n pair (no position names it)."""
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        return offset + 1
    return offset


async def snapshot(client: LanguageClient, uri: str, probes: list[lsp.Position]) -> tuple:
    hovers = []
    for pos in probes:
        hover = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), pos))
        hovers.append(None if hover is None else hover.contents.value)
    outline = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri)))
    names = [(s.name, s.range.start.line, s.range.end.line) for s in outline or []]
    return hovers, names


def server_rss_mb() -> dict[int, int]:
    """RSS of each kconfig-ls server process that is a child of this one."""
    sizes = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/status") as f:
                status = dict(line.split(":", 1) for line in f if ":" in line)
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if int(status["PPid"]) == os.getpid() and b"serve" in cmdline:
            sizes[int(pid)] = int(status["VmRSS"].split()[0]) // 1024
    return sizes


def diagnostic_set(client: LanguageClient, uri: str) -> list:
    return sorted((d.range.start.line, d.range.start.character, d.severity, d.message)
                  for d in client.diagnostics.get(uri, []))


async def settled(client: LanguageClient, uri: str, probes: list[lsp.Position], expected: tuple | None,
                  expected_diags: list | None, timeout: float = 90) -> tuple:
    """The snapshot and diagnostics once they stop changing (or equal the
    expected ones)."""
    last = None
    for _ in range(int(timeout)):
        await asyncio.sleep(1)
        now = (await snapshot(client, uri, probes), diagnostic_set(client, uri))
        if expected is not None and now == (expected, expected_diags):
            return now
        if expected is None and now == last and any(h and "value" in h for h in now[0][0]):
            return now
        last = now
    return last


async def uses_indexed(client: LanguageClient, timeout: float = 180) -> None:
    """Wait until the server's background index of CONFIG_ uses is built."""
    for _ in range(int(timeout * 4)):
        status = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command="kconfig.status"))
        if status["usesIndexed"]:
            return
        await asyncio.sleep(0.25)
    raise AssertionError("the index of CONFIG_ uses was not built")


async def test_an_edit_storm_leaves_no_trace(client: LanguageClient, kernel_tree):
    await client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), root_uri=from_fs_path(str(TREE)),
        initialization_options={"kconfig": {"arch": "x86_64"}, "trusted": True}))
    original = (TREE / FILE).read_text()
    uri = from_fs_path(str(TREE / FILE))
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="kconfig", version=1, text=original)))
    lines = original.split("\n")
    probes = [lsp.Position(i, 9) for i, line in enumerate(lines) if line.startswith("config ")][:12]
    fresh, fresh_diags = await settled(client, uri, probes, None, None)
    assert any(h and "value" in h for h in fresh[0]), fresh[0]
    # (The index of CONFIG_ uses is built beside, ~15 s without a cache:
    # measured before it is whole, the baseline is short of it.)
    await uses_indexed(client)
    [before] = server_rss_mb().values()

    rng = random.Random(20261205)
    text = original
    version = 1
    for n in range(EDITS):
        start = not_inside_crlf(text, rng.randrange(len(text) + 1))
        end = start
        roll = rng.random()
        if roll < 0.3 and text:
            end = not_inside_crlf(text, min(len(text), start + rng.randint(1, 40)))
        insert = "" if roll < 0.2 else "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 4)))
        version += 1
        change = lsp.TextDocumentContentChangePartial(
            range=lsp.Range(position(text, start), position(text, end)), text=insert)
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))
        text = text[:start] + insert + text[end:]
        if n % 20 == 0:
            at = position(text, not_inside_crlf(text, rng.randrange(len(text) + 1)))
            doc = lsp.TextDocumentIdentifier(uri)
            await client.text_document_hover_async(lsp.HoverParams(doc, at))
            await client.text_document_definition_async(lsp.DefinitionParams(doc, at))
            await client.text_document_completion_async(lsp.CompletionParams(doc, at))
            await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc))
        if n % 150 == 149:
            await asyncio.sleep(1.5)  # long enough for a re-link of the tree
            await snapshot(client, uri, probes)  # what a user looks at in a pause

    version += 1
    whole = lsp.Range(lsp.Position(0, 0), position(text, len(text)))
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [lsp.TextDocumentContentChangePartial(range=whole, text=original)]))
    restored, restored_diags = await settled(client, uri, probes, fresh, fresh_diags)
    # (The tree the last re-link replaced is freed in the next pause, a
    # second after it: measured at once, it could still be there.)
    [at_once] = server_rss_mb().values()
    await asyncio.sleep(3)
    [after] = server_rss_mb().values()
    print(f"server RSS {before} MB after the load, {after} MB after the storm ({at_once} MB at once)")
    # A re-load lets the old tree go before it builds the new one (CPython
    # keeps its heap's peak: two trees at once left ~50 MB for good), and
    # a buffer whose own check stops on a fatal error is not loaded at all.
    # Trees kept alive (a leak once kept every hovered tree, ~35 MB a
    # re-link) fail this too.
    assert after <= before * 1.1, (before, after)
    assert restored_diags == fresh_diags
    assert restored == fresh
    failures = [m.message for m in client.log_messages if m.type == lsp.MessageType.Error]
    assert not failures, failures
