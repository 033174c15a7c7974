"""`kconfig.setValue` through the server, against the C tool.

A client that applies the server's edits to its open `.config` buffer
(as an editor does) sets random symbols to random values on the bundled
sample.  After each step the C tool's `olddefconfig` on the buffer is the
ground truth: an accepted value is the value C gives the edited text, a
refused one is a value C would not keep either, and `changed` names
exactly the symbols whose value (by C) or menu visibility (by a fresh
load of the same text) moved.
"""

from __future__ import annotations

import asyncio
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import pytest_lsp
from conftest import require_kernel
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient
from test_configurator import plain, request, start
from test_lsp_sample import SAMPLE, SERVER

from kconfig_ls.ide.project import Project, Settings
from kconfig_ls.ide.setvalue import shown_state


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


class EditorBuffer:
    """The client's side of the open config: applies `workspace/applyEdit`
    to its text and tells the server, as an editor does."""

    def __init__(self, client: LanguageClient, path: Path, text: str):
        self.client, self.uri, self.text, self.version = client, from_fs_path(str(path)), text, 1
        self.edits_applied: list[int] = []
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=self.uri, language_id="kconfig-config", version=1, text=text)))
        client.feature(lsp.WORKSPACE_APPLY_EDIT)(lambda params: self.apply(params))

    def apply(self, params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
        edits = params.edit.changes[self.uri]
        self.edits_applied.append(len(edits))
        lines = self.text.split("\n")
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line) + 1)

        def offset(position: lsp.Position) -> int:
            return offsets[position.line] + position.character

        for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
            start, end = offset(edit.range.start), offset(edit.range.end)
            self.text = self.text[:start] + edit.new_text + self.text[end:]
        self.version += 1
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=self.text)]))
        return lsp.ApplyWorkspaceEditResult(applied=True)


def c_values(root: Path, text: str, scratch: Path, version: str = "6.1") -> dict[str, str]:
    """What the C tool (of Linux ``version``) makes of config ``text`` with olddefconfig."""
    conf = require_kernel(version) / "scripts" / "kconfig" / "conf"
    config = scratch / "c.config"
    config.write_text(text)
    subprocess.run([str(conf), "--olddefconfig", "Kconfig"], cwd=root, check=True, capture_output=True,
                   env={"KCONFIG_CONFIG": str(config), "PATH": "/usr/bin:/bin"})
    values = {}
    for line in config.read_text().splitlines():
        if line.startswith("CONFIG_"):
            name, _, value = line[len("CONFIG_"):].partition("=")
            values[name] = re.sub(r"\\(.)", r"\1", value[1:-1]) if value.startswith('"') else value
        elif line.startswith("# CONFIG_") and line.endswith(" is not set"):
            values[line[len("# CONFIG_"):-len(" is not set")]] = "n"
    return values


def fresh_shown(root: Path, text: str, version: str) -> dict[str, tuple[str, bool]]:
    (root / ".config").write_text(text)
    project = Project(str(root), Settings(kconfig_version=version))
    project.load()
    return shown_state(project)


def candidates(rng: random.Random, entry: dict) -> list[str]:
    kind = entry.get("type")
    if kind in ("bool", "tristate"):
        return ["n", "m", "y"]
    if kind == "int":
        return [str(rng.randint(-5, 30)), "x1"]
    if kind == "hex":
        return [hex(rng.randint(0, 0x2000)), "1000", "0xzz"]
    return ["", "text with \"quotes\" and \\", "v2"]


async def all_entries(client: LanguageClient) -> list[dict]:
    found: list[dict] = []

    async def visit(node_id):
        for entry in (await request(client, "kconfig/menu", {"node": node_id, "showAll": True}))["nodes"]:
            if entry.get("symbol"):
                found.append(entry)
            if entry["hasChildren"]:
                await visit(entry["id"])

    await visit(None)
    return found


async def wait_for(client: LanguageClient, name: str, value: str) -> None:
    for _ in range(200):
        found = (await request(client, "kconfig/search", {"query": name}))["results"]
        if found and found[0]["symbol"] == name and found[0]["value"] == value:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the server never showed {name}={value}")


@pytest.mark.parametrize(("version", "seed"), [("6.1", 20261206), ("6.1", 7), ("6.1", 1234), ("6.12", 20261206),
                                               ("6.12", 99)])
