"""End-to-end protocol tests: the real `kconfig-ls serve` process driven by
pytest-lsp, on a copy of the bundled sample tree."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "kconfig_ls" / "data" / "sample"
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "kconfig_ls.cli", "serve"],
    server_env={**os.environ, "PYTHONPATH": str(REPO)},
)

EXTRA_KCONFIG = """
config PCI
	bool
	default y if NET

config USES_ELSEWHERE
	bool "uses a symbol only another arch defines"
	depends on ONLY_IN_OTHER_ARCH
"""


def make_tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(SAMPLE, root)
    (root / "Kconfig").write_text((root / "Kconfig").read_text() + 'source "extra/Kconfig"\n')
    (root / "extra").mkdir()
    (root / "extra" / "Kconfig").write_text(EXTRA_KCONFIG)
    (root / "otherarch").mkdir()
    (root / "otherarch" / "Kconfig").write_text('config ONLY_IN_OTHER_ARCH\n\tbool "elsewhere"\n')
    (root / ".config").write_text("CONFIG_NET=y\nCONFIG_NETDEVICES=y\nCONFIG_E1000=m\nCONFIG_BOGUS=y\n"
                                  "CONFIG_SERIAL_8250_CONSOLE=y\n")
    return root


async def start(client: LanguageClient, root: Path, options: dict | None = None) -> None:
    await client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(window=lsp.WindowClientCapabilities(work_done_progress=True)),
            root_uri=from_fs_path(str(root)),
            initialization_options=options or {},
        )
    )


def open_doc(client: LanguageClient, path: Path, language: str = "kconfig") -> str:
    uri = from_fs_path(str(path))
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id=language, version=1,
                                                           text=path.read_text()))
    )
    return uri


def change(client: LanguageClient, uri: str, version: int, start: tuple[int, int], end: tuple[int, int],
           text: str) -> None:
    """Replace the text between two (line, character) positions of an open document."""
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(*start), lsp.Position(*end)), text=text)]))


def position_of(path: Path, needle: str, occurrence: int = 0) -> lsp.Position:
    """The position of the last character of ``needle`` (so on its last word)."""
    lines = path.read_text().split("\n")
    seen = 0
    for i, line in enumerate(lines):
        col = line.find(needle)
        if col >= 0:
            if seen == occurrence:
                return lsp.Position(i, col + len(needle) - 1)
            seen += 1
    raise AssertionError(f"{needle!r} not found in {path}")


async def hover_text(client: LanguageClient, uri: str, pos: lsp.Position) -> str:
    result = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), pos))
    assert result is not None
    return result.contents.value


async def wait_hover(client: LanguageClient, uri: str, pos: lsp.Position, needle: str, what: str) -> str:
    """Hover until the text contains ``needle`` (the server reloads in the
    background); fails saying ``what`` never showed."""
    import asyncio

    for _ in range(100):
        text = await hover_text(client, uri, pos)
        if needle in text:
            return text
        await asyncio.sleep(0.1)
    raise AssertionError(f"hover never showed {what}")


async def wait_diagnostics(client: LanguageClient, uri: str, predicate, tries: int = 100) -> list[lsp.Diagnostic]:
    import asyncio

    for _ in range(tries):
        diags = client.diagnostics.get(uri)
        if diags is not None and predicate(diags):
            return list(diags)
        await asyncio.sleep(0.1)
    raise AssertionError(f"diagnostics never matched: {client.diagnostics.get(uri)}")


async def opened(client: LanguageClient, tmp_path: Path, name: str, options: dict | None = None,
                 language: str = "kconfig"):
    """Start on a fresh copy of the tree, open ``name`` and wait until the
    server has published its first diagnostics for it."""
    root = make_tree(tmp_path)
    await start(client, root, options)
    path = root / name
    uri = open_doc(client, path, language)
    await wait_diagnostics(client, uri, lambda d: True)
    return root, path, uri


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_load_reports_progress_and_hover_shows_values(client: LanguageClient, tmp_path):
    root, drivers, uri = await opened(client, tmp_path, "drivers/Kconfig")
    # (The load's progress: indexing CONFIG_ uses has its own, after it.)
    kinds = [type(v).__name__ for reports in client.progress_reports.values()
             if reports and getattr(reports[0], "title", None) == "Loading Kconfig tree" for v in reports]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"

    text = await hover_text(client, uri, position_of(drivers, "config E1000"))
    assert "tristate" in text and "value **m**" in text
    assert "m because you set it to m in .config:3" in text
    assert "Driver for Intel(R) PRO/1000" in text
    crc = await hover_text(client, uri, position_of(drivers, "select CRC32"))
    assert "value **m**" in crc and "selected by E1000 [=m]" in crc
    hidden = await hover_text(client, uri, position_of(drivers, "config SERIAL_8250_CONSOLE"))
    assert "value **n**" in hidden and "n because your y is not used" in hidden
    assert "- SERIAL_8250 is n: you can set it to y" in hidden


@pytest.mark.asyncio
async def test_definition_returns_every_definition(client: LanguageClient, tmp_path):
    root, drivers, uri = await opened(client, tmp_path, "drivers/Kconfig")
    result = await client.text_document_definition_async(
        lsp.DefinitionParams(lsp.TextDocumentIdentifier(uri), position_of(drivers, "depends on PCI"))
    )
    found = sorted((loc.uri.split("/tree/")[1], loc.range.start.line + 1) for loc in result)
    assert found == [("drivers/Kconfig", 3), ("extra/Kconfig", 2)]


@pytest.mark.asyncio
async def test_references(client: LanguageClient, tmp_path):
    root, drivers, uri = await opened(client, tmp_path, "drivers/Kconfig")
    refs = await client.text_document_references_async(
        lsp.ReferenceParams(text_document=lsp.TextDocumentIdentifier(uri),
                            position=position_of(drivers, "depends on NET"),
                            context=lsp.ReferenceContext(include_declaration=False))
    )
    where = sorted((r.uri.split("/tree/")[1], r.range.start.line + 1) for r in refs)
    assert where == [("drivers/Kconfig", 12), ("extra/Kconfig", 4)]


@pytest.mark.asyncio
async def test_broken_line_gets_a_diagnostic_and_fixing_clears_it(client: LanguageClient, tmp_path):
    root, drivers, uri = await opened(client, tmp_path, "drivers/Kconfig")
    line = position_of(drivers, "depends on PCI").line
    change(client, uri, 2, (line, 12), (line, 15), "(PCI")
    diags = await wait_diagnostics(client, uri, lambda d: any(x.severity == lsp.DiagnosticSeverity.Error for x in d))
    error = next(x for x in diags if x.severity == lsp.DiagnosticSeverity.Error)
    assert error.range.start.line == line
    change(client, uri, 3, (line, 12), (line, 16), "PCI")
    await wait_diagnostics(client, uri, lambda d: not any(x.severity == lsp.DiagnosticSeverity.Error for x in d))


class PublishLog(dict):
    """``client.diagnostics`` that also keeps every publication in order."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, list[lsp.Diagnostic]]] = []

    def __setitem__(self, uri, diagnostics) -> None:
        self.log.append((uri, list(diagnostics)))
        super().__setitem__(uri, diagnostics)


