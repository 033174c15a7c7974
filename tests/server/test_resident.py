"""The resident process (kconfig_ls/resident.py), through
``python -m kconfig_ls serve`` as editors start it: the first server
leaves a resident process behind; the next is forked by it, on the
editor's own pipes, with the editor's environment and directory, and ends
with the process the editor started; ``KCONFIG_LS_RESIDENT=0`` and a
directory others could use turn it off.  Each test has its own runtime
directory and ends the resident process it started."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path
from test_lsp_sample import REPO, make_tree, position_of

from kconfig_ls import resident


class Editor:
    """One editor session: a server started as an editor starts it."""

    def __init__(self, env: dict[str, str], cwd: Path):
        self.env, self.cwd = env, cwd
        self.client = LanguageClient("test", "1")
        self.status: dict = {}

        @self.client.feature("kconfig/status")
        def on_status(params) -> None:
            self.status = {"pid": getattr(params, "pid", None), "configFile": getattr(params, "configFile", None)}

        @self.client.feature("kconfig/menuChanged")
        def on_menu(params) -> None:
            return None

    async def start(self, root: Path) -> None:
        await self.client.start_io(sys.executable, "-m", "kconfig_ls", "serve", env=self.env, cwd=str(self.cwd))
        await self.client.initialize_async(lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), root_uri=from_fs_path(str(root))))
        self.client.initialized(lsp.InitializedParams())

    async def hover_value(self, path: Path, needle: str) -> str:
        uri = from_fs_path(str(path))
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri, "kconfig", 1, path.read_text())))
        pos = position_of(path, needle)
        for _ in range(200):
            hover = await self.client.text_document_hover_async(
                lsp.HoverParams(lsp.TextDocumentIdentifier(uri), pos))
            if hover is not None and "value **" in hover.contents.value:
                return hover.contents.value
            await asyncio.sleep(0.05)
        raise AssertionError("no hover with a value")

    @property
    def started_pid(self) -> int:
        return self.client._server.pid

    async def server_pid(self) -> int:
        for _ in range(200):
            if self.status.get("pid"):
                return self.status["pid"]
            await asyncio.sleep(0.05)
        raise AssertionError("no kconfig/status")

    async def stop(self) -> int:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()
        return await asyncio.wait_for(self.client._server.wait(), 20)


@pytest.fixture
def world(tmp_path):
    # (A short directory: a Unix socket's path has at most 107 bytes.)
    run = Path(tempfile.mkdtemp(prefix="klr", dir="/tmp"))
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_RUNTIME_DIR": str(run),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop(resident.SWITCH, None)
    yield make_tree(tmp_path), env, tmp_path
    for pid in _residents(str(run)):
        os.kill(pid, signal.SIGTERM)
    shutil.rmtree(run, ignore_errors=True)


def _residents(marker: str) -> list[int]:
    """The resident processes whose socket is under ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"kconfig_ls.resident" in cmdline and any(marker.encode() in a for a in cmdline):
                found.append(int(entry))
    return found


