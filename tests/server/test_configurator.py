"""The configurator protocol (`kconfig/menu`, `kconfig/search`,
`kconfig/menuChanged`) through the server.  Ground truth: the C tool's
`conf --oldaskconfig` on a fresh config asks every visible prompt in menu
order; walking the menu from the top must meet the same headers, prompts
and choices in the same order (the bundled sample; x86_64 6.1 is next)."""

from __future__ import annotations

import asyncio
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
from test_lsp_sample import SAMPLE, SERVER

# (A question ends with its default; one the user cannot change, with its value after it.)
_PROMPT = re.compile(r"^\s*(.*?) \((\w+)\) \[[^\]]*\] (?:\(NEW\) )?(?:\S.*)?$")
_MEMBER = re.compile(r"^\s*[> ] *\d+\. (.*?) \((\w+)\)(?: \(NEW\))?$")


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


def asked(output: str) -> list[tuple]:
    """What conf --oldaskconfig asked, in order: headers (menus, comments),
    prompts of symbols, and choices with their members."""
    # (An answered choice's "choice[1-N?]: " prompt and the next question share a line.)
    lines = [re.sub(r"^\s*choice\[[^\]]*\]: ", "", line) for line in output.split("\n")]
    out: list[tuple] = []
    for n, line in enumerate(lines):
        stripped = line.strip()
        # (A header's first "*" may end the line of an unanswered question.)
        if stripped.startswith("* ") and n > 0 and lines[n - 1].rstrip().endswith("*"):
            out.append(("header", stripped[2:]))
        elif (m := _MEMBER.match(line)) is not None:
            out.append(("member", m.group(1), m.group(2)))
        elif (m := _PROMPT.match(line)) is not None:
            out.append(("config", m.group(1), m.group(2)))
        elif n + 1 < len(lines) and _MEMBER.match(lines[n + 1]) and stripped:
            out.append(("choice", stripped))
    return out


def plain(value):
    """A JSON answer as dicts and lists (pygls gives objects of methods it
    does not know as named tuples)."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


async def request(client: LanguageClient, method: str, params: dict):
    return plain(await client.protocol.send_request_async(method, params))


async def walked(client: LanguageClient, root_prompt: str | None) -> list[tuple]:
    """The same sequence from the server's menu, depth first."""
    out: list[tuple] = [("header", root_prompt)] if root_prompt else []

    async def visit(node_id):
        answer = await request(client, "kconfig/menu", {"node": node_id})
        for entry in answer["nodes"]:
            kind = entry["kind"]
            if kind in ("menu", "comment"):
                out.append(("header", entry["prompt"]))
            elif kind == "choice":
                out.append(("choice", entry["prompt"]))
                members = await request(client, "kconfig/menu", {"node": entry["id"]})
                out.extend(("member", m["prompt"], m["symbol"]) for m in members["nodes"])
                continue
            else:
                out.append(("config", entry["prompt"], entry["symbol"]))
            if entry["hasChildren"]:
                await visit(entry["id"])

    await visit(None)
    return out


async def start(client: LanguageClient, root: Path, options: dict | None = None) -> None:
    await client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), root_uri=from_fs_path(str(root)),
        initialization_options=options or {}))
    for _ in range(1200):
        status = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command="kconfig.status"))
        if status.get("loaded"):
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the tree never loaded")


