"""Shared fixtures: the Linux 6.1 tree, its C ``conf``, and a helper that
runs the C tool and our engine on the same small inline Kconfig tree."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# A test that needs something absent fails, unless the user opted out of it
# with one of these variables; then it is "left out", and the run's last
# lines say which tests were left out and why.  Any other skip is a failure.
OPT_OUTS = {
    "KCONFIG_LS_NO_KERNEL": "the kernel trees were not provisioned",
    "KCONFIG_LS_NO_CODE_SERVER": "code-server (a real VS Code) was not provisioned",
}
LEFT_OUT = "left out by "


def missing(what: str, opt_out: str | None = None) -> None:
    """Stop a test that needs ``what`` (a sentence saying what is absent
    and how to get it): left out when ``opt_out`` is set, else failed."""
    if opt_out is not None and os.environ.get(opt_out):
        pytest.skip(f"{LEFT_OUT}{opt_out}=1 ({OPT_OUTS[opt_out]})")
    hint = f"; or set {opt_out}=1 to leave these tests out" if opt_out else ""
    pytest.fail(f"{what}{hint}", pytrace=False)


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    return longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A skip that no opt-out variable asked for is a failure: the default
    run is meant to run every test on a machine set up by scripts/setup."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail") and LEFT_OUT not in _skip_reason(report):
        report.outcome = "failed"
        report.longrepr = f"skipped, but no opt-out variable asked for it: {_skip_reason(report)}"


_left_out: dict[str, list[str]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and LEFT_OUT in _skip_reason(report):
        _left_out.setdefault(_skip_reason(report).removeprefix("Skipped: "), []).append(report.nodeid)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The run's last lines: the tests left out by an opt-out, and why."""
    if not _left_out or getattr(config, "workerinput", None) is not None:
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    write = reporter.write_line if reporter is not None else print
    total = sum(len(ids) for ids in _left_out.values())
    write(f"LEFT OUT: {total} test(s) did not run:")
    for reason, ids in sorted(_left_out.items()):
        files = sorted({nodeid.split("::")[0] for nodeid in ids})
        write(f"  {len(ids)} {reason}: {', '.join(files)}")


#: The kernel trees each kconfig generation is checked against (their C
#: ``conf`` is the reference), as scripts/provision-kernel places them.
GENERATIONS = ("6.1", "6.12")
_TREE_VARIABLES = {"6.1": "KCONFIG_LS_KERNEL", "6.12": "KCONFIG_LS_KERNEL_6_12"}


def kernel_tree_path(version: str = "6.1") -> Path:
    env = os.environ.get(_TREE_VARIABLES[version])
    if env:
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "kconfig-ls" / f"linux-source-{version}"


def require_kernel(version: str = "6.1") -> Path:
    tree = kernel_tree_path(version)
    if not (tree / "scripts" / "kconfig" / "conf").is_file():
        missing(f"no Linux {version} tree with a built conf at {tree} (scripts/setup provisions it)",
                "KCONFIG_LS_NO_KERNEL")
    return tree


@pytest.fixture(scope="session")
def kernel_tree() -> Path:
    return require_kernel()


#: The generations the inline-snippet harness runs, each against its own C
#: conf (4.x has its own module: 4.11's conf takes other modes).
SNIPPET_GENERATIONS = ("6.1", "6.12")


@pytest.fixture(params=SNIPPET_GENERATIONS)
def generation(request) -> str:
    """Each kconfig generation in turn (its name, as --kconfig-version takes it)."""
    return request.param


@pytest.fixture
def c_conf(generation) -> Path:
    """The C ``conf`` of the generation's kernel tree."""
    return require_kernel(generation) / "scripts" / "kconfig" / "conf"


@pytest.fixture
def our_env(generation) -> dict[str, str]:
    """The environment that makes our conf follow the same generation."""
    return {"KCONFIG_LS_KCONFIG_VERSION": generation}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def run_c_conf(conf: Path, root: Path, args: list[str], env: dict[str, str] | None = None,
               stdin: str | None = None) -> subprocess.CompletedProcess:
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    full_env.update(env or {})
    return subprocess.run([str(conf), *args], cwd=root, env=full_env, capture_output=True, text=True,
                          input=stdin, check=False)


def run_our_conf(root: Path, args: list[str], env: dict[str, str] | None = None,
                 stdin: str | None = None) -> subprocess.CompletedProcess:
    import sys

    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/"),
                "PYTHONPATH": str(REPO)}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "kconfig_ls.cli", "conf", *args], cwd=root, env=full_env,
                          capture_output=True, text=True, input=stdin, check=False)


@pytest.fixture
def parity(tmp_path, c_conf, our_env):
    """``parity(files, mode, config=None)``: run the C conf of each
    generation and ours (following that generation's rules) on the same
    inline tree in two directories and return both .config texts."""

    def check(files: dict[str, str], mode: str, config: str | None = None, env: dict[str, str] | None = None,
              stdin: str | None = None):
        outputs = []
        for side in ("c", "ours"):
            root = tmp_path / side
            write_tree(root, files)
            if config is not None:
                (root / ".config").write_text(config)
            args = [f"--{mode}", "Kconfig"] if "=" not in mode else [f"--{mode}", "Kconfig"]
            if mode.startswith("defconfig") or mode.startswith("savedefconfig"):
                name, _, value = mode.partition("=")
                args = [f"--{name}", value, "Kconfig"]
            runner = (lambda r, a: run_c_conf(c_conf, r, a, env, stdin)) if side == "c" else (
                lambda r, a: run_our_conf(r, a, {**our_env, **(env or {})}, stdin))
            proc = runner(root, args)
            produced = root / (args[1] if mode.startswith("savedefconfig") else ".config")
            if mode in ("listnewconfig", "helpnewconfig") and config is not None:
                produced = root / ".config"
            text = produced.read_text() if produced.exists() else None
            outputs.append((proc.returncode, text, proc.stdout, proc.stderr))
        (c_rc, c_text, c_out, c_err), (o_rc, o_text, o_out, o_err) = outputs
        assert o_rc == c_rc, f"exit codes differ: C {c_rc}, ours {o_rc}\n{o_err}"
        assert o_text == c_text
        assert o_out == c_out
        assert o_err == c_err
        return c_text

    return check


def have(cmd: str) -> bool:
    return shutil.which(cmd) is not None
