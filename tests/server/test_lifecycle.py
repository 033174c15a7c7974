"""The server's life: it exits within a second of `shutdown` + `exit`
(even while a load runs), when its input is closed, and when the client
process named in `initialize` is gone; it leaves no child process behind.

Driven over raw pipes, as an editor would, on a copy of the sample tree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "kconfig_ls" / "data" / "sample"


class Wire:
    """A `kconfig-ls serve` process and the JSON-RPC framing to talk to it."""

    def __init__(self, root: Path):
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen([sys.executable, "-m", "kconfig_ls.cli", "serve"], cwd=root, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0

    def send(self, method: str, params=None, request: bool = True) -> int | None:
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        msg_id = None
        if request:
            self.next_id += 1
            msg_id = message["id"] = self.next_id
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return msg_id

    def read(self) -> dict:
        length = 0
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError
            if line.strip() == b"":
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))

    def answer(self, msg_id: int, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = self.read()
            if message.get("id") == msg_id and "method" not in message:
                return message
            if "method" in message and "id" in message:
                # A request from the server (registerCapability, progress): answer it.
                self.reply(message["id"])
        raise TimeoutError

    def reply(self, msg_id) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": None}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def start(self, root: Path, process_id: int | None) -> None:
        msg_id = self.send("initialize", {"processId": process_id, "rootUri": root.as_uri(), "capabilities": {}})
        self.answer(msg_id)
        self.send("initialized", {}, request=False)

    def exit_time(self, timeout: float = 10) -> float:
        start = time.monotonic()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return float("inf")
        return time.monotonic() - start


def children_of(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(SAMPLE, root)
    return root


def test_shutdown_and_exit_end_the_process_within_a_second(tree):
    wire = Wire(tree)
    wire.start(tree, os.getpid())
    wire.answer(wire.send("workspace/executeCommand", {"command": "kconfig.status", "arguments": []}))
    wire.answer(wire.send("shutdown"))
    wire.send("exit", request=False)
    assert wire.exit_time() < 1.0
    assert wire.proc.returncode == 0


def test_exit_while_a_load_runs_is_still_quick(tree):
    wire = Wire(tree)
    wire.start(tree, os.getpid())
    # A reload starts in the background; exit comes at once.
    wire.send("workspace/executeCommand", {"command": "kconfig.reload", "arguments": []})
    wire.answer(wire.send("shutdown"))
    wire.send("exit", request=False)
    assert wire.exit_time() < 1.0


def test_closed_input_ends_the_server(tree):
    wire = Wire(tree)
    wire.start(tree, os.getpid())
    wire.proc.stdin.close()
    assert wire.exit_time() < 2.0


def test_a_vanished_client_process_ends_the_server(tree):
    client = subprocess.Popen(["sleep", "600"])
    wire = Wire(tree)
    try:
        wire.start(tree, client.pid)
        wire.answer(wire.send("workspace/executeCommand", {"command": "kconfig.status", "arguments": []}))
        client.kill()
        client.wait()
        # The server looks every second.
        assert wire.exit_time(timeout=10) < 5.0
        assert children_of(wire.proc.pid) == []
    finally:
        client.kill()
        if wire.proc.poll() is None:
            wire.proc.kill()


@pytest.mark.kernel
def test_exit_during_the_kernel_load_is_still_quick(kernel_tree):
    # The x86_64 load takes seconds; shutdown and exit come right after initialized.
    wire = Wire(kernel_tree)
    wire.start(kernel_tree, os.getpid())
    time.sleep(0.5)
    wire.answer(wire.send("shutdown"))
    wire.send("exit", request=False)
    assert wire.exit_time() < 1.0
    assert children_of(wire.proc.pid) == []


def test_a_process_id_that_is_not_alive_at_the_start_is_not_watched(tree):
    # (A client in another pid namespace: its pid means nothing here.)
    gone = subprocess.Popen(["true"])
    gone.wait()
    wire = Wire(tree)
    try:
        wire.start(tree, gone.pid)
        time.sleep(2.5)
        assert wire.proc.poll() is None
        wire.answer(wire.send("shutdown"))
        wire.send("exit", request=False)
        assert wire.exit_time() < 1.0
    finally:
        if wire.proc.poll() is None:
            wire.proc.kill()
