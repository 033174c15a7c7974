#!/usr/bin/env python3
"""Language-server latency on a kernel tree: time from a `didChange` on a
large Kconfig file to the `publishDiagnostics` that follows, and hover
latency, through the real `kconfig-ls serve` process.

    python benchmarks/lsp_latency.py [--tree DIR] [--arch x86_64] [--file drivers/net/ethernet/Kconfig]

Prints medians; targets (issue 3): edit-to-diagnostics <= 100 ms, hover <= 10 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

REPO = Path(__file__).resolve().parent.parent


async def run(tree: Path, arch: str, name: str, edits: int, hovers: int) -> None:
    client = LanguageClient("bench", "1")
    published: dict[str, asyncio.Event] = {}
    progress_done = asyncio.Event()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        published.setdefault(params.uri, asyncio.Event()).set()

    @client.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def on_create(params) -> None:
        return None

    @client.feature(lsp.PROGRESS)
    def on_progress(params) -> None:
        if isinstance(params.value, dict) and params.value.get("kind") == "end":
            progress_done.set()

    env = dict(os.environ, PYTHONPATH=str(REPO))
    await client.start_io(sys.executable, "-m", "kconfig_ls.cli", "serve", env=env)
    start = time.perf_counter()
    await client.initialize_async(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(window=lsp.WindowClientCapabilities(work_done_progress=True)),
        root_uri=from_fs_path(str(tree)),
        initialization_options={"kconfig": {"arch": arch}, "trusted": True},
    ))
    client.initialized(lsp.InitializedParams())
    await progress_done.wait()
    print(f"initial load: {time.perf_counter() - start:.2f} s")

    path = tree / name
    text = path.read_text()
    uri = from_fs_path(str(path))
    published[uri] = asyncio.Event()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "kconfig", 1, text)))
    await published[uri].wait()

    line = next(i for i, line in enumerate(text.split("\n")) if line.startswith("config "))
    edit_times = []
    for version in range(2, 2 + edits):
        published[uri] = asyncio.Event()
        change = lsp.TextDocumentContentChangePartial(
            range=lsp.Range(lsp.Position(line, 0), lsp.Position(line, 0)), text="# edit\n" if version % 2 else "")
        t = time.perf_counter()
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))
        await published[uri].wait()
        edit_times.append(time.perf_counter() - t)

    hover_times = []
    pos = lsp.Position(line, 8)
    for _ in range(hovers):
        t = time.perf_counter()
        await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), pos))
        hover_times.append(time.perf_counter() - t)

    print(f"didChange -> publishDiagnostics on {name}: median {statistics.median(edit_times) * 1000:.0f} ms "
          f"(target 100 ms, includes the {150} ms debounce)")
    print(f"hover: median {statistics.median(hover_times) * 1000:.1f} ms (target 10 ms)")
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


def main() -> int:
    default_tree = os.environ.get("KCONFIG_LS_KERNEL") or os.path.expanduser("~/.cache/kconfig-ls/linux-source-6.1")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", default=default_tree)
    parser.add_argument("--arch", default="x86_64")
    parser.add_argument("--file", default="drivers/net/ethernet/Kconfig")
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--hovers", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(run(Path(args.tree), args.arch, args.file, args.edits, args.hovers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
