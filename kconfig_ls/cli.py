"""``kconfig-ls`` command line: ``conf`` (a drop-in for the kernel's
``scripts/kconfig/conf``), ``config`` (configure a kernel tree without
make), and ``demo`` (the bundled example)."""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time

from . import __version__
from .stdin_lines import for_conf, stop_draining

#: For ``conf`` in a mode that reads answers, standard input is drained from
#: here on, before the engine's imports (see :mod:`.stdin_lines`).
_EARLY_STDIN = for_conf(sys.argv[1:])

from .kconfig import configfile, session, tree_cache  # noqa: E402
from .kconfig import generation as generations  # noqa: E402
from .kconfig.configfile import N_AS_VALUE, symbol_line  # noqa: E402
from .kconfig.defconfigs import apply_defconfig, defconfig_exists  # noqa: E402
from .kconfig.errors import KconfigError, Severity  # noqa: E402
from .kconfig.kernel import kernel_env  # noqa: E402
from .kconfig.newconfig import new_symbols  # noqa: E402
from .kconfig.shell_cache import ShellCache  # noqa: E402
from .kconfig.tree import Kconfig  # noqa: E402
from .resident import note_tree  # noqa: E402

CONF_MODES = (
    "oldaskconfig",
    "oldconfig",
    "syncconfig",
    "defconfig",
    "savedefconfig",
    "allnoconfig",
    "allyesconfig",
    "allmodconfig",
    "alldefconfig",
    "randconfig",
    "listnewconfig",
    "helpnewconfig",
    "olddefconfig",
    "yes2modconfig",
    "mod2yesconfig",
    "mod2noconfig",
)
CONFIG_MODES = (
    "allnoconfig",
    "allyesconfig",
    "allmodconfig",
    "alldefconfig",
    "defconfig",
    "olddefconfig",
    "savedefconfig",
    "listnewconfig",
)


def _message(text: str) -> None:
    sys.stdout.write(f"#\n# {text}\n#\n")


def _print_warnings(diags) -> None:
    for d in diags:
        if d.severity is Severity.WARNING:
            sys.stderr.write(f"{d.file}:{d.line}:warning: {d.message}\n")
        else:
            sys.stderr.write(f"{d.file}:{d.line}: {d.message}\n")


def _print_unmet(sym) -> None:
    from .kconfig.explain_text import unmet_dependency_text

    sys.stderr.write(unmet_dependency_text(sym))


def _load(kconfig: str, env: dict[str, str] | None, srctree: str | None) -> Kconfig:
    tree = srctree if srctree is not None else os.environ.get("srctree", ".")
    try:
        gen = generations.choose(tree, env if env is not None else os.environ)
    except ValueError as exc:
        sys.stderr.write(f"kconfig-ls: {exc} (from ${generations.VERSION_VARIABLE})\n")
        raise SystemExit(2) from None
    shell = ShellCache(tree, env if env is not None else os.environ)
    kc = tree_cache.load(kconfig, srctree=tree, env=env if env is not None else dict(os.environ), shell=shell,
                         warn_stream=sys.stderr, generation=gen)
    shell.save()
    note_tree(kc.snapshot_path)
    kc.unmet_callback = _print_unmet
    fatal = [d for d in kc.errors if gen.cycles_are_fatal or d.code != "recursive-dep"]
    if fatal:
        raise SystemExit(1)
    return kc


# -- conf ----------------------------------------------------------------------------