@pytest.mark.asyncio
async def test_an_edit_is_published_with_the_problems_of_the_relinked_tree(client: LanguageClient, tmp_path):
    """An edit the tree takes in place (a re-link) is published once its
    values are computed again: the first publication after it already
    holds the whole tree's problems of the new text (the quick check of
    the buffer alone waits for it, and would find the patched tree without
    its values).  An edit the tree cannot take in place is checked alone
    at once, then again when the tree is loaded."""
    root = make_tree(tmp_path)
    extra = root / "extra" / "Kconfig"
    extra.write_text(extra.read_text() + "config LOOP_A\n\tbool\n\tdepends on LOOP_B\n"
                     "config LOOP_B\n\tbool\n\tdepends on LOOP_A\n")
    await start(client, root)
    client.diagnostics = PublishLog()
    uri = open_doc(client, extra)
    before = await wait_diagnostics(client, uri, lambda d: any(x.code == "recursive-dep" for x in d))
    cycle = sorted(x.range.start.line for x in before if x.code == "recursive-dep")

    async def publications(since: int, count: int) -> list:
        for _ in range(200):
            after = [d for u, d in client.diagnostics.log[since:] if u == uri]
            if len(after) >= count:
                return after
            await asyncio.sleep(0.05)
        raise AssertionError(f"fewer than {count} publications: {after}")

    # (A line before the first entry: the entries stay, the tree is re-linked.)
    published = len(client.diagnostics.log)
    change(client, uri, 2, (0, 0), (0, 0), "bogus line\n")
    (first,) = (await publications(published, 1))[:1]
    assert [x.range.start.line for x in first if x.severity == lsp.DiagnosticSeverity.Error
            and x.code != "recursive-dep"] == [0]
    assert sorted(x.range.start.line for x in first if x.code == "recursive-dep") == [n + 1 for n in cycle]

    # (A new entry: the tree is loaded again; the buffer is checked first.)
    published = len(client.diagnostics.log)
    change(client, uri, 3, (1, 0), (1, 0), "config ADDED_NOW\n\tbool \"added\"\n\tdepends on (\n")
    after = await publications(published, 2)
    for diags in after[:2]:
        assert [x.range.start.line for x in diags if x.severity == lsp.DiagnosticSeverity.Error
                and x.code != "recursive-dep"] == [0, 3]
        assert sorted(x.range.start.line for x in diags if x.code == "recursive-dep") == [n + 4 for n in cycle]