def _wait(predicate, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def test_the_next_server_is_forked_by_the_resident_process(world):
    root, env, tmp_path = world
    first = Editor(env, tmp_path)
    await first.start(root)
    assert "value **" in await first.hover_value(root / "drivers" / "Kconfig", "config NET")
    # (No resident process yet: this one serves by itself, and starts one.)
    assert await first.server_pid() == first.started_pid
    assert _wait(lambda: _residents(env["XDG_RUNTIME_DIR"]))
    assert _wait(lambda: list(Path(env["XDG_RUNTIME_DIR"]).glob("kconfig-ls-*/serve-*.sock")))
    assert await first.stop() == 0

    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    second = Editor({**env, "KCONFIG_CONFIG": "my.config"}, workdir)
    await second.start(root)
    assert "value **" in await second.hover_value(root / "drivers" / "Kconfig", "config NET")
    pid = await second.server_pid()
    assert pid != second.started_pid
    assert pid not in _children(second.started_pid)  # (the resident process's child)
    # The editor's environment and directory, not the resident process's.
    assert second.status["configFile"] == str(root / "my.config")
    assert os.readlink(f"/proc/{pid}/cwd") == str(workdir)
    assert await second.stop() == 0
    assert _wait(lambda: not _alive(pid), 10)


async def test_the_server_ends_with_the_process_the_editor_started(world):
    root, env, tmp_path = world
    first = Editor(env, tmp_path)
    await first.start(root)
    await first.hover_value(root / "drivers" / "Kconfig", "config NET")
    assert _wait(lambda: list(Path(env["XDG_RUNTIME_DIR"]).glob("kconfig-ls-*/serve-*.sock")))
    await first.stop()
    second = Editor(env, tmp_path)
    await second.start(root)
    await second.hover_value(root / "drivers" / "Kconfig", "config NET")
    pid = await second.server_pid()
    assert pid != second.started_pid
    os.kill(second.started_pid, signal.SIGKILL)  # (the editor killed it)
    assert _wait(lambda: not _alive(pid), 15), "the forked server outlived the process the editor started"
    await asyncio.wait_for(second.client._server.wait(), 10)


async def test_off_switch_serves_alone(world):
    root, env, tmp_path = world
    env = {**env, resident.SWITCH: "0"}
    editor = Editor(env, tmp_path)
    await editor.start(root)
    await editor.hover_value(root / "drivers" / "Kconfig", "config NET")
    assert await editor.server_pid() == editor.started_pid
    assert await editor.stop() == 0
    assert not _residents(env["XDG_RUNTIME_DIR"])
    assert not list(Path(env["XDG_RUNTIME_DIR"]).glob("kconfig-ls-*/*.sock"))


def test_a_socket_path_too_long_is_not_used(tmp_path, monkeypatch):
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    assert resident.runtime_dir() is not None and resident.socket_path() is None


def test_a_directory_others_may_use_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert resident.runtime_dir() == str(tmp_path / f"kconfig-ls-{os.getuid()}")
    os.chmod(tmp_path / f"kconfig-ls-{os.getuid()}", 0o755)
    assert resident.runtime_dir() is None and resident.socket_path() is None
    assert resident.run_through_resident(["serve"]) is None


def test_answers_arriving_in_one_read_are_each_read():
    """A command that fails at once has the resident process send its pid and
    its status back to back: the client reads both from one chunk (a fresh-
    clone CI run once printed a traceback there), and a broken line or a
    closed connection is an answer of None, never an exception."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(b'{"pid": 42}\n{"status": 1}\n{"status"\n[1]\n')
        theirs.shutdown(socket.SHUT_WR)
        replies = resident._Replies(ours)
        assert [replies.next() for _ in range(5)] == [{"pid": 42}, {"status": 1}, None, None, None]


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def _run(argv: list[str], cwd: Path, env: dict, stdin: str = "", umask: int = 0o022) -> tuple:
    proc = subprocess.run([sys.executable, "-m", *argv], cwd=cwd, env=env, input=stdin, capture_output=True,
                          text=True, umask=umask, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def test_commands_run_through_the_resident_process_as_they_run_alone(world):
    """``kconfig-ls conf`` forked by the resident process: the same output,
    status and files as run alone, the caller's umask, and its stdin (an
    interactive run waits on it while the resident process's child works)."""
    root, env, tmp_path = world
    config = root / ".config"
    base = config.read_text()
    _run(["kconfig_ls", "conf", "--olddefconfig", "Kconfig"], root, env)  # (starts the resident process)
    assert _wait(lambda: list(Path(env["XDG_RUNTIME_DIR"]).glob("kconfig-ls-*/serve-*.sock")))
    (resident_pid,) = _residents(env["XDG_RUNTIME_DIR"])
    cases = [(["conf", "--olddefconfig", "Kconfig"], "", 0o077),
             (["conf", "--oldaskconfig", "Kconfig"], "\n" * 400, 0o022),
             (["conf", "--defconfig", "no-such-defconfig", "Kconfig"], "", 0o022),
             (["why", "E1000", "--tree", "."], "", 0o022)]
    for argv, stdin, umask in cases:
        results = []
        for module in ("kconfig_ls.cli", "kconfig_ls"):
            config.write_text(base)
            status, out, err = _run([module, *argv], root, env, stdin, umask)
            results.append((status, out, err, config.read_text(), config.stat().st_mode & 0o777))
        assert results[0] == results[1], argv
    # While an interactive run waits for its answers, it is the resident
    # process's child that waits.
    config.write_text("")
    proc = subprocess.Popen([sys.executable, "-m", "kconfig_ls", "conf", "--oldaskconfig", "Kconfig"], cwd=root,
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert _wait(lambda: _children(resident_pid), 20)
    out, _ = proc.communicate("\n" * 400, timeout=60)
    assert proc.returncode == 0 and "configuration written" in out
    assert _wait(lambda: not _children(resident_pid), 10)
