"""The language server on the real Linux 6.1 tree (x86_64), with a
.config written by the C tool: hover values must be the C tool's."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from conftest import kernel_tree_path, require_kernel
from lsprotocol import types as lsp
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.kernel

REPO = Path(__file__).resolve().parents[2]
TREE = kernel_tree_path()
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "kconfig_ls.cli", "serve"],
    server_env={**os.environ, "PYTHONPATH": str(REPO)},
)
INTEL = "drivers/net/ethernet/intel/Kconfig"


@pytest.fixture(scope="module")
def c_defconfig(kernel_tree, tmp_path_factory) -> Path:
    """x86_64_defconfig's .config as the C tool writes it."""
    build = tmp_path_factory.mktemp("kbuild")
    subprocess.run(["make", "-s", "ARCH=x86_64", f"O={build}", "defconfig"], cwd=TREE, check=True,
                   capture_output=True)
    return build / ".config"


def c_values(config: Path) -> dict[str, str]:
    values = {}
    for line in config.read_text().splitlines():
        m = re.match(r"^CONFIG_([A-Za-z0-9_]+)=(.*)$", line)
        if m:
            values[m.group(1)] = m.group(2).strip('"')
    return values


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def start(client: LanguageClient, config: Path) -> None:
    await client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(window=lsp.WindowClientCapabilities(work_done_progress=True)),
        root_uri=from_fs_path(str(TREE)),
        initialization_options={"kconfig": {"arch": "x86_64", "configFile": str(config)}, "trusted": True},
    ))


def open_doc(client: LanguageClient, name: str) -> str:
    uri = from_fs_path(str(TREE / name))
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="kconfig", version=1, text=(TREE / name).read_text())))
    return uri


async def diagnostics_for(client: LanguageClient, uri: str, predicate=lambda d: True, timeout: float = 120):
    for _ in range(int(timeout * 10)):
        diags = client.diagnostics.get(uri)
        if diags is not None and predicate(diags):
            return list(diags)
        await asyncio.sleep(0.1)
    raise AssertionError(f"no matching diagnostics for {uri}: {client.diagnostics.get(uri)}")


async def test_hover_values_match_the_c_tool(client: LanguageClient, c_defconfig: Path):
    await start(client, c_defconfig)
    uri = open_doc(client, INTEL)
    await diagnostics_for(client, uri)
    expected = c_values(c_defconfig)
    lines = (TREE / INTEL).read_text().split("\n")
    checked = 0
    for i, line in enumerate(lines):
        m = re.match(r"^config ([A-Z0-9_]+)$", line)
        if not m:
            continue
        name = m.group(1)
        hover = await client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(i, 8)))
        value = re.search(r"value \*\*(.*?)\*\*", hover.contents.value).group(1)
        assert value == expected.get(name, "n"), f"{name}: hover says {value}, C tool wrote {expected.get(name)}"
        checked += 1
    assert checked >= 20
    # (The load's progress: indexing CONFIG_ uses has its own, after it.)
    kinds = [type(v).__name__ for reports in client.progress_reports.values()
             if reports and getattr(reports[0], "title", None) == "Loading Kconfig tree" for v in reports]
    assert "WorkDoneProgressReport" in kinds and kinds[-1] == "WorkDoneProgressEnd"


async def test_arch_only_symbols_are_not_flagged_but_unknown_names_are(client: LanguageClient, c_defconfig):
    await start(client, c_defconfig)
    name = "drivers/i2c/busses/Kconfig"
    uri = open_doc(client, name)
    diags = await diagnostics_for(client, uri)
    flagged = {d.message.split("'")[1] for d in diags if d.code == "undefined-symbol"}
    # ARM, ARM64, RISCV... are defined only by other arches: not errors.
    # (6.1 really has a dangling MIPS_BAIKAL_T1 reference in this file.)
    assert flagged == {"MIPS_BAIKAL_T1"}
    text = (TREE / name).read_text()
    line = text.split("\n").index("config I2C_ALI1535")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(line + 2, 0), lsp.Position(line + 2, 0)),
                                              text="\tdepends on NOT_A_REAL_SYMBOL_XYZ\n")]))
    diags = await diagnostics_for(client, uri, lambda d: any("NOT_A_REAL" in x.message for x in d))
    flagged = [d for d in diags if d.code == "undefined-symbol" and "NOT_A_REAL" in d.message]
    assert [d.range.start.line for d in flagged] == [line + 2]