def conf_main(argv: list[str]) -> int:
    """The ``scripts/kconfig/conf`` interface: same options, messages and
    exit codes."""
    mode = "oldaskconfig"
    mode_arg: str | None = None
    silent = False
    kconfig: str | None = None
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-h", "--help"):
            _conf_usage()
            return 1
        if arg == "-s" or arg == "--silent":
            silent = True
        elif arg.startswith("--"):
            name, _, value = arg[2:].partition("=")
            if name not in CONF_MODES:
                sys.stderr.write(f"conf: unrecognized option '{arg}'\n")
                return 1
            mode = name
            if name in ("defconfig", "savedefconfig"):
                if not value:
                    i += 1
                    if i >= len(args):
                        sys.stderr.write(f"conf: option '--{name}' requires an argument\n")
                        return 1
                    value = args[i]
                mode_arg = value
        else:
            kconfig = arg
        i += 1
    if kconfig is None:
        sys.stderr.write("conf: Kconfig file missing\n")
        _conf_usage()
        return 1
    if mode == "syncconfig":
        silent = True
    stdin_lines = None
    if mode in ("oldaskconfig", "oldconfig", "syncconfig"):
        global _EARLY_STDIN
        from .stdin_lines import StdinLines

        # Read stdin from now on at the latest: a writer may flood it.
        stdin_lines, _EARLY_STDIN = _EARLY_STDIN or StdinLines(), None
    message = None if silent else _message
    env = dict(os.environ)
    seed = None
    if mode == "randconfig":
        seed = _randconfig_seed(env)
    try:
        kc = _load(kconfig, env, None)
    except KconfigError as exc:
        tree = os.environ.get("srctree", ".")
        stream = sys.stdout if generations.choose(tree, env).errors_on_stdout else sys.stderr
        stream.write(f"{exc}\n")
        return 1
    return _run_conf_mode(kc, mode, mode_arg, message, seed, stdin_lines)


def _randconfig_seed(env: dict[str, str]) -> int:
    seed = None
    text = env.get("KCONFIG_SEED")
    if text:
        try:
            seed = int(text, 0) & 0xFFFFFFFF
        except ValueError:
            seed = None
    if seed is None:
        now = time.time()
        seed = ((int(now) + 1) * (int((now % 1) * 1_000_000) + 1)) & 0xFFFFFFFF
    sys.stdout.write(f"KCONFIG_SEED=0x{seed:X}\n")
    return seed


def _run_conf_mode(kc: Kconfig, mode: str, mode_arg: str | None, message, seed, stdin_lines=None) -> int:
    env = kc.env
    result = None
    if mode == "defconfig":
        result = session.read_user_config(kc, mode_arg, None)
        if result is None:
            sys.stderr.write(f'***\n*** Can\'t find default configuration "{mode_arg}"!\n***\n')
            return 1
    elif mode in ("allnoconfig", "allyesconfig", "allmodconfig", "alldefconfig", "randconfig"):
        allconfig = env.get("KCONFIG_ALLCONFIG")
        if allconfig is not None:
            from .kconfig import configfile

            if allconfig not in ("", "1"):
                path = kc.resolve_config_path(allconfig)
                if path is None:
                    sys.stderr.write(f'*** Can\'t read seed configuration "{allconfig}"!\n')
                    return 1
                result = configfile.read_config_simple(kc, path, allconfig)
            else:
                name = {"allnoconfig": "allno.config", "allyesconfig": "allyes.config",
                        "allmodconfig": "allmod.config", "alldefconfig": "alldef.config",
                        "randconfig": "allrandom.config"}[mode]  # fmt: skip
                path = kc.resolve_config_path(name)
                shown = name
                if path is None:
                    path = kc.resolve_config_path("all.config")
                    shown = "all.config"
                if path is None:
                    sys.stderr.write(
                        f'*** KCONFIG_ALLCONFIG set, but no "{name}" or "all.config" file found\n'
                    )
                    return 1
                result = configfile.read_config_simple(kc, path, shown)
    else:
        result = session.read_user_config(kc, None, message)
    if result is not None:
        _print_warnings(result.warnings)
        if result.warnings and env.get("KCONFIG_WERROR"):
            return 1

    no_write = False
    if mode == "syncconfig" and env.get("KCONFIG_NOSILENTUPDATE"):
        if kc.conf_changed:
            sys.stderr.write("\n*** The configuration requires explicit update.\n\n")
            return 1
        no_write = True

    if mode in ("oldaskconfig", "oldconfig", "listnewconfig", "helpnewconfig", "syncconfig"):
        if mode == "listnewconfig":
            for sym in new_symbols(kc):
                line = symbol_line(kc, sym, N_AS_VALUE)
                if line is not None:
                    sys.stdout.write(line + "\n")
            return 0
        if mode == "helpnewconfig":
            from .kconfig.help_text import symbol_help
            from .kconfig.newconfig import new_nodes

            for node in new_nodes(kc):
                sys.stdout.write(f"-----\n\n{symbol_help(kc, node)}\n-----\n")
            return 0
        from .kconfig.interactive import run_interactive

        run_interactive(kc, mode, stdin_lines)
    else:
        session.apply_mode(kc, mode, seed)

    if kc.unmet and env.get("KCONFIG_WERROR"):
        return 1

    if mode == "savedefconfig":
        try:
            session.write_min_config(kc, mode_arg)
        except OSError:
            sys.stderr.write(f"n*** Error while saving defconfig to: {mode_arg}\n\n")
            return 1
        return 0
    try:
        if not no_write:
            session.write_config(kc, None, message)
    except (OSError, session.ConfError) as exc:
        sys.stderr.write(f"{exc}\n\n*** Error during writing of the configuration.\n\n")
        return 1
    if not kc.gen.writes_autoconf and mode != "syncconfig":
        return 0
    try:
        session.write_autoconf(kc, overwrite=mode == "syncconfig")
    except OSError:
        if mode == "syncconfig":
            sys.stderr.write("\n*** Error during sync of the configuration.\n\n")
            return 1
    return 0


