#!/usr/bin/env python3
"""CONFIG_ uses in C files through the real `kconfig-ls serve` process, on
a kernel tree (issue 15's speed goals): hover on a `CONFIG_` name in
kernel/sched/core.c; didOpen -> the compiled-out regions published;
a .config edit (SCHED_CORE n <-> y in the open config buffer) -> the
regions published again; and how long indexing the tree's uses took.

    python benchmarks/source_latency.py [--tree DIR] [--arch x86_64] [--runs 5]

Prints medians; targets: hover <= 10 ms, regions <= 100 ms after open or a
.config change.  The config buffer is a copy of the tree's defconfig in a
temporary directory (the tree is not written).
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
CORE = "kernel/sched/core.c"


async def run(tree: Path, arch: str, runs: int, config: Path) -> None:
    client = LanguageClient("bench", "1")
    published: dict[str, asyncio.Queue] = {}
    ended: dict[str, float] = {}
    titles: dict[str, str] = {}
    start = time.perf_counter()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        published.setdefault(params.uri, asyncio.Queue()).put_nowait((time.perf_counter(), params.diagnostics))

    @client.feature("kconfig/status")
    def on_status(params) -> None:
        return None

    @client.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def on_create(params) -> None:
        return None

    @client.feature(lsp.PROGRESS)
    def on_progress(params) -> None:
        value = params.value if isinstance(params.value, dict) else {}
        if value.get("kind") == "begin":
            titles[params.token] = value.get("title", "")
        elif value.get("kind") == "end":
            ended[titles.get(params.token, "")] = time.perf_counter()

    env = user_env()
    await client.start_io(sys.executable, "-m", "kconfig_ls.cli", "serve", env=env)
    await client.initialize_async(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(window=lsp.WindowClientCapabilities(work_done_progress=True)),
        root_uri=from_fs_path(str(tree)),
        initialization_options={"kconfig": {"arch": arch, "configFile": str(config)}, "trusted": True},
    ))
    client.initialized(lsp.InitializedParams())
    while "Loading Kconfig tree" not in ended:
        await asyncio.sleep(0.05)
    print(f"initial load: {ended['Loading Kconfig tree'] - start:.2f} s")
    while "Indexing CONFIG_ uses" not in ended:
        await asyncio.sleep(0.05)
    print(f"uses indexed {ended['Indexing CONFIG_ uses'] - ended['Loading Kconfig tree']:.2f} s after the load")

    text = (tree / CORE).read_text()
    lines = text.split("\n")
    uri = from_fs_path(str(tree / CORE))
    queue = published[uri] = asyncio.Queue()
    opens = []
    for version in range(runs):
        t = time.perf_counter()
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "c", version, text)))
        when, diagnostics = await queue.get()
        assert any(d.code == "compiled-out" for d in diagnostics)
        opens.append(when - t)
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
        await asyncio.sleep(0.2)
        while not queue.empty():
            queue.get_nowait()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "c", 99, text)))
    await queue.get()
    line = lines.index("#ifdef CONFIG_SCHED_CORE")
    hovers = []
    for _ in range(20):
        t = time.perf_counter()
        await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri),
                                                               lsp.Position(line, 10)))
        hovers.append(time.perf_counter() - t)

    config_uri = from_fs_path(str(config))
    config_text = config.read_text()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(config_uri, "kconfig-config", 1, config_text)))
    await asyncio.sleep(1.0)
    while not queue.empty():
        queue.get_nowait()
    changes = []
    for run_number in range(runs * 2):
        enabled = run_number % 2 == 0
        new_text = config_text + ("CONFIG_SCHED_CORE=y\n" if enabled else "")
        t = time.perf_counter()
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=config_uri, version=run_number + 2),
            [lsp.TextDocumentContentChangeWholeDocument(text=new_text)]))
        while True:
            when, diagnostics = await queue.get()
            dead = any(d.code == "compiled-out" and d.range.start.line == line + 1 for d in diagnostics)
            if dead != enabled:
                break
        changes.append(when - t)
    print(f"{CORE}: hover median {statistics.median(hovers) * 1000:.1f} ms (target 10 ms); didOpen -> regions "
          f"median {statistics.median(opens) * 1000:.0f} ms (target 100 ms); .config edit (SCHED_CORE n <-> y) -> "
          f"regions median {statistics.median(changes) * 1000:.0f} ms (target 100 ms; includes the server's "
          f"quiet time before re-reading the config)")
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
