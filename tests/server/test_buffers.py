"""Buffers that are not (or no longer) the file on disk are served from
their text: new unsaved ``untitled:`` buffers, files deleted while open,
files outside the tree, undecodable bytes, CRLF line ends, NUL bytes, a
10 MB buffer and a 100,000-character line.  Each gets its syntax and
undefined-symbol diagnostics, hover and completion where its symbols are
known, and the server keeps answering (no error logged)."""

from __future__ import annotations

import time

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient
from test_lsp_sample import SERVER, hover_text, opened, wait_diagnostics, wait_hover

ERROR = lsp.DiagnosticSeverity.Error

#: A Kconfig buffer using the tree's symbols, one undefined one and one
#: syntax error (line 6, ``bool`` without a type's argument is fine; the
#: stray ``)`` is not).
KCONFIG_TEXT = (
    "config MY_NEW_DRIVER\n"          # 0
    '\ttristate "My new driver"\n'    # 1
    "\tdepends on NET && PCI\n"       # 2
    "\tselect CRC32\n"                # 3
    "\tdepends on NO_SUCH_SYMBOL\n"   # 4
    "\tdefault y if )\n"              # 5
)
CONFIG_TEXT = "CONFIG_NET=y\nCONFIG_NOT_A_SYMBOL=y\nCONFIG_E1000=m\n"


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


def open_text(client: LanguageClient, uri: str, text: str, language: str = "kconfig") -> None:
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))


def messages(diags: list[lsp.Diagnostic]) -> list[tuple[int, str]]:
    return sorted((d.range.start.line, d.message) for d in diags)


async def completion_labels(client: LanguageClient, uri: str, line: int, character: int) -> list[str]:
    result = await client.text_document_completion_async(lsp.CompletionParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(line, character)))
    assert result is not None
    return [item.label for item in result.items]


def assert_no_errors_logged(client: LanguageClient) -> None:
    failures = [m.message for m in client.log_messages if m.type == lsp.MessageType.Error]
    assert not failures, failures


async def check_kconfig_buffer(client: LanguageClient, uri: str, lines: list[str]) -> None:
    """The shared expectations for a buffer holding :data:`KCONFIG_TEXT`
    (``lines`` its lines as the client counts them)."""
    diags = await wait_diagnostics(client, uri, lambda d: any(x.severity == ERROR for x in d))
    found = messages(diags)
    assert any(line == 5 for line, _ in found if True), found
    assert any(line == 4 and "NO_SUCH_SYMBOL" in m for line, m in found), found
    for d in diags:  # every range inside the text
        assert 0 <= d.range.start.line < len(lines)
        assert 0 <= d.range.start.character <= d.range.end.character <= len(lines[d.range.start.line]) + 1
    net = await hover_text(client, uri, lsp.Position(2, lines[2].index("NET") + 1))
    assert "value **y**" in net
    assert "CRC32" in await hover_text(client, uri, lsp.Position(3, lines[3].index("CRC32") + 2))
    labels = await completion_labels(client, uri, 3, len("\tselect CRC"))
    assert "CRC32" in labels


@pytest.mark.asyncio
async def test_untitled_kconfig_and_config_buffers(client: LanguageClient, tmp_path):
    await opened(client, tmp_path, "drivers/Kconfig")
    uri = "untitled:Untitled-1"
    open_text(client, uri, KCONFIG_TEXT)
    await check_kconfig_buffer(client, uri, KCONFIG_TEXT.split("\n"))

    config = "untitled:Untitled-2"
    open_text(client, config, CONFIG_TEXT, "kconfig-config")
    diags = await wait_diagnostics(client, config, lambda d: any("NOT_A_SYMBOL" in x.message for x in d))
    assert [d.range.start.line for d in diags if "NOT_A_SYMBOL" in d.message] == [1]
    text = await hover_text(client, config, lsp.Position(2, 9))
    assert "E1000" in text and "tristate" in text
    assert "CONFIG_NETDEVICES" in await completion_labels(client, config, 3, 0) or \
        "CONFIG_NETDEVICES=y" in await completion_labels(client, config, 3, 0)
    # Definition from an untitled buffer leads into the tree.
    result = await client.text_document_definition_async(lsp.DefinitionParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(3, 9)))
    assert result and all(loc.uri.startswith("file://") for loc in result)
    assert_no_errors_logged(client)