async def test_set_values_equal_what_c_makes_of_the_edited_config(client: LanguageClient, tmp_path, version, seed):
    root = tmp_path / "tree"
    shutil.copytree(SAMPLE, root)
    check = tmp_path / "check"
    shutil.copytree(SAMPLE, check)
    text = (SAMPLE / "configs" / "sample_defconfig").read_text()
    (root / ".config").write_text(text)
    await start(client, root, {"kconfigVersion": version})
    buffer = EditorBuffer(client, root / ".config", text)
    await asyncio.sleep(0.2)
    entries = await all_entries(client)
    rng = random.Random(seed)
    accepted = refused = 0
    for _step in range(40):
        entry = rng.choice(entries)
        name = entry["symbol"]
        value = rng.choice(candidates(rng, entry))
        before_text = buffer.text
        before = c_values(check, before_text, tmp_path, version)
        shown_before = fresh_shown(check, before_text, version)
        edits_before = len(buffer.edits_applied)
        answer = plain(await client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command="kconfig.setValue", arguments=[name, value])))
        if not answer["applied"]:
            refused += 1
            assert answer["reason"] and answer["changed"] == []
            assert buffer.text == before_text and len(buffer.edits_applied) == edits_before
            # (C would not keep the value either.)
            wanted = value if entry["type"] != "hex" or value.startswith("0x") else "0x" + value
            tried = c_values(check, before_text + f"CONFIG_{name}={wanted}\n", tmp_path, version)
            assert tried.get(name, "n") != wanted, (name, value, answer["reason"])
            continue
        accepted += 1
        assert len(buffer.edits_applied) - edits_before <= 1
        after = c_values(check, buffer.text, tmp_path, version)
        shown_after = fresh_shown(check, buffer.text, version)
        if entry["type"] in ("bool", "tristate", "string", "int"):
            assert after.get(name, "n") == value, (name, value, buffer.text)
        moved = {n for n in set(before) | set(after) if before.get(n) != after.get(n)}
        moved |= {n for n in shown_after if shown_before.get(n) != shown_after[n]}
        changed = {c["symbol"]: (c["value"], c["visible"]) for c in answer["changed"]}
        assert set(changed) == moved, (name, value)
        for symbol, state in changed.items():
            assert state == shown_after[symbol]
        await wait_for(client, name, shown_after[name][0])
    assert accepted >= 8 and refused >= 8


async def test_a_refusal_says_why_and_how(client: LanguageClient, tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(SAMPLE, root)
    (root / ".config").write_text("# CONFIG_NET is not set\n")
    await start(client, root)
    answer = plain(await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="kconfig.setValue", arguments=["CONFIG_E1000", "y"])))
    assert answer["applied"] is False
    assert "NETDEVICES" in answer["reason"]
    assert answer["howTo"]["assignments"] == {"NET": "y", "NETDEVICES": "y", "E1000": "y"}
    assert "CONFIG_NET=y" in answer["howToText"]
    answer = plain(await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="kconfig.setValue", arguments=["LOG_BUF_SHIFT", "99"])))
    assert answer["applied"] is False and "range [12, 25]" in answer["reason"]
    assert (root / ".config").read_text() == "# CONFIG_NET is not set\n"
    for arguments in (["NO_SUCH_SYMBOL", "y"], ["NET", None], ["NET"], [3, "y"]):
        with pytest.raises(JsonRpcInvalidParams):
            await client.workspace_execute_command_async(
                lsp.ExecuteCommandParams(command="kconfig.setValue", arguments=arguments))


async def test_without_a_config_file_the_file_is_created(client: LanguageClient, tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(SAMPLE, root)
    (root / ".config").unlink(missing_ok=True)
    await start(client, root)
    made: list = []

    def apply(params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
        made.append(params.edit)
        return lsp.ApplyWorkspaceEditResult(applied=True)

    client.feature(lsp.WORKSPACE_APPLY_EDIT)(apply)
    answer = plain(await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="kconfig.setValue", arguments=["NET", "y"])))
    assert answer["applied"] is True
    assert {"symbol": "NET", "value": "y", "visible": True} in answer["changed"]
    create, edit = made[0].document_changes
    assert create.uri == from_fs_path(str(root / ".config"))
    assert [e.new_text for e in edit.edits] == ["CONFIG_NET=y\n"]