@pytest.mark.asyncio
async def test_a_file_the_tree_does_not_load_still_gets_syntax_errors(client: LanguageClient, tmp_path):
    root, other, uri = await opened(client, tmp_path, "otherarch/Kconfig")
    diags = await wait_diagnostics(client, uri, lambda d: any(x.code == "not-loaded" for x in d))
    assert [x.severity for x in diags] == [lsp.DiagnosticSeverity.Information]
    change(client, uri, 2, (1, 0), (1, 0), "\tdepends on (BROKEN\n")
    diags = await wait_diagnostics(client, uri, lambda d: any(x.severity == lsp.DiagnosticSeverity.Error for x in d))
    # The broken line is the error; the entry's next line, cut off from it
    # (as in the C tool), is marked as its consequence.
    assert [x.range.start.line for x in diags if x.severity == lsp.DiagnosticSeverity.Error] == [1]
    after = [x for x in diags if x.code == "after-error"]
    assert [(x.range.start.line, x.severity) for x in after] == [(2, lsp.DiagnosticSeverity.Information)]
    assert "the entry ended at the error on line 2" in after[0].message


@pytest.mark.asyncio
async def test_a_missing_sourced_file_typed_in_is_a_diagnostic_not_a_popup(client: LanguageClient, tmp_path):
    root, top, uri = await opened(client, tmp_path, "Kconfig")
    end = len(top.read_text().split("\n")) - 1
    change(client, uri, 2, (end, 0), (end, 0), 'source "nope/Kconfig"\n')
    diags = await wait_diagnostics(client, uri, lambda d: any("nope/Kconfig" in x.message for x in d))
    assert [x.range.start.line for x in diags if "nope/Kconfig" in x.message] == [end]
    await asyncio.sleep(1.5)  # the background re-link fails on it too
    diags = client.diagnostics[uri]
    assert [x.range.start.line for x in diags if "nope/Kconfig" in x.message] == [end]
    assert not [m for m in client.messages if "nope/Kconfig" in m.message]
    # Hovers keep working on the tree loaded before.
    assert "value **17**" in await hover_text(client, uri, position_of(top, "config LOG_BUF_SHIFT"))


@pytest.mark.asyncio
async def test_editing_a_default_changes_the_hover_value(client: LanguageClient, tmp_path):

    root, top, uri = await opened(client, tmp_path, "Kconfig")
    pos = position_of(top, "config LOG_BUF_SHIFT")
    assert "value **17**" in await hover_text(client, uri, pos)
    line = position_of(top, "default 17").line
    change(client, uri, 2, (line, 9), (line, 11), "20")
    await wait_hover(client, uri, pos, "value **20**", "the edited default")


@pytest.mark.asyncio
async def test_a_hover_right_after_an_edit_shows_the_value_it_implies(client: LanguageClient, tmp_path):
    """The re-link waits for a short pause in typing; a hover does not wait
    for it, nor answer from the tree before the edit: it has the edit
    patched in at once.  An edit that cannot be patched in (a new entry)
    is loaded after the pause, as before."""
    root, drivers, uri = await opened(client, tmp_path, "drivers/Kconfig")
    pos = position_of(drivers, "config PCI")
    assert "value **y**" in await hover_text(client, uri, pos)
    line = position_of(drivers, "default y").line
    for version, value in enumerate("nyn", start=2):
        change(client, uri, version, (line, 9), (line, 10), value)
        assert f"value **{value}**" in await hover_text(client, uri, pos)
    change(client, uri, 5, (0, 0), (0, 0), "config ADDED_NOW\n\tbool \"added\"\n")
    await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(1, 3)))
    await wait_hover(client, uri, lsp.Position(0, 10), "ADDED_NOW", "the entry added")
    assert "value **n**" in await hover_text(client, uri, lsp.Position(pos.line + 2, pos.character))


