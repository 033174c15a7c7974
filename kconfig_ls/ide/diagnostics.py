"""Problems to show in the editor, per file: the engine's parse errors and
warnings, recursive dependencies, references to symbols no architecture
defines, unmet select dependencies, and for config files: unknown symbols,
bad values and values that will not stick."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..kconfig.configfile import ConfigReadResult
from ..kconfig.errors import KconfigError
from ..kconfig.explain import explain
from ..kconfig.expr import BOOL, HEX, INT, STRING, TRI_STR, TRISTATE, N
from ..kconfig.tree import Kconfig
from .linemap import LineMap
from .project import Project, is_buffer_name

ERROR, WARNING, INFO, HINT = "error", "warning", "info", "hint"
_ASSIGNMENT = re.compile(r"^(?:# )?CONFIG_([A-Za-z0-9_]+)")


@dataclass
class Problem:
    line: int  # 1-based
    col: int
    end_col: int
    message: str
    severity: str
    code: str = ""
    #: What a quick fix needs (``{"symbol": ..., "target": ...}``).
    data: dict | None = None
    #: A problem over several lines ends on this 1-based line, at
    #: ``end_col`` (None: it ends on ``line``).
    end_line: int | None = None


#: Codes of the problems only a load of the whole tree finds (recursive
#: dependencies, values): a quick check keeps them from the last load.
TREE_CODES = frozenset({"recursive-dep", "unmet-select", "shell-untrusted", "config", "value-not-kept"})


def document_problems(project: Project, name: str, text: str, kconfig: bool) -> list[Problem]:
    """The problems of an open document: ``text`` as the file the tree
    calls ``name`` (a path for a file outside the tree, a URI for a buffer
    with no file), Kconfig text if ``kconfig`` else config text.  When the
    loaded tree saw other text for it (an edit not yet re-linked), the file
    is checked on its own and the whole-tree problems of the last load are
    carried over around the edit.  Call with ``project.lock`` held."""
    kc = project.kc
    err = project.load_error
    if kc is None:
        # The tree could not be loaded at all: say why where it happened.
        if err is not None and (err.file == name or (err.file is None and name == project.top)):
            return [_fatal(err)]
        return []
    if kconfig:
        loaded = kc.files.get(name)
        if loaded is None:
            return quick_kconfig_problems(project, name, text)
        problems = project.tree_problems.get(name)
        if problems is None:
            problems = project.tree_problems[name] = kconfig_problems(project, kc, name)
            if err is not None and err.file == name:
                problems.append(_fatal(err))
        if loaded.text == text:
            return problems
        return quick_kconfig_problems(project, name, text) + carry_over(problems, loaded.text, text)
    if name != project.config_name or project.config_text is None:
        return config_problems(kc, text, None)
    problems = config_problems(kc, project.config_text, project.config_result)
    if project.config_text == text:
        return problems
    return config_problems(kc, text, None) + carry_over(problems, project.config_text, text)


def _fatal(err: KconfigError) -> Problem:
    """The error that stopped the load, on its whole line."""
    return Problem(err.line or 1, 0, 1000, err.message, ERROR, "fatal")


def kconfig_problems(project: Project, kc: Kconfig, file: str) -> list[Problem]:
    """Every problem of Kconfig file ``file`` of the loaded tree ``kc``."""
    problems = file_problems(project, kc, file)
    for sym in kc.all_symbols:
        if sym.rev_dep is None or not sym.nodes or not any(n.file == file for n in sym.nodes):
            continue
        sym.calc_value()
        if sym.dir_dep_tri < sym.rev_dep_tri:
            node = next(n for n in sym.nodes if n.file == file)
            problems.append(Problem(node.line, 0, 1000,
                                    f"unmet direct dependencies: {sym.name} is selected "
                                    f"({TRI_STR[sym.rev_dep_tri]}) but depends on n", WARNING, "unmet-select",
                                    {"symbol": sym.name, "target": "deps"}))
    if project.shell.denied and file == kc.top_file:
        problems.append(Problem(1, 0, 0, f"{len(project.shell.denied)} $(shell,...) commands were not run "
                                "because this tree is not trusted; values that depend on the toolchain may "
                                "differ from make", INFO, "shell-untrusted"))
    return problems


def quick_kconfig_problems(project: Project, file: str, text: str) -> list[Problem]:
    """The problems of ``text`` as Kconfig file ``file`` found without
    re-linking the tree (see :class:`~kconfig_ls.kconfig.filecheck.FileCheck`):
    syntax, types, undefined symbols; not those with :data:`TREE_CODES`.

    A file the loaded tree does not include (another architecture's) gets
    the checks its text alone allows, and a note saying so."""
    index = project.all_arch_definitions({**project.overlays, file: text})
    standalone = file not in project.kc.files
    problems = file_problems(project, project.file_check(file, text), file, index)
    if standalone:
        where = f"the {project.arch} tree" if project.arch else "the loaded tree"
        if is_buffer_name(file):
            # An unsaved buffer: no setting would make the tree include it.
            hint = ""
        else:
            hint = " (set kconfig.arch to check it fully)" if project.arch else ""
        shown = "this buffer" if is_buffer_name(file) else file
        problems.append(Problem(1, 0, 0, f"{shown} is not part of {where}: only its syntax and symbol names "
                                "are checked" + hint, INFO, "not-loaded"))
    return problems


def file_problems(project: Project, kc: Kconfig, file: str,
                  index: dict[str, list[tuple[str, int]]] | None = None) -> list[Problem]:
    """The problems of ``file`` that its own text shows: the engine's
    diagnostics, undefined symbols, int/hex/string symbols used as truth
    values."""
    problems: list[Problem] = []
    for d in kc.diagnostics:
        if d.file != file:
            continue
        end = d.end_col if d.end_col is not None else d.col + 1000
        # An option cut off from its entry by the error just before is that
        # error's consequence: shown, but not as another error.
        severity = INFO if d.code == "after-error" else d.severity.value
        problems.append(Problem(d.line, d.col, end, d.message, severity, d.code or "kconfig"))
    if index is None:
        index = project.all_arch_definitions()
    for sym in kc.undefined_references():
        if sym.name in index:
            continue  # defined for another architecture
        for ref_file, start, end in sym.refs:
            if ref_file == file:
                line, col = kc.locate(file, start)
                problems.append(Problem(line, col, col + end - start,
                                        f"'{sym.name}' is not defined in any Kconfig file", WARNING,
                                        "undefined-symbol"))
    for use_file, start, end, sym in kc.logical_uses:
        if use_file == file and sym.type in (INT, HEX, STRING):
            line, col = kc.locate(file, start)
            article = "an" if sym.type in (INT, HEX) else "a"
            zero = {INT: "0", HEX: "0x0", STRING: '""'}[sym.type]
            problems.append(Problem(line, col, col + end - start,
                                    f"'{sym.name}' is {article} {sym.type_name} symbol: as a truth value it is "
                                    f"always n; compare it instead (e.g. {sym.name} != {zero})",
                                    WARNING, "non-bool-in-logic"))
    return problems


def carry_over(previous: list[Problem], old_text: str, new_text: str) -> list[Problem]:
    """The problems of ``previous`` with :data:`TREE_CODES`, moved from
    ``old_text`` to ``new_text``: lines above and below the changed region
    keep their problem (shifted), problems inside it are dropped."""
    lines = LineMap(old_text, new_text)
    kept = []
    for p in previous:
        if p.code in TREE_CODES:
            line = lines.to_new(p.line)
            if line is not None:
                kept.append(replace(p, line=line))
    return kept


def config_problems(kc: Kconfig, text: str, result: ConfigReadResult | None) -> list[Problem]:
    """Problems in a ``.config``-style text.  ``result`` is given when this
    text is the configuration loaded into ``kc`` (then values that do not
    stick are reported too); other config files get the per-line checks."""
    lines = text.split("\n")
    problems: list[Problem] = []
    if result is not None:
        for w in result.warnings:
            length = len(lines[w.line - 1]) if 0 < w.line <= len(lines) else 0
            problems.append(Problem(w.line, 0, length, w.message, WARNING, "config"))
    seen: dict[str, int] = {}
    for lineno, line in enumerate(lines, 1):
        m = _ASSIGNMENT.match(line)
        if m is None:
            continue
        name = m.group(1)
        seen[name] = lineno
        sym = kc.find(name)
        if sym is None:
            problems.append(Problem(lineno, 0, len(line), f"unknown symbol CONFIG_{name}", WARNING, "unknown-symbol"))
    if result is None:
        return problems
    for name, lineno in seen.items():
        sym = kc.find(name)
        if sym is None or not sym.has_user or sym.is_choice:
            continue
        sym.calc_value()
        if sym.type in (BOOL, TRISTATE):
            if sym.user_tri == sym.curr_tri:
                continue
            wanted, got = TRI_STR[sym.user_tri], sym.str_value()
        else:
            if sym.user_val == sym.curr_val or sym.visible == N and sym.curr_val == sym.user_val:
                continue
            wanted, got = sym.user_val, sym.str_value()
        reason = "; ".join(explain(kc, sym).reasons) or "its dependencies do not allow it"
        problems.append(Problem(lineno, 0, len(lines[lineno - 1]),
                                f"CONFIG_{name}={wanted} will not stick: the value is {got} ({reason})",
                                WARNING, "value-not-kept", {"symbol": name, "target": wanted}))
    return problems