async def test_the_menu_is_what_conf_asks_on_the_sample(client: LanguageClient, tmp_path):
    conf = require_kernel() / "scripts" / "kconfig" / "conf"
    root = tmp_path / "tree"
    shutil.copytree(SAMPLE, root)
    (root / ".config").unlink(missing_ok=True)
    expected = asked(subprocess.run([str(conf), "--oldaskconfig", "Kconfig"], cwd=tmp_path / "tree",
                                    capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout)
    (root / ".config").unlink(missing_ok=True)
    assert len(expected) > 8
    await start(client, root)
    assert await walked(client, "kconfig-ls sample tree") == expected


async def test_entries_search_and_bad_requests(client: LanguageClient, tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(SAMPLE, root)
    (root / ".config").write_text("CONFIG_NET=y\nCONFIG_NETDEVICES=y\nCONFIG_E1000=m\n")
    await start(client, root)
    top = (await request(client, "kconfig/menu", {"node": None}))["nodes"]
    drivers = next(e for e in top if e["prompt"] == "Device drivers")
    assert drivers["kind"] == "menu" and drivers["hasChildren"] and drivers["visible"]
    assert drivers["location"]["uri"] == from_fs_path(str(root / "drivers" / "Kconfig"))
    entries = (await request(client, "kconfig/menu", {"node": drivers["id"]}))["nodes"]
    net = next(e for e in entries if e.get("symbol") == "NET")
    assert (net["value"], net["modified"], net["type"]) == ("y", True, "bool") and net["assignable"] == ["n", "y"]
    shown_all = (await request(client, "kconfig/menu", {"node": drivers["id"], "showAll": True}))["nodes"]
    assert len(shown_all) >= len(entries)

    found = (await request(client, "kconfig/search", {"query": "config_e1000"}))["results"]
    assert found[0]["symbol"] == "E1000" and found[0]["value"] == "m" and found[0]["path"][0] == "Device drivers"
    by_prompt = (await request(client, "kconfig/search", {"query": "serial support"}))["results"]
    assert by_prompt and by_prompt[0]["symbol"] == "SERIAL_8250"
    assert (await request(client, "kconfig/search", {"query": "   "}))["results"] == []

    for method, params in (("kconfig/menu", {"node": "drivers"}), ("kconfig/menu", {"node": 10**9}),
                           ("kconfig/menu", {"showAll": "yes"}), ("kconfig/search", {"query": 3}),
                           ("kconfig/search", {})):
        with pytest.raises(JsonRpcInvalidParams):
            await request(client, method, params)


async def test_the_menu_changes_are_announced(client: LanguageClient, tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(SAMPLE, root)
    changed = []
    client.feature("kconfig/menuChanged")(lambda params: changed.append(params))
    await start(client, root)
    before = len(changed)
    uri = from_fs_path(str(root / ".config"))
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="kconfig-config", version=1, text="CONFIG_NET=y\n")))
    for _ in range(100):
        if len(changed) > before:
            break
        await asyncio.sleep(0.1)
    assert len(changed) > before
    top = (await request(client, "kconfig/menu", {"node": None}))["nodes"]
    drivers = next(e for e in top if e["prompt"] == "Device drivers")
    entries = (await request(client, "kconfig/menu", {"node": drivers["id"]}))["nodes"]
    assert next(e for e in entries if e.get("symbol") == "NET")["value"] == "y"


async def wait_until(probe, what: str, tries: int = 200):
    for _ in range(tries):
        value = await probe()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


async def test_a_broken_config_and_a_broken_kconfig_keep_the_menu(client: LanguageClient, tmp_path):
    """Unknown symbols and garbage lines in the config: the menu works and a
    setting leaves those lines as they are.  A Kconfig buffer whose edit
    stops the tree from loading: the last good tree answers, marked stale."""
    root = tmp_path / "tree"
    shutil.copytree(SAMPLE, root)
    broken = "CONFIG_NO_SUCH_THING=y\nthis is not a config line\n\x00\xff garbage\nCONFIG_NET=y\n"
    (root / ".config").write_text(broken)
    await start(client, root)
    made: list = []
    client.feature(lsp.WORKSPACE_APPLY_EDIT)(
        lambda params: made.append(params.edit) or lsp.ApplyWorkspaceEditResult(applied=True))
    top = (await request(client, "kconfig/menu", {"node": None}))["nodes"]
    drivers = next(e for e in top if e["prompt"] == "Device drivers")
    entries = (await request(client, "kconfig/menu", {"node": drivers["id"]}))["nodes"]
    assert next(e for e in entries if e.get("symbol") == "NET")["value"] == "y"
    answer = plain(await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="kconfig.setValue", arguments=["NETDEVICES", "y"])))
    assert answer["applied"] and {"symbol": "NETDEVICES", "value": "y", "visible": True} in answer["changed"]
    (edits,) = made[0].changes.values()
    assert [(e.range.start.line, e.new_text) for e in edits] == [(4, "CONFIG_NETDEVICES=y\n")]
    assert "stale" not in await request(client, "kconfig/menu", {"node": None})

    kconfig = root / "drivers" / "Kconfig"
    uri = from_fs_path(str(kconfig))
    text = kconfig.read_text()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="kconfig", version=1, text=text)))
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text + 'source "drivers/gone/Kconfig"\n')]))

    async def stale():
        answer = await request(client, "kconfig/menu", {"node": None})
        return answer if answer.get("stale") else None

    answer = await wait_until(stale, "the menu marked stale")
    assert "drivers/gone/Kconfig" in answer["error"]
    assert [e["prompt"] for e in answer["nodes"]] == [e["prompt"] for e in top]
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))

    async def fresh():
        return "stale" not in await request(client, "kconfig/menu", {"node": None})

    await wait_until(fresh, "the stale marker gone")
