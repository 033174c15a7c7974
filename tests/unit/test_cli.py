"""The command line: error messages and exit codes, the demo, and
`kconfig-ls config` against `make` on the real tree."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str, cwd: Path | None = None, **extra_env: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO), **extra_env)
    return subprocess.run([sys.executable, "-m", "kconfig_ls.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)


def test_config_rejects_a_missing_tree(tmp_path):
    proc = cli("config", "--tree", str(tmp_path / "nowhere"), "allnoconfig")
    assert proc.returncode == 2
    assert "not a kernel tree" in proc.stderr


def test_demo_runs_on_the_bundled_tree():
    proc = cli("demo", "--tree", "/nonexistent")
    assert proc.returncode == 0, proc.stderr
    assert "CONFIG_E1000=m" in proc.stdout
    assert 'CONFIG_GREETING="Hello, world! v1.0"' in proc.stdout


def test_conf_reports_a_missing_kconfig(tmp_path):
    proc = cli("conf", "--allnoconfig", "Kconfig", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.strip() == "can't find file Kconfig"


def test_conf_reports_a_missing_source_with_location(tmp_path):
    (tmp_path / "Kconfig").write_text('config A\n\tbool "a"\nsource "missing/Kconfig"\n')
    proc = cli("conf", "--allnoconfig", "Kconfig", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.strip() == 'Kconfig:3: can\'t open file "missing/Kconfig"'


def test_conf_syntax_error_names_file_and_line(tmp_path):
    (tmp_path / "Kconfig").write_text('config A\n\tbool "a"\n\tdepends on (B\n')
    proc = cli("conf", "--allnoconfig", "Kconfig", cwd=tmp_path)
    assert proc.returncode == 1
    # The C tool's exact words (the language server reports the precise
    # cause); a tree without scripts/kconfig follows the newest generation.
    assert proc.stderr == "Kconfig:3: syntax error\nKconfig:3: invalid statement\n"
    assert not (tmp_path / ".config").exists()
    # Linux 6.1's conf names the line after the statement.
    proc = cli("conf", "--allnoconfig", "Kconfig", cwd=tmp_path, KCONFIG_LS_KCONFIG_VERSION="6.1")
    assert proc.stderr == "Kconfig:4: syntax error\nKconfig:3: invalid statement\n"


def test_an_unknown_kconfig_version_is_refused(tmp_path):
    (tmp_path / "Kconfig").write_text('config A\n\tbool "a"\n')
    proc = cli("conf", "--allnoconfig", "Kconfig", cwd=tmp_path, KCONFIG_LS_KCONFIG_VERSION="2.6")
    assert proc.returncode == 2
    assert "unknown kconfig version '2.6' (known: 4.x, 6.1, 6.12, mainline)" in proc.stderr


def test_conf_refuses_a_directory_as_config(tmp_path):
    (tmp_path / "Kconfig").write_text('config A\n\tbool "a"\n')
    (tmp_path / "cfgdir").mkdir()
    env_cmd = ["conf", "--allnoconfig", "Kconfig"]
    env = dict(os.environ, PYTHONPATH=str(REPO), KCONFIG_CONFIG="cfgdir")
    proc = subprocess.run([sys.executable, "-m", "kconfig_ls.cli", *env_cmd], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert "cfgdir: Is a directory" in proc.stderr


@pytest.mark.kernel
def test_config_unknown_arch_lists_the_arches(kernel_tree):
    proc = cli("config", "--tree", str(kernel_tree), "--arch", "vax", "allnoconfig")
    assert proc.returncode == 2
    assert "unknown architecture 'vax'" in proc.stderr and "x86" in proc.stderr


@pytest.mark.kernel
def test_config_savedefconfig_of_a_subdir_defconfig_matches_make(kernel_tree, tmp_path):
    out = tmp_path / "bamboo_defconfig"
    proc = cli("config", "--tree", str(kernel_tree), "--arch", "powerpc", "savedefconfig",
               "--defconfig", "44x/bamboo_defconfig", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    build = tmp_path / "build"
    for target in ("44x/bamboo_defconfig", "savedefconfig"):
        subprocess.run(["make", "-s", "ARCH=powerpc", f"O={build}", target], cwd=kernel_tree, check=True,
                       capture_output=True)
    assert out.read_bytes() == (build / "defconfig").read_bytes()


@pytest.mark.kernel
def test_config_olddefconfig_keeps_config_old(kernel_tree, tmp_path):
    out = tmp_path / "out.config"
    assert cli("config", "--tree", str(kernel_tree), "--arch", "x86_64", "allnoconfig", "-o", str(out)).returncode == 0
    first = out.read_bytes()
    proc = cli("config", "--tree", str(kernel_tree), "--arch", "x86_64", "olddefconfig", "--config", str(out),
               "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "No change to" in proc.stdout
    assert out.read_bytes() == first


def _sample_tree(tmp_path: Path) -> Path:
    import shutil

    root = tmp_path / "sample"
    shutil.copytree(REPO / "kconfig_ls" / "data" / "sample", root)
    (root / ".config").write_text("CONFIG_SERIAL_8250_CONSOLE=y\n")
    return root


def test_why_explains_and_finds_a_verified_fix(tmp_path):
    import json

    root = _sample_tree(tmp_path)
    proc = cli("why", "CONFIG_SERIAL_8250_CONSOLE", "--tree", str(root))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("CONFIG_SERIAL_8250_CONSOLE (bool) = n\n")
    lines = proc.stdout.splitlines()
    assert lines[1] == ("n because your y is not used: its prompt is hidden because it needs SERIAL_8250 [=n]=y; "
                        "you can set SERIAL_8250")
    assert "  - you set it to y in .config:1, but its prompt is hidden, so that value is not used" in lines
    assert "      - SERIAL_8250 is n: you can set it to y (drivers/Kconfig:50)" in lines
    proc = cli("why", "SERIAL_8250_CONSOLE", "--tree", str(root), "--to", "y", "--json")
    answer = json.loads(proc.stdout)
    assert answer["verified"] and answer["assignments"] == {"SERIAL_8250": "y"}
    assert answer["edits"] == [{"line": None, "text": "CONFIG_SERIAL_8250=y"}]


def test_why_reports_impossible_targets_and_bad_input(tmp_path):
    root = _sample_tree(tmp_path)
    (root / "Kconfig").write_text((root / "Kconfig").read_text() + "config NEVER\n\tbool \"never\" if n\n")
    proc = cli("why", "NEVER", "--tree", str(root), "--to", "y")
    assert proc.returncode == 1 and "cannot be made y" in proc.stdout
    proc = cli("why", "PCI", "--tree", str(root), "--to", "m")
    assert proc.returncode == 2 and "PCI is bool: it can be y or n, never m" in proc.stderr
    proc = cli("why", "NO_SUCH", "--tree", str(root))
    assert proc.returncode == 2 and "NO_SUCH is not defined" in proc.stderr
    proc = cli("why", "PCI", "--tree", str(root), "--config", str(root / "missing.config"))
    assert proc.returncode == 2 and "config file not found" in proc.stderr


@pytest.mark.kernel
def test_config_check_with_make_accepts_what_make_leaves_alone(kernel_tree, tmp_path):
    out = tmp_path / "tiny.config"
    proc = cli("config", "--tree", str(kernel_tree), "--arch", "x86_64", "allnoconfig", "-o", str(out),
               "--check-with-make")
    assert proc.returncode == 0, proc.stderr
    assert "make olddefconfig leaves" in proc.stderr and "unchanged" in proc.stderr


def test_config_differences_name_the_symbols():
    from kconfig_ls.validate.steps import config_differences

    ours = "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=3\n"
    theirs = "CONFIG_A=y\nCONFIG_B=y\nCONFIG_D=1\n"
    assert config_differences(ours, theirs) == ["B", "C", "D"]


@pytest.mark.parametrize("command", [
    ["why", "SERIAL_8250_CONSOLE"],
    ["why", "SERIAL_8250_CONSOLE", "--json"],
    ["validate"],
    ["config", "--mode", "allyesconfig", "--output", "-"],
])
def test_one_shot_commands_end_at_once_and_lose_no_output(tmp_path, command):
    """A one-shot command's process ends without Python's teardown
    (cli.run): what it printed into a pipe is all there, with the same
    status as when main() returns normally."""
    tree = REPO / "kconfig_ls" / "data" / "sample"
    args = [*command, "--tree", str(tree)]
    env = dict(os.environ, PYTHONPATH=str(REPO), KCONFIG_LS_NO_CACHE="1")
    env.pop("PYTHONUNBUFFERED", None)  # (a pipe is then block-buffered, as usual)
    fast = subprocess.run([sys.executable, "-m", "kconfig_ls", *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path)
    normal = subprocess.run([sys.executable, "-c", "import sys; from kconfig_ls.cli import main; sys.exit(main())",
                             *args], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert (fast.returncode, fast.stdout, fast.stderr) == (normal.returncode, normal.stdout, normal.stderr)
    assert fast.stdout or fast.stderr


def test_conf_ends_its_draining_thread_before_it_exits():
    """The thread draining conf's input ends before the process does, so the
    pipe closes as the process ends (a writer flooding it until conf is
    gone, as the kernel's tests do, then never writes into a closed pipe
    while conf still looks alive); one waiting for input nobody writes is
    not waited for."""
    from kconfig_ls import stdin_lines

    flooded_read, flooded_write = os.pipe()
    idle_read, idle_write = os.pipe()
    stop = threading.Event()

    def flood() -> None:
        while not stop.is_set():
            os.write(flooded_write, b"\n" * 1024)

    writer = threading.Thread(target=flood, daemon=True)
    try:
        flooded = stdin_lines.StdinLines(flooded_read)
        idle = stdin_lines.StdinLines(idle_read)
        writer.start()
        assert flooded.readline() == "\n"
        started = time.monotonic()
        stdin_lines.stop_draining(timeout=0.2)
        assert not flooded._thread.is_alive()
        assert idle._thread.is_alive() and time.monotonic() - started < 2
    finally:
        stop.set()
        stdin_lines._readers.clear()
        os.close(idle_write)  # (the idle reader meets the end of its input and ends)
        with contextlib.suppress(OSError):
            os.read(flooded_read, 1 << 20)  # (the writer is not left blocked)
        writer.join(2)
        for fd in (flooded_read, flooded_write, idle_read):
            os.close(fd)


def test_conf_input_pipe_holds_a_flood_while_conf_is_not_reading():
    """An interactive conf widens the pipe it reads answers from: a writer
    flooding it with newlines (the kernel's own conf tests) can put 512 KiB
    in it while conf is not reading (loaded machine, exiting), where the
    default 64 KiB would block it and fail it once conf is gone."""
    from kconfig_ls.stdin_lines import widen_pipe

    read_end, write_end = os.pipe()
    try:
        widen_pipe(read_end)
        os.set_blocking(write_end, False)
        written = sum(os.write(write_end, b"\n" * 4096) for _ in range(128))
        assert written == 512 * 1024
        widen_pipe(write_end)  # (already wide: left alone)
        with open(os.devnull) as devnull:
            widen_pipe(devnull.fileno())  # (not a pipe: left alone)
    finally:
        os.close(read_end)
        os.close(write_end)
