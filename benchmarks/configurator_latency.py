#!/usr/bin/env python3
"""The configurator protocol through the real `kconfig-ls serve` process on
a kernel tree (issue 16's speed goals): `kconfig/menu` for the top level and
for menus expanded by a user (Device Drivers, Networking support, its
sub-menus), `kconfig/search` for a few queries, and `kconfig.setValue` from
the request to its answer (the client applies the edit to its open config
buffer at once, as an editor does).

    python benchmarks/configurator_latency.py [--tree DIR] [--arch x86_64] [--runs 5]

Prints medians and maxima; targets: menu and search <= 50 ms, setValue
<= 200 ms.  The config buffer is the tree's defconfig made in a temporary
directory (the tree is not written).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path
from user_python import user_env

REPO = Path(__file__).resolve().parent.parent
MENUS = ("Device Drivers", "Network device support", "Ethernet driver support", "Networking support",
         "File systems", "General setup", "Processor type and features")
QUERIES = ("e1000", "CONFIG_NET", "usb", "wireless lan", "zstd")
#: (symbol, value) pairs set one after the other (and set back).
SETTINGS = (("E1000E", "m"), ("E1000E", "y"), ("AUDIT", "n"), ("AUDIT", "y"), ("LOG_BUF_SHIFT", "16"),
            ("LOG_BUF_SHIFT", "18"), ("NET", "n"), ("NET", "y"), ("MODULES", "n"), ("MODULES", "y"))


def plain(value):
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


async def timed(coroutine) -> tuple[float, object]:
    t = time.perf_counter()
    result = await coroutine
    return time.perf_counter() - t, plain(result)


def summary(name: str, times: list[float], target_ms: float) -> str:
    return (f"{name}: median {statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms "
            f"over {len(times)} (target {target_ms:.0f} ms)")


async def run(tree: Path, arch: str, runs: int, config: Path) -> None:
    client = LanguageClient("bench", "1")
    loaded = asyncio.Event()
    config_uri = from_fs_path(str(config))
    buffer = {"text": config.read_text(), "version": 1}

    @client.feature("kconfig/status")
    def on_status(params) -> None:
        if plain(params).get("loaded"):
            loaded.set()

    @client.feature("kconfig/menuChanged")
    def on_menu_changed(params) -> None:
        return None

    @client.feature(lsp.WORKSPACE_APPLY_EDIT)
    def on_apply(params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
        lines = buffer["text"].split("\n")
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line) + 1)
        text = buffer["text"]
        for edit in sorted(params.edit.changes[config_uri], key=lambda e: (e.range.start.line, e.range.start.character),
                           reverse=True):
            start = offsets[edit.range.start.line] + edit.range.start.character
            end = offsets[edit.range.end.line] + edit.range.end.character
            text = text[:start] + edit.new_text + text[end:]
        buffer["text"] = text
        buffer["version"] += 1
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=config_uri, version=buffer["version"]),
            [lsp.TextDocumentContentChangeWholeDocument(text=text)]))
        return lsp.ApplyWorkspaceEditResult(applied=True)

    env = user_env()
    await client.start_io(sys.executable, "-m", "kconfig_ls.cli", "serve", env=env)
    await client.initialize_async(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), root_uri=from_fs_path(str(tree)),
        initialization_options={"kconfig": {"arch": arch, "configFile": str(config)}, "trusted": True},
    ))
    client.initialized(lsp.InitializedParams())
    await loaded.wait()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(config_uri, "kconfig-config", 1, buffer["text"])))
    await asyncio.sleep(1.0)

    async def menu(node):
        return await timed(client.protocol.send_request_async("kconfig/menu", {"node": node}))

    top_times, expand_times = [], []
    for _ in range(runs):
        elapsed, top = await menu(None)
        top_times.append(elapsed)
    entries = list(top["nodes"])
    for wanted in MENUS:
        entry = next((e for e in entries if e["prompt"] == wanted), None)
        if entry is None:
            continue
        for _ in range(runs):
            elapsed, answer = await menu(entry["id"])
            expand_times.append(elapsed)
        entries.extend(answer["nodes"])
    search_times = []
    for query in QUERIES:
        for _ in range(runs):
            elapsed, _answer = await timed(client.protocol.send_request_async("kconfig/search", {"query": query}))
            search_times.append(elapsed)
    set_times = []
    for symbol, value in SETTINGS:
        await asyncio.sleep(0.3)  # (the previous edit read, as between a user's clicks)
        elapsed, answer = await timed(client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command="kconfig.setValue", arguments=[symbol, value])))
        set_times.append(elapsed)
        print(f"  setValue {symbol}={value}: {elapsed * 1000:.0f} ms, applied {answer['applied']}, "
              f"{len(answer['changed'])} changed")
    print(summary("kconfig/menu top level", top_times, 50))
    print(summary("kconfig/menu expanding a menu", expand_times, 50))
    print(summary("kconfig/search", search_times, 50))
    print(summary("kconfig.setValue", set_times, 200))
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


def main() -> None:
    default_tree = Path(os.environ.get("KCONFIG_LS_KERNEL", Path.home() / ".cache/kconfig-ls/linux-source-6.1"))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=default_tree)
    parser.add_argument("--arch", default="x86_64")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        build = Path(work)
        subprocess.run(["make", "-s", f"ARCH={args.arch}", f"O={build}", "defconfig"], cwd=args.tree, check=True,
                       capture_output=True)
        asyncio.run(run(args.tree, args.arch, args.runs, build / ".config"))


if __name__ == "__main__":
    main()