def _conf_usage() -> None:
    sys.stdout.write(
        "Usage: kconfig-ls conf [options] <kconfig-file>\n\n"
        "Generic options:\n"
        "  -h, --help              Print this message and exit.\n"
        "  -s, --silent            Do not print log.\n\n"
        "Mode options:\n"
        "  --listnewconfig         List new options\n"
        "  --helpnewconfig         List new options and help text\n"
        "  --oldaskconfig          Start a new configuration using a line-oriented program\n"
        "  --oldconfig             Update a configuration using a provided .config as base\n"
        "  --syncconfig            Similar to oldconfig but generates configuration in\n"
        "                          include/{generated/,config/}\n"
        "  --olddefconfig          Same as oldconfig but sets new symbols to their default value\n"
        "  --defconfig <file>      New config with default defined in <file>\n"
        "  --savedefconfig <file>  Save the minimal current configuration to <file>\n"
        "  --allnoconfig           New config where all options are answered with no\n"
        "  --allyesconfig          New config where all options are answered with yes\n"
        "  --allmodconfig          New config where all options are answered with mod\n"
        "  --alldefconfig          New config with all symbols set to default\n"
        "  --randconfig            New config with random answer to all options\n"
        "  --yes2modconfig         Change answers from yes to mod if possible\n"
        "  --mod2yesconfig         Change answers from mod to yes if possible\n"
        "  --mod2noconfig          Change answers from mod to no if possible\n"
        "  (If none of the above is given, --oldaskconfig is the default)\n"
    )


# -- config ----------------------------------------------------------------------------


def config_main(args: argparse.Namespace) -> int:
    tree = os.path.abspath(args.tree)
    try:
        ke = kernel_env(tree, args.arch)
        defconfig = args.defconfig or (ke.defconfig if args.mode == "defconfig" else None)
        if defconfig is not None:
            if os.path.isfile(defconfig):
                defconfig = os.path.abspath(defconfig)
            elif not defconfig_exists(tree, ke.srcarch, defconfig):
                raise KconfigError(
                    f"defconfig not found: {defconfig} (looked in arch/{ke.srcarch}/configs/ and as a path)"
                )
        config_in = os.path.abspath(args.config) if args.config else None
        if config_in and not os.path.isfile(config_in):
            raise KconfigError(f"config file not found: {args.config}")
        out = os.path.abspath(args.output) if args.output else None
        fragments = [os.path.abspath(f) if os.path.isfile(f) else f for f in args.fragment]
    except KconfigError as exc:
        sys.stderr.write(f"kconfig-ls: {exc}\n")
        return 2
    cwd = os.getcwd()
    os.chdir(tree)
    try:
        gen = generations.choose(tree, os.environ, args.kconfig_version)
        if args.verbose:
            sys.stderr.write(f"kconfig-ls: kconfig {gen.name} rules ({gen.description})\n")
        shell = ShellCache(".", ke.env)
        kc = tree_cache.load(ke.kconfig, srctree=".", env=ke.env, shell=shell,
                             warn_stream=sys.stderr if args.verbose else None, generation=gen)
        shell.save()
        note_tree(kc.snapshot_path)
        status = _config_mode(kc, ke, args.mode, defconfig, config_in, out, fragments)
    except KconfigError as exc:
        sys.stderr.write(f"kconfig-ls: {exc}\n")
        return 1
    finally:
        os.chdir(cwd)
    if status == 0 and args.check_with_make and args.mode not in ("savedefconfig", "listnewconfig"):
        return _check_written(tree, ke.arch, out or os.path.join(tree, ke.env.get("KCONFIG_CONFIG", ".config")))
    return status


