"""End to end, once per run: configure with `make scriptconfig` (the kernel
patch series), build bzImage, boot it in QEMU; then the same through the
language server's `kconfig.validate`, its refusal of a config that cannot
show anything on the serial console, and its cancellation.

The proof that the config we wrote is the one that booted: a unique
CONFIG_LOCALVERSION set by the script shows in the `uname -r` printed by
the booted kernel's init.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import shutil
import subprocess
import sys
import uuid
from dataclasses import asdict
from pathlib import Path

import pytest
import pytest_lsp
from conftest import missing
from lsprotocol import types as lsp
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient

from kconfig_ls.validate.initramfs import MARKER
from kconfig_ls.validate.steps import Outcome, boot_kernel, build_kernel

pytestmark = [pytest.mark.kernel, pytest.mark.xdist_group("boot")]

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("boot_script.py")
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "kconfig_ls.cli", "serve"],
    server_env={**os.environ, "PYTHONPATH": str(REPO)},
)



@pytest.fixture(scope="module", autouse=True)
def qemu_installed():
    if shutil.which("qemu-system-x86_64") is None:
        missing("qemu-system-x86_64 is not installed (scripts/setup installs Debian's qemu-system-x86)")


def make(tree: str, build: Path, *targets: str, **variables: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KCONFIG_")}
    env["PYTHONPATH"] = str(REPO)
    args = ["make", "-s", "ARCH=x86_64", f"O={build}", *targets, *(f"{k}={v}" for k, v in variables.items())]
    proc = subprocess.run(args, cwd=tree, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"{' '.join(args)}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return proc.stdout


@pytest.fixture(scope="module")
def booted(tmp_path_factory):
    """tinyconfig + `make scriptconfig` (boot essentials, unique
    LOCALVERSION) + build + boot, once per test run even when several
    xdist workers need it (a file lock; the others reuse the result).
    Returns (tree, build dir, localversion, boot outcome)."""
    base = tmp_path_factory.getbasetemp()
    # Under xdist each worker's base is <run>/popen-gwN: share <run>.
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "boot-shared"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = shared / "result.json"
        if not result.exists():
            result.write_text(json.dumps(_configure_build_boot(shared)))
        data = json.loads(result.read_text())
    return data["tree"], Path(data["build"]), data["localversion"], Outcome(**data["outcome"])


def _configure_build_boot(shared: Path) -> dict:
    tree = subprocess.run([str(REPO / "scripts" / "patched-kernel")], capture_output=True, text=True,
                          check=True).stdout.strip()
    build = shared / "build"
    localversion = "-kls-" + uuid.uuid4().hex[:8]
    make(tree, build, "tinyconfig")
    out = make(tree, build, "scriptconfig", SCRIPT=str(SCRIPT), SCRIPT_ARG=localversion,
               KCONFIG_LS=f"{sys.executable} -m kconfig_ls.cli")
    assert "boot essentials added:" in out and "SERIAL_8250_CONSOLE=y" in out
    config = (build / ".config").read_text()
    assert f'CONFIG_LOCALVERSION="{localversion}"' in config and "CONFIG_SERIAL_8250_CONSOLE=y" in config
    image = asyncio.run(build_kernel(tree, "x86_64", build, lambda s, m: None))
    outcome = asyncio.run(boot_kernel(image, shared / "initramfs", build / "boot.log", lambda s, m: None))
    return {"tree": tree, "build": str(build), "localversion": localversion, "outcome": asdict(outcome)}


def test_script_configured_kernel_boots_with_our_localversion(booted):
    _tree, build, localversion, outcome = booted
    assert outcome.ok, outcome.log_tail
    log = (build / "boot.log").read_text()
    assert f"\n{MARKER}\n" in log.replace("\r", "")
    assert outcome.release.startswith("6.1.") and outcome.release.endswith(localversion)
    assert localversion in outcome.proc_version


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def start(client: LanguageClient, tree: str, config: Path) -> None:
    await client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(window=lsp.WindowClientCapabilities(work_done_progress=True)),
        root_uri=from_fs_path(tree),
        initialization_options={"kconfig": {"arch": "x86_64", "configFile": str(config)}, "trusted": True},
    ))
    for _ in range(1200):
        if any(type(v).__name__ == "WorkDoneProgressEnd" for r in client.progress_reports.values() for v in r):
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the tree never finished loading")


def progress_messages(client: LanguageClient) -> list[str]:
    return [v.message or "" for reports in client.progress_reports.values() for v in reports
            if type(v).__name__ == "WorkDoneProgressReport"]


async def test_lsp_validate_builds_and_boots_the_shown_config(client: LanguageClient, booted):
    tree, build, localversion, _ = booted
    await start(client, tree, build / ".config")
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="kconfig.validate", arguments=[{"buildDir": str(build), "boot": True}]))
    assert result["ok"], result
    assert result["release"].endswith(localversion)
    messages = progress_messages(client)
    for stage in ("config:", "check:", "build:", "boot:"):
        assert any(m.startswith(stage) for m in messages), (stage, messages)
    assert any(MARKER in m for m in messages)


async def test_lsp_validate_refuses_a_config_without_a_serial_console(client: LanguageClient, booted, tmp_path):
    tree, build, _, _ = booted
    config = tmp_path / "no-console.config"
    config.write_text((build / ".config").read_text().replace(
        "CONFIG_SERIAL_8250_CONSOLE=y", "# CONFIG_SERIAL_8250_CONSOLE is not set"))
    await start(client, tree, config)
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="kconfig.validate", arguments=[{"buildDir": str(tmp_path / "never-built")}]))
    assert not result["ok"] and result["stage"] == "config"
    assert result["missing"] == ["SERIAL_8250_CONSOLE"]
    assert "serial console" in result["message"] and "SERIAL_8250_CONSOLE" in result["message"]
    assert not (tmp_path / "never-built").exists()


def _processes_in(directory: Path) -> list[int]:
    """Processes whose working directory or command line is in ``directory``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cwd.startswith(str(directory)) or str(directory) in cmdline:
            found.append(int(entry.name))
    return found


async def test_lsp_validate_cancellation_ends_the_build(client: LanguageClient, booted, tmp_path):
    tree, build, _, _ = booted
    await start(client, tree, build / ".config")
    fresh = tmp_path / "cancelled-build"
    request = asyncio.ensure_future(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="kconfig.validate", arguments=[{"buildDir": str(fresh)}])))
    for _ in range(1200):
        if _processes_in(fresh) and any(m.startswith("build:") for m in progress_messages(client)):
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError(f"the build never started: {progress_messages(client)}")
    token = next(t for t, reports in client.progress_reports.items()
                 if any(getattr(v, "title", None) == "kconfig-ls: validate" for v in reports))
    client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(request, 60)
    assert not result["ok"] and result["stage"] == "cancelled"
    for _ in range(100):
        if not _processes_in(fresh):
            break
        await asyncio.sleep(0.1)
    assert _processes_in(fresh) == []
    assert not (fresh / "arch" / "x86" / "boot" / "bzImage").exists()