async def test_definition_of_a_symbol_defined_twice(client: LanguageClient, c_defconfig):
    await start(client, c_defconfig)
    uri = open_doc(client, "arch/x86/Kconfig")
    await diagnostics_for(client, uri)
    lines = (TREE / "arch/x86/Kconfig").read_text().split("\n")
    line = lines.index("config PGTABLE_LEVELS")
    result = await client.text_document_definition_async(
        lsp.DefinitionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 9)))
    found = [(loc.uri.split("linux-source-6.1/")[1], loc.range.start.line + 1) for loc in result]
    # The loaded (x86) definitions first, then the other arches' own.
    assert found[:2] == [("arch/x86/Kconfig", line + 1), ("arch/Kconfig", 949)]
    assert ("arch/arm64/Kconfig", 340) in found and len(found) == len(set(found)) > 10


async def test_why_and_how_to_on_the_kernel_tree(client: LanguageClient, c_defconfig):
    await start(client, c_defconfig)
    name = "drivers/net/wireless/ath/ath10k/Kconfig"
    uri = open_doc(client, name)
    await diagnostics_for(client, uri)
    lines = (TREE / name).read_text().split("\n")
    line = lines.index("config ATH10K_PCI")
    hover = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 9)))
    assert "value **n**" in hover.contents.value and "needs ATH10K [=n]" in hover.contents.value
    assert "**Fix** (verified): set " in hover.contents.value and "ATH10K=y" in hover.contents.value
    explained = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="kconfig.explain", arguments=["ATH10K_PCI"]))
    leaves = {leaf["text"]: leaf for leaf in explained["explanation"]["leaves"]}
    assert leaves["ATH10K [=n]"]["symbols"][0]["definitions"] == [[name, 2]]
    how = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="kconfig.howTo", arguments=["ATH10K_PCI", "m"]))
    assert how["result"]["verified"] and how["result"]["assignments"]["ATH10K_PCI"] == "m"


async def test_write_config_is_checked_by_make_olddefconfig(client: LanguageClient, c_defconfig, tmp_path):
    await start(client, c_defconfig)
    uri = open_doc(client, INTEL)
    await diagnostics_for(client, uri)
    target = tmp_path / "written.config"
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="kconfig.writeConfig", arguments=[{"path": str(target)}]))
    assert result["ok"] and result["stage"] == "check" and result["differences"] == [], result
    # What we write for the C tool's own defconfig is byte for byte its .config.
    assert target.read_bytes() == c_defconfig.read_bytes()
    messages = [v.message or "" for reports in client.progress_reports.values() for v in reports
                if type(v).__name__ == "WorkDoneProgressReport"]
    assert any(m.startswith("check: make olddefconfig") for m in messages)


TREE_6_12 = kernel_tree_path("6.12")
IOMMU = "drivers/iommu/intel/Kconfig"


@pytest.fixture(scope="module")
def c_defconfig_6_12(tmp_path_factory) -> Path:
    """x86_64_defconfig's .config as Linux 6.12's C tool writes it."""
    tree = require_kernel("6.12")
    build = tmp_path_factory.mktemp("kbuild612")
    subprocess.run(["make", "-s", "ARCH=x86_64", f"O={build}", "defconfig"], cwd=tree, check=True,
                   capture_output=True)
    return build / ".config"