@pytest.mark.asyncio
async def test_a_file_deleted_while_open_is_served_from_its_buffer(client: LanguageClient, tmp_path):
    root, path, uri = await opened(client, tmp_path, "extra/Kconfig")
    text = path.read_text()
    path.unlink()
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(
        [lsp.FileEvent(uri=uri, type=lsp.FileChangeType.Deleted)]))
    # The tree still has the buffer's definitions (the top Kconfig sources it).
    row = text.split("\n").index("config USES_ELSEWHERE")
    pos = lsp.Position(row, len("config US"))
    hover = await wait_hover(client, uri, pos, "USES_ELSEWHERE", "the symbol of the deleted file")
    assert "bool" in hover
    # An edit of the deleted file's buffer is still checked and re-linked.
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangeWholeDocument(text=text + "\nconfig ADDED_LATER\n\tbool \"added\"\n"
                                                    "\tdepends on NOT_DEFINED_ANYWHERE\n")]))
    diags = await wait_diagnostics(client, uri, lambda d: any("NOT_DEFINED_ANYWHERE" in x.message for x in d))
    assert not [d for d in diags if d.severity == ERROR], messages(diags)
    drivers = from_fs_path(str(root / "drivers" / "Kconfig"))
    open_text(client, drivers, (root / "drivers" / "Kconfig").read_text())
    await wait_diagnostics(client, drivers, lambda d: True)
    assert not [d for d in client.diagnostics[drivers] if d.severity == ERROR]
    assert_no_errors_logged(client)


@pytest.mark.asyncio
async def test_a_kconfig_file_outside_the_tree(client: LanguageClient, tmp_path):
    await opened(client, tmp_path, "drivers/Kconfig")
    outside = tmp_path / "elsewhere" / "Kconfig.mine"
    outside.parent.mkdir()
    outside.write_text(KCONFIG_TEXT)
    uri = from_fs_path(str(outside))
    open_text(client, uri, KCONFIG_TEXT)
    await check_kconfig_buffer(client, uri, KCONFIG_TEXT.split("\n"))
    assert_no_errors_logged(client)


@pytest.mark.asyncio
async def test_undecodable_bytes_on_disk_and_in_the_buffer(client: LanguageClient, tmp_path):
    root, _, _ = await opened(client, tmp_path, "drivers/Kconfig")
    path = root / "extra" / "Kconfig"
    raw = path.read_bytes().replace(b'"uses a symbol', b'"uses \xff\xfe a symbol')
    raw += b"\nconfig LATIN1_HELP\n\tbool \"caf\xe9\"\n\thelp\n\t  na\xefve \x80\x81 text\n"
    path.write_bytes(raw)
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(
        [lsp.FileEvent(uri=from_fs_path(str(path)), type=lsp.FileChangeType.Changed)]))
    # What an editor shows for such bytes: U+FFFD in their place.
    shown = raw.decode("utf-8", errors="replace")
    uri = from_fs_path(str(path))
    open_text(client, uri, shown)
    lines = shown.split("\n")
    row = next(i for i, line in enumerate(lines) if line.startswith("config LATIN1_HELP"))
    text = await wait_hover(client, uri, lsp.Position(row, 10), "bool", "the symbol after the bytes")
    assert "LATIN1_HELP" in text
    diags = await wait_diagnostics(client, uri, lambda d: True)
    assert not [d for d in diags if d.severity == ERROR], messages(diags)
    # A config with garbage bytes: the good lines still count.
    config = root / ".config"
    config.write_bytes(b"CONFIG_NET=y\n\xff\xfe\x00garbage\nCONFIG_E1000=\xe9\n")
    config_uri = from_fs_path(str(config))
    open_text(client, config_uri, config.read_bytes().decode("utf-8", errors="replace"), "kconfig-config")
    await wait_diagnostics(client, config_uri, lambda d: any(x.range.start.line == 2 for x in d))
    assert "value **y**" in await hover_text(client, config_uri, lsp.Position(0, 8))
    assert_no_errors_logged(client)


