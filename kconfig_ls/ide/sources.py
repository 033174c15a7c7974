"""Kconfig symbols in the files they switch: C sources, headers, assembly,
device trees, linker scripts, Makefiles and Kbuild files.

What is under the cursor (a ``CONFIG_`` name, with what its construct
evaluates to under the loaded configuration), and the lines the
configuration compiles out, as hints.  The scanning is :mod:`..uses`';
this module ties it to the project and its values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..kconfig.expr import BOOL, STRING, TRISTATE
from ..uses import cpp, make, plain
from ..uses.index import file_kind
from ..uses.macros import MODULE_SUFFIX, ConfigMacros
from ..uses.regions import DeadRange, dead_ranges
from .diagnostics import HINT, WARNING, Problem
from .locate import Target
from .project import Project

#: Client language ids of source files (VS Code's and Neovim's).
CPP_LANGUAGES = frozenset({"c", "cpp", "asm", "arm", "assembly", "dts", "linkerscript"})
MAKE_LANGUAGES = frozenset({"makefile", "make", "kbuild"})
RUST_LANGUAGES = frozenset({"rust"})
TEXT_LANGUAGES = frozenset({"restructuredtext", "rst"})


def source_kind(name: str, language_id: str | None = None) -> str | None:
    """``cpp``, ``make``, ``rust`` or ``text`` for a file whose ``CONFIG_``
    uses are read (by the client's language id, else the name), else None."""
    if language_id in CPP_LANGUAGES:
        return "cpp"
    if language_id in MAKE_LANGUAGES:
        return "make"
    if language_id in RUST_LANGUAGES:
        return "rust"
    if language_id in TEXT_LANGUAGES:
        return "text"
    return file_kind(name)


@dataclass
class ScannedFile:
    """One text read as its kind (kept while the text stays the same)."""

    kind: str
    text: str
    parsed: cpp.CppFile | make.MakeFile


def scanned(project: Project, name: str, text: str, kind: str) -> ScannedFile:
    """``text`` of file ``name`` read as ``kind``, cached for its last text."""
    cache = project.source_scans
    kept = cache.get(name)
    if kept is not None and kept.text == text and kept.kind == kind:
        return kept
    prefix = project.config_macros().prefix
    if kind == "cpp":
        parsed = cpp.scan(text, prefix)
    elif kind == "make":
        parsed = make.scan(text, prefix)
    else:
        parsed = plain.scan(text, kind, prefix)
    cache[name] = kept = ScannedFile(kind, text, parsed)
    return kept


def dead_lines(project: Project, file: ScannedFile) -> list[DeadRange]:
    macros = project.config_macros()
    if file.kind == "cpp":
        return dead_ranges(file.parsed, macros)
    if file.kind == "make":
        return make.dead_ranges(file.parsed, macros)
    return []  # (Rust items and prose: nothing the configuration removes by lines)


def source_problems(project: Project, name: str, text: str, kind: str) -> list[Problem]:
    """What the file shows of the configuration: its compiled-out lines and
    its questionable uses, in line order."""
    problems = compiled_out(project, name, text, kind) + questionable_uses(project, name, text, kind)
    problems.sort(key=lambda p: (p.line, p.col))
    return problems


def questionable_uses(project: Project, name: str, text: str, kind: str) -> list[Problem]:
    """Uses that cannot mean what they say: a name no Kconfig file of any
    architecture defines (as the kernel's ``scripts/checkkconfigsymbols.py``
    finds them, but not in comments or strings, not for names the file
    defines itself, not under ``tools/``, which has configurations of its
    own), a ``CONFIG_X_MODULE`` of a symbol that is never ``m``, and
    ``IS_ENABLED()`` and friends of a symbol that is no bool or tristate."""
    file = scanned(project, name, text, kind)
    macros = project.config_macros()
    defined = project.all_arch_definitions()
    local = file.parsed.assigned if kind == "make" else file.parsed.redefined
    checks_names = not name.startswith("tools/")
    problems = []
    for use in file.parsed.uses:
        symbol_name = use.name[len(macros.prefix):]
        if use.name in local:
            continue
        if checks_names and is_checked_name(symbol_name) and symbol_name not in defined and not (
                symbol_name.endswith(MODULE_SUFFIX) and symbol_name[: -len(MODULE_SUFFIX)] in defined):
            problems.append(Problem(use.line, use.col, use.end_col,
                                    f"{use.name} is not defined by any Kconfig file (of any architecture)",
                                    WARNING, "undefined-symbol"))
            continue
        sym = project.kc.symbols.get(macros.symbol_of(use.name) or "")
        if sym is None or not sym.nodes:
            continue
        if use.name == macros.prefix + sym.name + MODULE_SUFFIX and sym.type != TRISTATE:
            problems.append(Problem(use.line, use.col, use.end_col,
                                    f"{use.name} is never defined: {sym.name} is {sym.type_name}, never m",
                                    WARNING, "never-module"))
        elif use.form in cpp.CONFIG_TESTS and sym.type not in (BOOL, TRISTATE):
            problems.append(Problem(use.line, use.col, use.end_col,
                                    f"{use.form}() of {sym.type_name} symbol {sym.name}: it is 1 only when the "
                                    f"value is 1", WARNING, "config-test-type"))
    return problems


#: Capitals and digits: ``scripts/checkkconfigsymbols.py`` takes a name for
#: a symbol when it has two of them at least and ends in a letter or digit
#: (``CONFIG_X``, ``CONFIG_foo`` and pasted ``CONFIG_A_##b`` are not).
_CAPITAL_OR_DIGIT = re.compile(r"[A-Z0-9]")
#: Its placeholder names of examples.
_EXAMPLE_NAMES = frozenset({"FOO", "BAR", "FOO_BAR", "XXX"})


def is_checked_name(name: str) -> bool:
    return (name[-1:].isalnum() and name not in _EXAMPLE_NAMES
            and len(_CAPITAL_OR_DIGIT.findall(name)) >= 2)


def compiled_out(project: Project, name: str, text: str, kind: str) -> list[Problem]:
    """The lines the configuration compiles out of the file, one hint per
    dead arm, saying why (tagged "unnecessary" by the server: faded)."""
    file = scanned(project, name, text, kind)
    macros = project.config_macros()
    problems = []
    for dead in dead_lines(project, file):
        reasons = ", ".join(describe(project, macros, n) for n in dead.names) or "its condition is false"
        verb = "not read by make" if kind == "make" else "compiled out"
        if dead.earlier_taken:
            message = f"{verb}: the branch at line {dead.directive_line} is taken ({reasons})"
        else:
            message = f"{verb}: {reasons}"
        problems.append(Problem(dead.first_line, 0, 0, message, HINT, "compiled-out", end_line=dead.last_line + 1))
    return problems


def describe(project: Project, macros: ConfigMacros, macro: str) -> str:
    """``CONFIG_X is y`` (the symbol's value) for a configuration macro."""
    name = macros.symbol_of(macro)
    sym = project.kc.symbols.get(name) if name is not None else None
    if sym is None:
        return f"{macro} is not defined by any Kconfig file of the tree"
    shown = macros.prefix + sym.name
    value = sym.str_value()
    if sym.type in (BOOL, TRISTATE):
        return f"{shown} is {value}"
    if sym.type == STRING:
        return f'{shown} is "{value}"'
    return f"{shown} is {value}" if value else f"{shown} has no value"


def target_at(project: Project, name: str, text: str, kind: str, line: int, col: int) -> Target | None:
    """The configuration name at 1-based ``line``, 0-based ``col``."""
    file = scanned(project, name, text, kind)
    macros = project.config_macros()
    for use in file.parsed.uses:
        if use.line == line and use.col <= col <= use.end_col:
            symbol_name = macros.symbol_of(use.name) or use.name[len(macros.prefix):]
            sym = project.kc.symbols.get(symbol_name)
            if sym is not None and not sym.nodes:
                sym = None
            target = Target("symbol" if sym is not None else "name", symbol_name, sym, None,
                            use.col, use.end_col, use.line)
            target.construct = construct(macros, use, sym, kind)
            return target
        if use.line > line:
            break
    return None


def construct(macros: ConfigMacros, use: cpp.Use, sym, kind: str) -> str:
    """What the construct around a use evaluates to, in markdown."""
    if sym is None:
        return f"`{use.name}` is defined by no Kconfig file of the tree: it is never set"
    base = macros.prefix + sym.name
    builtin = macros.header.get(base) == "1"
    modular = macros.header.get(base + MODULE_SUFFIX) == "1"
    if kind == "make":
        value = macros.make.get(base, "")
        if use.form.startswith("kbuild:"):
            lists = use.form.split(":", 1)[1]
            meaning = {"y": "built in", "m": "built as a module"}.get(value, "not built")
            return f"`{lists}-$({base})` is `{lists}-{value}`: {meaning}"
        return f"`$({base})` is `{value}`" if value else f"`$({base})` is empty ({base} is not set)"
    if kind == "rust":
        # rustc_cfg: --cfg=CONFIG_X for a bool or tristate set to y or m,
        # and --cfg=CONFIG_X="value" for every value.
        value = macros.make.get(base, "")
        named = sym.type in (BOOL, TRISTATE) and value in ("y", "m")
        shown = f"{base} is {value}" if value else f"{base} is not set"
        if use.form == "cfg":
            return f"`cfg({base})` {'holds' if named else 'does not hold'}: {shown}" + (
                f' (`cfg({base} = "{value.strip(chr(34))}")` does)' if value and not named else "")
        return shown
    if kind == "text":
        value = macros.make.get(base, "")
        return f"{base} is {value}" if value else f"{base} is not set"
    if use.form in ("IS_ENABLED", "IS_BUILTIN", "IS_MODULE"):
        value = {"IS_ENABLED": builtin or modular, "IS_BUILTIN": builtin, "IS_MODULE": modular}[use.form]
        return f"`{use.form}({base})` is {int(value)}"
    if use.form == "IS_REACHABLE":
        if modular:
            return f"`IS_REACHABLE({base})` is 1 in code built as a module, 0 in built-in code ({base} is m)"
        return f"`IS_REACHABLE({base})` is {int(builtin)}"
    if use.name != base:  # CONFIG_X_MODULE
        if sym.type != TRISTATE:
            return f"`{use.name}` is never defined: {base} is a {sym.type_name} symbol, never m"
        return f"`{use.name}` is {'defined (1)' if modular else 'not defined'}"
    if base in macros.header:
        return f"`{base}` is defined as `{macros.header[base]}`"
    return f"`{base}` is not defined" + (f" (`{base}{MODULE_SUFFIX}` is: {base} is m)" if modular else "")


def source_references(project: Project, name: str, open_files: dict[str, tuple[str, str]]
                      ) -> list[tuple[str, int, int, int]]:
    """(file, line, col, end col) of the uses of symbol ``name`` in the
    tree's source files: the index's (:attr:`Project.uses`), with the open
    buffers' own texts (name -> (text, kind)) instead of their files."""
    prefix = project.config_macros().prefix
    macros = {prefix + name, prefix + name + MODULE_SUFFIX}
    found = []
    index = project.uses
    if index is not None:
        found = [(file, line, col, col + len(macro)) for file, line, col, macro in index.uses_of(sorted(macros))
                 if file not in open_files]
    for file, (text, kind) in open_files.items():
        for use in scanned(project, file, text, kind).parsed.uses:
            if use.name in macros:
                found.append((file, use.line, use.col, use.end_col))
    found.sort()
    return found