async def test_a_6_12_tree_follows_its_own_kconfig(client: LanguageClient, c_defconfig_6_12: Path):
    """Linux 6.12's choices pick members through a priority list: its
    defconfig turns the choice's default member off, so the C tool selects
    the next one.  The hover says what 6.12's conf wrote, and both the
    status and the hover's footer name the generation (mainline's rules are
    newer)."""
    await client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(),
        root_uri=from_fs_path(str(TREE_6_12)),
        initialization_options={"kconfig": {"arch": "x86_64", "configFile": str(c_defconfig_6_12)}, "trusted": True},
    ))
    uri = from_fs_path(str(TREE_6_12 / IOMMU))
    text = (TREE_6_12 / IOMMU).read_text()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="kconfig", version=1, text=text)))
    await diagnostics_for(client, uri)
    expected = c_values(c_defconfig_6_12)
    lines = text.split("\n")
    for name in ("INTEL_IOMMU_DEFAULT_ON", "INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF"):
        line = lines.index(f"config {name}")
        hover = await client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 8)))
        value = re.search(r"value \*\*(.*?)\*\*", hover.contents.value).group(1)
        assert value == expected.get(name, "n"), (name, value)
        assert "_Values follow kconfig 6.12 rules" in hover.contents.value
    assert expected.get("INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF") == "y"
    status = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command="kconfig.status"))
    assert status["kconfigVersion"] == "6.12" and status["kconfigVersionError"] is None


async def test_a_6_1_tree_says_which_rules_its_values_follow(client: LanguageClient, c_defconfig: Path):
    await start(client, c_defconfig)
    uri = open_doc(client, INTEL)
    await diagnostics_for(client, uri)
    line = (TREE / INTEL).read_text().split("\n").index("config E1000")
    hover = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 8)))
    assert "_Values follow kconfig 6.1 rules (Linux 4.18-6.10 kconfig (as in Linux 6.1))_" in hover.contents.value
    status = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command="kconfig.status"))
    assert status["kconfigVersion"] == "6.1"


async def hover_value(client: LanguageClient, uri: str, line: int) -> str:
    hover = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 8)))
    return re.search(r"value \*\*(.*?)\*\*", hover.contents.value).group(1)


async def test_an_edit_is_patched_into_the_tree_and_values_follow(client: LanguageClient, c_defconfig: Path):
    """Editing a dependency re-links the tree in place (no new load): the
    hovers show the values a fresh load of the edited text gives."""
    from kconfig_ls.kconfig import configfile
    from kconfig_ls.kconfig.kernel import kernel_env
    from kconfig_ls.kconfig.tree import Kconfig

    await start(client, c_defconfig)
    uri = open_doc(client, INTEL)
    await diagnostics_for(client, uri)
    text = (TREE / INTEL).read_text()
    lines = text.split("\n")
    e1000e = lines.index("config E1000E")
    assert await hover_value(client, uri, e1000e) == "y"
    old = "\tdepends on PCI && (!SPARC32 || BROKEN)"
    at = lines.index(old, e1000e)
    new = "\tdepends on PCI && (!SPARC32 || BROKEN) && BROKEN"
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(at, 0), lsp.Position(at, len(old))),
                                              text=new)]))
    for _ in range(300):
        if await hover_value(client, uri, e1000e) == "n":
            break
        await asyncio.sleep(0.05)
    status = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command="kconfig.status"))
    assert status["lastLink"] == "relink"

    fresh = Kconfig("Kconfig", srctree=str(TREE), env=kernel_env(str(TREE), "x86_64").env,
                    overlays={INTEL: text.replace(old, new)}, warn_stream=None, info=lambda _text: None)
    configfile.read_config(fresh, str(c_defconfig))
    for i, line in enumerate(lines):
        m = re.match(r"^config ([A-Z0-9_]+)$", line)
        if m:
            assert await hover_value(client, uri, i) == fresh.symbols[m.group(1)].str_value_now, m.group(1)