@pytest.mark.asyncio
async def test_undefined_symbols_warn_unless_another_arch_defines_them(client: LanguageClient, tmp_path):
    root = make_tree(tmp_path)
    drivers = root / "drivers" / "Kconfig"
    drivers.write_text(drivers.read_text().replace("depends on PCI", "depends on PCI && NO_SUCH_SYMBOL"))
    await start(client, root)
    uri = open_doc(client, drivers)
    diags = await wait_diagnostics(client, uri, lambda d: any(x.code == "undefined-symbol" for x in d))
    undefined = [x for x in diags if x.code == "undefined-symbol"]
    assert [x.message for x in undefined] == ["'NO_SUCH_SYMBOL' is not defined in any Kconfig file"]
    extra = root / "extra" / "Kconfig"
    extra_uri = open_doc(client, extra)
    extra_diags = await wait_diagnostics(client, extra_uri, lambda d: True)
    assert not [x for x in extra_diags if x.code == "undefined-symbol"]


@pytest.mark.asyncio
async def test_config_file_diagnostics_hover_and_completion(client: LanguageClient, tmp_path):
    root, config, uri = await opened(client, tmp_path, ".config", language="kconfig-config")
    diags = await wait_diagnostics(client, uri, lambda d: len(d) >= 2)
    messages = [d.message for d in diags]
    assert "unknown symbol CONFIG_BOGUS" in messages
    assert any(m.startswith("CONFIG_SERIAL_8250_CONSOLE=y will not stick") and "SERIAL_8250" in m
               for m in messages)
    text = await hover_text(client, uri, lsp.Position(2, 9))
    assert "CONFIG_E1000" in text and "value **m**" in text
    items = await client.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(0, 0)))
    labels = {i.label for i in items.items}
    assert {"CONFIG_E1000", "CONFIG_PCI"} <= labels


@pytest.mark.asyncio
async def test_config_buffer_edits_change_values_and_kconfig_edits_still_relink(client: LanguageClient, tmp_path):
    root, config, config_uri = await opened(client, tmp_path, ".config", language="kconfig-config")
    drivers = root / "drivers" / "Kconfig"
    drivers_uri = open_doc(client, drivers)
    pos = position_of(drivers, "config E1000")
    await wait_hover(client, drivers_uri, pos, "value **m**", "E1000 from the .config")
    line = position_of(config, "CONFIG_E1000=m").line
    change(client, config_uri, 2, (line, 13), (line, 14), "y")
    await wait_hover(client, drivers_uri, pos, "value **y**", "E1000 from the edited .config buffer")
    # The unknown symbol is still reported, on its line, after the edit.
    diags = await wait_diagnostics(client, config_uri, lambda d: any(x.code == "unknown-symbol" for x in d))
    assert [x.range.start.line for x in diags if x.code == "unknown-symbol"] == [3]
    # Then a Kconfig edit: the tree is re-linked (E1000 now needs a symbol
    # nobody sets) and the config buffer's value is kept.
    dep = position_of(drivers, "config E1000").line + 2
    text = drivers.read_text().split("\n")[dep]
    assert text.strip().startswith("depends on"), text
    change(client, drivers_uri, 2, (dep, len(text)), (dep, len(text)), " && NEVER_SET")
    await wait_hover(client, drivers_uri, pos, "value **n**", "E1000 after its dependency changed")