def _check_written(tree: str, arch: str, path: str) -> int:
    """``make olddefconfig`` on a copy of what was written must leave it
    byte-identical; report the symbols it would change otherwise."""
    import asyncio

    from .validate.run import cache_root
    from .validate.steps import StepFailed, check_with_make

    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    try:
        differences = asyncio.run(check_with_make(tree, arch, text, cache_root() / "tmp"))
    except StepFailed as failed:
        sys.stderr.write(f"kconfig-ls: {failed.outcome.message}\n{failed.outcome.log_tail}\n")
        return 1
    if differences:
        sys.stderr.write("kconfig-ls: make olddefconfig changes the written config: " + ", ".join(differences) + "\n")
        return 1
    sys.stderr.write(f"kconfig-ls: make olddefconfig leaves {path} unchanged\n")
    return 0


def _config_mode(kc, ke, mode, defconfig, config_in, out, fragments) -> int:
    from .kconfig.fragments import merge_fragments, olddefconfig_text

    if mode in ("allnoconfig", "allyesconfig", "allmodconfig", "alldefconfig"):
        session.apply_mode(kc, mode)
    else:
        if defconfig:
            apply_defconfig(kc, ke.tree, ke.srcarch, defconfig)
        else:
            source = config_in or os.path.join(ke.tree, ".config")
            if not os.path.isfile(source) and mode != "olddefconfig":
                sys.stderr.write(f"kconfig-ls: no config to start from: {source}\n")
                return 2
            session.read_user_config(kc, source if os.path.isfile(source) else None, None)
        if fragments:
            merge_fragments(kc, fragments)
    if mode == "savedefconfig":
        # `make savedefconfig` is a new conf run that reads the .config.
        olddefconfig_text(kc, configfile.config_text(kc))
        target = out or os.path.join(ke.tree, "defconfig")
        session.write_min_config(kc, target)
        print(f"minimal config written to {target}")
        return 0
    if mode == "listnewconfig":
        for sym in new_symbols(kc):
            line = symbol_line(kc, sym, N_AS_VALUE)
            if line is not None:
                print(line)
        return 0
    target = out or os.path.join(ke.tree, ke.env.get("KCONFIG_CONFIG", ".config"))
    session.write_config(kc, target, _message)
    return 0


# -- why -------------------------------------------------------------------------------


def _open_project(root: str, arch: str | None, config_arg: str | None, kconfig_version: str | None = None):
    """Load a tree for a command the user runs on their own tree (so, as
    with make, ``$(shell,...)`` runs).  Returns (project, 0), or (None, exit
    status) after printing why not."""
    from .ide.project import Project, Settings

    config = os.path.abspath(config_arg) if config_arg else None
    if config is not None and not os.path.isfile(config):
        sys.stderr.write(f"kconfig-ls: config file not found: {config_arg}\n")
        return None, 2
    project = Project(root, Settings(arch=arch, config_file=config, trusted=True, kconfig_version=kconfig_version))
    if project.generation_error:
        sys.stderr.write(f"kconfig-ls: {project.generation_error}\n")
        return None, 2
    loaded = project.load()
    if loaded.kc is None:
        sys.stderr.write(f"kconfig-ls: {loaded.error}\n")
        return None, 1
    return project, 0


