"""CONFIG_ symbols in the files they switch, through the server, on the
Linux 6.1 tree with the C tool's x86_64_defconfig: compiled-out regions of
kernel/sched/core.c as faded hints, hovers with what the construct
evaluates to, definitions, Makefile uses; they follow .config edits."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import test_lsp_kernel as kernel_tests
from lsprotocol import types as lsp
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient
from test_lsp_kernel import TREE, c_values, start

pytestmark = pytest.mark.kernel

CORE = "kernel/sched/core.c"
#: The fixtures of the kernel server tests: a server, x86_64_defconfig's .config.
client = kernel_tests.client
c_defconfig = kernel_tests.c_defconfig


def open_source(client: LanguageClient, name: str, language: str) -> tuple[str, list[str]]:
    uri = from_fs_path(str(TREE / name))
    text = (TREE / name).read_text()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))
    return uri, text.split("\n")


async def hints(client: LanguageClient, uri: str, predicate=lambda d: True) -> list[lsp.Diagnostic]:
    for _ in range(1200):
        diags = client.diagnostics.get(uri)
        if diags is not None and predicate(diags):
            return [d for d in diags if d.code == "compiled-out"]
        await asyncio.sleep(0.1)
    raise AssertionError(f"no matching diagnostics: {client.diagnostics.get(uri)}")


async def hover_at(client: LanguageClient, uri: str, line: int, col: int) -> str | None:
    hover = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri),
                                                                   lsp.Position(line, col)))
    return None if hover is None else hover.contents.value


async def test_a_c_file_shows_what_the_config_compiles_out(client: LanguageClient, c_defconfig: Path):
    values = c_values(c_defconfig)
    assert "SCHED_CORE" not in values and values["SMP"] == "y"
    await start(client, c_defconfig)
    uri, lines = open_source(client, CORE, "c")
    found = await hints(client, uri, lambda d: any(x.code == "compiled-out" for x in d))
    assert all(d.severity == lsp.DiagnosticSeverity.Hint and list(d.tags) == [lsp.DiagnosticTag.Unnecessary]
               for d in found), found[:2]
    ifdef = lines.index("#ifdef CONFIG_SCHED_CORE")
    other = lines.index("#else /* !CONFIG_SCHED_CORE */")
    [core] = [d for d in found if d.range.start.line == ifdef + 1]
    assert core.range.end == lsp.Position(other, 0)
    assert core.message == "compiled out: CONFIG_SCHED_CORE is n"
    assert not any(d.range.start.line == other + 1 for d in found)  # (the #else arm is compiled)
    smp = lines.index("#ifdef CONFIG_SMP")
    assert not any(d.range.start.line == smp + 1 for d in found)

    text = await hover_at(client, uri, ifdef, len("#ifdef CONFIG_S"))
    assert text.startswith("`CONFIG_SCHED_CORE` is not defined") and "value **n**" in text
    definition = await client.text_document_definition_async(lsp.DefinitionParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(ifdef, len("#ifdef CONFIG_S"))))
    assert [d.uri for d in definition] == [from_fs_path(str(TREE / "kernel/Kconfig.preempt"))]
    assert await hover_at(client, uri, ifdef - 1, 0) is None or True  # (no use there: nothing to say)
    completion = await client.text_document_completion_async(lsp.CompletionParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(ifdef, 8)))
    assert completion is None


async def test_a_makefile_use_says_which_kbuild_list_it_picks(client: LanguageClient, c_defconfig: Path):
    await start(client, c_defconfig)
    uri, lines = open_source(client, "kernel/Makefile", "makefile")
    await hints(client, uri)
    modules = lines.index("obj-$(CONFIG_MODULES) += kmod.o")
    text = await hover_at(client, uri, modules, len("obj-$(CONFIG_M"))
    assert text.startswith("`obj-$(CONFIG_MODULES)` is `obj-y`: built in") and "value **y**" in text


async def test_compiled_out_regions_follow_the_config(client: LanguageClient, c_defconfig: Path, tmp_path):
    config = tmp_path / ".config"
    config.write_text(c_defconfig.read_text())
    await start(client, config)
    uri, lines = open_source(client, CORE, "c")
    ifdef = lines.index("#ifdef CONFIG_SCHED_CORE")
    await hints(client, uri, lambda d: any(x.range.start.line == ifdef + 1 for x in d))
    config_uri = from_fs_path(str(config))
    text = config.read_text().replace("# CONFIG_SCHED_CORE is not set", "CONFIG_SCHED_CORE=y")
    assert "CONFIG_SCHED_CORE=y" in text
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=config_uri, language_id="kconfig-config", version=1, text=text)))
    found = await hints(client, uri, lambda d: not any(x.range.start.line == ifdef + 1 for x in d))
    other = lines.index("#else /* !CONFIG_SCHED_CORE */")
    assert any(d.range.start.line == other + 1 and "CONFIG_SCHED_CORE is y" in d.message for d in found)


async def indexed(client: LanguageClient) -> None:
    """Wait for the index of CONFIG_ uses to be built."""
    for _ in range(1800):
        for reports in client.progress_reports.values():
            if reports and getattr(reports[0], "title", None) == "Indexing CONFIG_ uses" and \
                    type(reports[-1]).__name__ == "WorkDoneProgressEnd":
                return
        await asyncio.sleep(0.1)
    raise AssertionError("the uses were never indexed")


async def references(client: LanguageClient, uri: str, line: int, col: int, declaration: bool) -> list:
    return await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri), position=lsp.Position(line, col),
        context=lsp.ReferenceContext(include_declaration=declaration)))


async def test_references_include_uses_in_c_files_and_makefiles(client: LanguageClient, c_defconfig: Path):
    await start(client, c_defconfig)
    uri, lines = open_source(client, CORE, "c")
    await hints(client, uri)
    await indexed(client)
    ifdef = lines.index("#ifdef CONFIG_SCHED_CORE")
    refs = await references(client, uri, ifdef, 10, True)
    places = {(r.uri.split("linux-source-6.1/")[1], r.range.start.line) for r in refs}
    assert ("kernel/Kconfig.preempt", 117) in places  # (the definition, 0-based)
    assert (CORE, ifdef) in places and ("kernel/sched/sched.h", next(
        n for n, line in enumerate((TREE / "kernel/sched/sched.h").read_text().split("\n"))
        if "CONFIG_SCHED_CORE" in line)) in places
    assert len(places) == len(refs) >= 25
    # An edit of the open file is seen before it is saved.
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
                                              text="#ifdef CONFIG_SCHED_CORE\n#endif\n")]))
    refs = await references(client, uri, ifdef + 2, 10, False)
    lines_in_core = sorted(r.range.start.line for r in refs if r.uri == uri)
    assert lines_in_core[0] == 0 and ifdef + 2 in lines_in_core
    # From a Makefile's use: the Kconfig entry and the other Makefiles.
    make_uri, make_lines = open_source(client, "kernel/Makefile", "makefile")
    modules = make_lines.index("obj-$(CONFIG_MODULES) += kmod.o")
    refs = await references(client, make_uri, modules, 10, True)
    files = {r.uri.split("linux-source-6.1/")[1] for r in refs}
    assert {"kernel/module/Kconfig", "kernel/Makefile", "include/linux/module.h"} <= files