@pytest.mark.asyncio
async def test_completion_and_document_symbols(client: LanguageClient, tmp_path):
    root, drivers, uri = await opened(client, tmp_path, "drivers/Kconfig")
    line = position_of(drivers, "depends on PCI").line
    items = await client.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 13)))
    by_label = {i.label: i for i in items.items}
    assert "PCI" in by_label and by_label["PCI"].detail.startswith("bool")
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri)))
    assert [s.name for s in symbols] == ["Device drivers"]
    children = [c.name for c in symbols[0].children]
    assert children[:3] == ["PCI", "NET", "CRC32"]
    # NETDEVICES depends on NET right after it: menuconfig nests it there.
    net = next(c for c in symbols[0].children if c.name == "NET")
    assert [c.name for c in net.children] == ["NETDEVICES"]
    assert [c.name for c in net.children[0].children] == ["E1000", "DUMMY"]
    # Right after an edit (before the tree is re-linked) the outline and
    # the folding ranges follow the buffer: two lines inserted at the top.
    pci = next(c for c in symbols[0].children if c.name == "PCI").range.start.line
    change(client, uri, 2, (0, 0), (0, 0), "# one\n# two\n")
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri)))
    assert next(c for c in symbols[0].children if c.name == "PCI").range.start.line == pci + 2
    folds = await client.text_document_folding_range_async(lsp.FoldingRangeParams(lsp.TextDocumentIdentifier(uri)))
    assert min(f.start_line for f in folds) == 2


@pytest.mark.asyncio
@pytest.mark.parametrize("trusted", [False, True])
async def test_shell_runs_only_in_a_trusted_tree(client: LanguageClient, tmp_path, trusted):
    root = make_tree(tmp_path)
    marker = tmp_path / "shell-ran"
    (root / "Kconfig").write_text((root / "Kconfig").read_text()
                                  + f'config FROM_SHELL\n\tstring\n\tdefault "$(shell,touch {marker} && echo ran)"\n')
    await start(client, root, {"trusted": trusted})
    top = root / "Kconfig"
    uri = open_doc(client, top)
    diags = await wait_diagnostics(client, uri, lambda d: True)
    assert marker.exists() == trusted
    assert any(d.code == "shell-untrusted" for d in diags) == (not trusted)
    text = await hover_text(client, uri, position_of(top, "config FROM_SHELL"))
    assert ('value **ran**' in text) == trusted


@pytest.mark.asyncio
async def test_hover_on_an_n_symbol_offers_a_verified_fix(client: LanguageClient, tmp_path):
    root, drivers, uri = await opened(client, tmp_path, "drivers/Kconfig")
    text = await hover_text(client, uri, position_of(drivers, "config SERIAL_8250_CONSOLE"))
    assert "needs SERIAL_8250 [=n]=y" in text
    assert "**Fix** (verified): set SERIAL_8250=y" in text


@pytest.mark.asyncio
async def test_explain_and_how_to_commands(client: LanguageClient, tmp_path):
    await opened(client, tmp_path, "drivers/Kconfig")
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="kconfig.explain", arguments=["CONFIG_SERIAL_8250_CONSOLE"]))
    assert result["explanation"]["value"] == "n"
    assert [leaf["text"] for leaf in result["explanation"]["leaves"]] == ["SERIAL_8250 [=n]=y"]
    assert result["text"].splitlines()[1] == result["explanation"]["summary"]
    assert result["explanation"]["account"][0]["kind"] == "user-ignored"
    assert result["markdown"].startswith("**CONFIG_SERIAL_8250_CONSOLE** · bool · value **n**")
    how = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="kconfig.howTo", arguments=[{"symbol": "SERIAL_8250_CONSOLE",
                                                                      "target": "y"}]))
    assert how["result"]["verified"] and how["result"]["assignments"] == {"SERIAL_8250": "y"}
    # A target the symbol can never have is an error response with the reason.
    with pytest.raises(Exception, match="never m"):
        await client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command="kconfig.howTo", arguments=["IOSCHED_NOOP", "m"]))


@pytest.mark.asyncio
async def test_code_action_makes_a_config_value_stick(client: LanguageClient, tmp_path):
    root = make_tree(tmp_path)
    await start(client, root)
    config = root / ".config"
    uri = open_doc(client, config, "kconfig-config")
    diags = await wait_diagnostics(client, uri, lambda d: any(x.code == "value-not-kept" for x in d))
    diag = next(x for x in diags if x.code == "value-not-kept")
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri), range=diag.range,
        context=lsp.CodeActionContext(diagnostics=[diag])))
    assert [a.title for a in actions] == ["Make SERIAL_8250_CONSOLE=y (sets SERIAL_8250=y)"]
    (edit,) = actions[0].edit.changes[uri]
    # CONFIG_SERIAL_8250 has no line yet: it is appended at the end.
    assert edit.new_text == "CONFIG_SERIAL_8250=y\n" and edit.range.start.line == 5