def why_main(args: argparse.Namespace) -> int:
    """``kconfig-ls why FOO``: why FOO has its value; with ``--to``, the
    verified assignments that give it another one."""
    import json

    from .ide.project import find_root
    from .kconfig.explain import explain
    from .kconfig.explain_report import explanation_text, howto_text
    from .kconfig.howto import TargetError, how_to

    root = find_root(args.tree) if os.path.isdir(args.tree) else None
    if root is None:
        sys.stderr.write(f"kconfig-ls: no Kconfig tree at {args.tree}\n")
        return 2
    project, status = _open_project(root, args.arch, args.config, args.kconfig_version)
    if project is None:
        return status
    kc = project.kc
    note_tree(kc.snapshot_path)
    prefix = configfile.config_prefix(kc)
    name = args.symbol.removeprefix(prefix)
    sym = kc.find(name)
    if sym is None or not sym.nodes:
        sys.stderr.write(f"kconfig-ls: {name} is not defined in this tree (ARCH={project.arch})\n")
        return 2
    if args.to is None:
        config_name = project.relative(project.config_path) if project.config_text is not None else None
        ex = explain(kc, sym, config_name, project.config_text, project.all_arch_definitions)
        if args.json:
            print(json.dumps(ex.to_dict(), indent=2))
        else:
            sys.stdout.write(explanation_text(kc, ex, prefix))
        return 0
    try:
        answer = how_to(kc, sym, args.to, project.config_text, time_limit=args.time_limit)
    except TargetError as exc:
        sys.stderr.write(f"kconfig-ls: {exc}\n")
        return 2
    if args.json:
        print(json.dumps(answer.to_dict(), indent=2))
    else:
        sys.stdout.write(howto_text(answer, prefix))
    return 0 if answer.reachable else 1


# -- validate --------------------------------------------------------------------------


def validate_main(args: argparse.Namespace) -> int:
    """``kconfig-ls validate``: write the config, check it with make, build
    bzImage out of tree and (``--boot``) boot it in QEMU."""
    import asyncio

    from .validate.run import validate

    tree = os.path.abspath(args.tree)
    if not os.path.isfile(os.path.join(tree, "Kconfig")) or not os.path.isdir(os.path.join(tree, "arch")):
        sys.stderr.write(f"kconfig-ls: {args.tree} is not a kernel tree\n")
        return 2
    project, status = _open_project(tree, args.arch, args.config)
    if project is None:
        return status

    def progress(stage: str, message: str) -> None:
        sys.stderr.write(f"[{stage}] {message}\n")

    outcome = asyncio.run(validate(project, progress, args.build_dir, args.boot, args.add_boot_essentials,
                                   args.jobs))
    print(("OK: " if outcome.ok else f"FAILED ({outcome.stage}): ") + outcome.message)
    for name, value in (("config", outcome.config_path), ("bzImage", outcome.bzimage),
                        ("uname -r", outcome.release), ("/proc/version", outcome.proc_version),
                        ("log", outcome.log)):
        if value:
            print(f"  {name}: {value}")
    if not outcome.ok and outcome.log_tail:
        print("--- log tail ---\n" + outcome.log_tail)
    return 0 if outcome.ok else 1