@pytest.mark.asyncio
async def test_crlf_and_nul_bytes(client: LanguageClient, tmp_path):
    await opened(client, tmp_path, "drivers/Kconfig")
    crlf = "untitled:crlf"
    open_text(client, crlf, KCONFIG_TEXT.replace("\n", "\r\n"))
    await check_kconfig_buffer(client, crlf, KCONFIG_TEXT.split("\n"))

    nul = "untitled:nul"
    text = KCONFIG_TEXT.replace("My new driver", "My\x00driver") + "\x00\x00config\x00X\n"
    open_text(client, nul, text)
    diags = await wait_diagnostics(client, nul, lambda d: any(x.severity == ERROR for x in d))
    lines = text.split("\n")
    for d in diags:
        assert 0 <= d.range.start.line < len(lines), d
    assert "value **y**" in await hover_text(client, nul, lsp.Position(2, lines[2].index("NET") + 1))
    assert_no_errors_logged(client)


@pytest.mark.asyncio
async def test_a_huge_buffer_and_a_huge_line(client: LanguageClient, tmp_path):
    root, drivers_path, drivers = await opened(client, tmp_path, "drivers/Kconfig")
    entry = 'config GENERATED_{n}\n\tbool "generated {n}"\n\tdepends on NET\n\thelp\n\t  {pad}\n\n'
    pad = "x" * 60
    parts = []
    size = 0
    n = 0
    while size < 10 * 1024 * 1024:
        part = entry.format(n=n, pad=pad)
        parts.append(part)
        size += len(part)
        n += 1
    huge_text = "".join(parts) + "config BROKEN\n\tdepends on (\n"
    huge = "untitled:huge"
    started = time.monotonic()
    open_text(client, huge, huge_text)
    diags = await wait_diagnostics(client, huge, lambda d: any(x.severity == ERROR for x in d), tries=1200)
    assert [d.range.start.line for d in diags if d.severity == ERROR] == [huge_text.count("\n") - 1]
    # The server answers another document meanwhile and after.
    assert "value **m**" in await hover_text(client, drivers, lsp.Position(15, 9))
    text = await hover_text(client, huge, lsp.Position(6 * 1000, 10))
    assert "GENERATED_1000" in text
    assert time.monotonic() - started < 120

    # A prompt and a dependency line of 100,000 characters each, the dependency
    # within the parser's operator limit (900 operators) with its symbols far right.
    depends = "\tdepends on NET" + " " * 100_000 + "&& " + " && ".join(["NET"] * 900)
    long_line = "config LONG_LINE\n\tbool \"" + "y" * 100_000 + "\"\n" + depends + "\n"
    wide = "untitled:wide"
    open_text(client, wide, long_line)
    diags = await wait_diagnostics(client, wide, lambda d: True, tries=600)
    assert not [d for d in diags if d.severity == ERROR]
    text = await hover_text(client, wide, lsp.Position(2, depends.rindex("NET") + 1))
    assert "NET" in text
    # Past the limit, the statement is an error on its own line, nothing worse.
    too_many = "config TOO_MANY\n\tbool \"x\"\n\tdepends on " + " && ".join(["NET"] * 20_000) + "\n"
    many = "untitled:many"
    open_text(client, many, too_many)
    diags = await wait_diagnostics(client, many, lambda d: any(x.severity == ERROR for x in d), tries=600)
    errors = [d for d in diags if d.severity == ERROR]
    assert [d.range.start.line for d in errors] == [2]
    assert "more than 1000 operators" in errors[0].message
    labels = await completion_labels(client, wide, 2, 100)
    assert labels is not None
    assert_no_errors_logged(client)