@pytest.mark.asyncio
async def test_write_config_is_atomic_and_refuses_what_make_would_not_see(client: LanguageClient, tmp_path):
    root, top, uri = await opened(client, tmp_path, "Kconfig")
    before = (root / ".config").read_text()
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="kconfig.writeConfig", arguments=[{}]))
    assert result["ok"], result
    written = (root / ".config").read_text()
    assert written.startswith("#\n# Automatically generated file; DO NOT EDIT.\n")
    assert "CONFIG_E1000=m\n" in written and "CONFIG_BOGUS" not in written
    assert (root / ".config.old").read_text() == before
    # A target that cannot be written (its "directory" is a file): refused.
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="kconfig.writeConfig", arguments=[{"path": str(blocker / ".config")}]))
    assert not result["ok"] and "nothing was changed" in result["message"]
    assert blocker.read_text() == "x"
    # An unsaved Kconfig edit: make would not see it, so nothing is written.
    change(client, uri, 2, (0, 0), (0, 0), "# edited\n")
    await asyncio.sleep(0.5)
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="kconfig.writeConfig", arguments=[{"path": str(tmp_path / "out")}]))
    assert not result["ok"] and "unsaved edits" in result["message"] and "Kconfig" in result["message"]
    assert not (tmp_path / "out").exists()


@pytest.mark.asyncio
async def test_file_watchers_are_registered_and_changes_reload(client: LanguageClient, tmp_path):
    import asyncio

    registrations = []

    @client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def on_register(params: lsp.RegistrationParams):
        registrations.extend(params.registrations)

    root = make_tree(tmp_path)
    await client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(workspace=lsp.WorkspaceClientCapabilities(
            did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True))),
        root_uri=from_fs_path(str(root))))
    for _ in range(50):
        if registrations:
            break
        await asyncio.sleep(0.1)
    (registration,) = registrations
    assert registration.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES
    globs = [w["globPattern"] if isinstance(w, dict) else w.glob_pattern
             for w in (registration.register_options["watchers"] if isinstance(registration.register_options, dict)
                       else registration.register_options.watchers)]
    assert "**/Kconfig" in globs and "**/.config" in globs
    # The .config changes on disk (e.g. make olddefconfig): a watched-file
    # event makes the hover show the new value.
    drivers = root / "drivers" / "Kconfig"
    uri = open_doc(client, drivers)
    pos = position_of(drivers, "config E1000")
    await wait_hover(client, uri, pos, "value **m**", "the loaded .config's value")
    (root / ".config").write_text((root / ".config").read_text().replace("CONFIG_E1000=m", "CONFIG_E1000=y"))
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[lsp.FileEvent(
        uri=from_fs_path(str(root / ".config")), type=lsp.FileChangeType.Changed)]))
    await wait_hover(client, uri, pos, "value **y**", "the changed .config's value")


@pytest.mark.asyncio
async def test_columns_are_utf16_on_lines_with_non_ascii_text(client: LanguageClient, tmp_path):
    root = make_tree(tmp_path)
    line = '\tbool "Größe 🙂" if NET && NO_SUCH_UNICODE_SYMBOL'
    (root / "extra" / "Kconfig").write_text(EXTRA_KCONFIG + f"\nconfig UNI\n{line}\n")
    await start(client, root)
    path = root / "extra" / "Kconfig"
    uri = open_doc(client, path)
    row = path.read_text().split("\n").index(line)

    def utf16(col: int) -> int:
        return len(line[:col].encode("utf-16-le")) // 2

    diags = await wait_diagnostics(client, uri, lambda d: any("NO_SUCH_UNICODE" in x.message for x in d))
    (undefined,) = [d for d in diags if "NO_SUCH_UNICODE" in d.message]
    col = line.index("NO_SUCH")
    assert (undefined.range.start.character, undefined.range.end.character) == (
        utf16(col), utf16(col + len("NO_SUCH_UNICODE_SYMBOL")))
    net = line.index("NET")
    result = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(row, utf16(net) + 1)))
    assert "CONFIG_NET" in result.contents.value
    assert result.range.start.character == utf16(net) != net