# -- entry point -----------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kconfig-ls", description=__doc__)
    parser.add_argument("--version", action="version", version=f"kconfig-ls {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("conf", help="drop-in for scripts/kconfig/conf (run 'kconfig-ls conf --help')", add_help=False)
    cfg = sub.add_parser("config", help="configure a kernel tree without make")
    cfg.add_argument("mode", choices=CONFIG_MODES)
    cfg.add_argument("--tree", default=os.environ.get("KCONFIG_LS_KERNEL", "."), help="kernel source tree")
    cfg.add_argument("--arch", default=None, help="ARCH (default: the host's)")
    cfg.add_argument("--config", default=None, help="start from this config file (default: TREE/.config)")
    cfg.add_argument("--defconfig", default=None, help="start from an arch/*/configs name or a file")
    cfg.add_argument("--fragment", action="append", default=[], help="merge a *.config fragment (repeatable)")
    cfg.add_argument("-o", "--output", default=None, help="output file")
    cfg.add_argument("-v", "--verbose", action="store_true", help="print Kconfig warnings")
    cfg.add_argument("--kconfig-version", default=None, choices=sorted(generations.GENERATIONS),
                     help="follow this kconfig generation's rules (default: the tree's own)")
    cfg.add_argument("--check-with-make", action="store_true",
                     help="then run the kernel's make olddefconfig on a copy: it must change nothing")
    why = sub.add_parser("why", help="explain a symbol's value; with --to, what to set to change it")
    why.add_argument("symbol", help="symbol name (with or without CONFIG_)")
    why.add_argument("--tree", default=os.environ.get("KCONFIG_LS_KERNEL", "."), help="Kconfig or kernel tree")
    why.add_argument("--arch", default=None, help="ARCH (default: the host's)")
    why.add_argument("--config", default=None, help="config file (default: $KCONFIG_CONFIG or TREE/.config)")
    why.add_argument("--to", default=None, metavar="VALUE", help="target value: y, m, n, or a number/string")
    why.add_argument("--json", action="store_true", help="machine-readable output")
    why.add_argument("--kconfig-version", default=None, choices=sorted(generations.GENERATIONS),
                     help="follow this kconfig generation's rules (default: the tree's own)")
    why.add_argument("--time-limit", type=float, default=10.0, help="search time limit in seconds (--to)")
    val = sub.add_parser("validate", help="write the config, build bzImage out of tree, boot it in QEMU")
    val.add_argument("--tree", default=os.environ.get("KCONFIG_LS_KERNEL", "."), help="kernel source tree")
    val.add_argument("--arch", default="x86_64", help="ARCH (x86_64, i386)")
    val.add_argument("--config", default=None, help="config file (default: $KCONFIG_CONFIG or TREE/.config)")
    val.add_argument("--boot", action="store_true", help="boot the kernel in qemu-system-x86_64")
    val.add_argument("--build-dir", default=None, help="out-of-tree build directory (default: in the cache)")
    val.add_argument("--add-boot-essentials", action="store_true",
                     help="enable what a serial-console boot needs (SERIAL_8250_CONSOLE, PRINTK, ...)")
    val.add_argument("-j", "--jobs", type=int, default=None, help="make -j (default: the CPU count)")
    from .script import add_parser as add_script_parser

    add_script_parser(sub)
    serve = sub.add_parser("serve", help="run the language server (stdio)")
    serve.add_argument("--tcp", metavar="HOST:PORT", default=None, help="listen on TCP instead (debugging)")
    serve.add_argument("--stdio", action="store_true", help="use stdio (the default)")
    demo = sub.add_parser("demo", help="configure the bundled example tree and show the result")
    demo.add_argument("--tree", default=None, help="use this kernel tree instead of the bundled example")
    return parser


#: Commands that load a tree, answer and end: their process ends without
#: Python freeing the tree object by object (see :func:`run`).
ONE_SHOT_COMMANDS = ("conf", "config", "why", "validate")


def run() -> None:
    """The ``kconfig-ls`` command (and ``python -m kconfig_ls``): :func:`main`,
    then, for a one-shot command, the process ends at once instead of
    tearing down its half a million objects one by one (0.1 s of a 0.35 s
    warm ``conf`` run).  Output is flushed first; a flush that fails (a
    closed pipe) ends it with status 120, as Python's own exit would."""
    code = main()
    if sys.argv[1:2] and sys.argv[1] in ONE_SHOT_COMMANDS:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:
            code = 120
        stop_draining()
        os._exit(code)
    sys.exit(code)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "conf":
        # A one-shot run over ~100k long-lived objects: cyclic GC passes
        # would only rescan them.
        gc.disable()
        return conf_main(argv[1:])
    args = build_parser().parse_args(argv)
    if args.command == "config":
        gc.disable()  # (one-shot, as conf)
        return config_main(args)
    if args.command == "why":
        return why_main(args)
    if args.command == "validate":
        return validate_main(args)
    if args.command == "script":
        from .script import script_main

        return script_main(args)
    if args.command == "serve":
        from .server.server import main as serve_main

        serve_main(args.tcp)
        return 0
    if args.command == "demo":
        from .demo import demo_main

        return demo_main(args.tree)
    return 2


if __name__ == "__main__":
    run()
