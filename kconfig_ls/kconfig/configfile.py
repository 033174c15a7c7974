"""Reading and writing ``.config`` files, minimal configs and the build's
generated headers, byte for byte as ``scripts/kconfig/confdata.c`` does."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING

from .errors import Diagnostic, Severity
from .expr import BOOL, HEX, INT, STRING, TRISTATE, UNKNOWN, M, N, Y, eval_expr
from .member_choices import give_priority
from .menu import P_MENU, MenuNode

if TYPE_CHECKING:
    from .symbols import Symbol
    from .tree import Kconfig


@dataclass
class ConfigReadResult:
    """What reading a config file found: its path and the C tool's
    warnings (with file and line) for unknown symbols, bad values, ..."""

    path: str
    warnings: list[Diagnostic] = field(default_factory=list)
    #: (line, symbol name, raw value) of every assignment, in file order.
    assignments: list[tuple[int, str, str]] = field(default_factory=list)


def escape_string_value(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def config_prefix(kc: Kconfig) -> str:
    return kc.env.get("CONFIG_", "CONFIG_")


# -- reading ---------------------------------------------------------------------


#: A symbol's user input, as a reading leaves it (has_user, user_tri,
#: user_val, user_selection): what a reading is remembered and compared by.
user_input_of = attrgetter("has_user", "user_tri", "user_val", "user_selection")


def read_config_simple(
    kc: Kconfig,
    path: str,
    display_name: str | None = None,
    warn_unknown: bool | None = None,
    text: str | None = None,
) -> ConfigReadResult:
    """Load user values from ``path`` (``conf_read_simple`` with
    ``S_DEF_USER``), or from ``text`` when given (``path`` then only names
    it).  Raises ``OSError`` when the file cannot be read."""
    if text is None:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "surrogateescape")
    name = display_name or path
    result = ConfigReadResult(name)
    if warn_unknown is None:
        warn_unknown = "KCONFIG_WARN_UNKNOWN_SYMBOLS" in kc.env
    prefix = config_prefix(kc)

    def warn(lineno: int, message: str) -> None:
        result.warnings.append(Diagnostic(name, lineno, message, Severity.WARNING))

    member_choices = kc.gen.member_choices
    for sym in kc.hash_order():
        sym.valid = False
        sym.has_user = sym.is_choice and not member_choices
        sym.user_val = None
        sym.user_tri = N
        sym.user_selection = None

    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for lineno, line in enumerate(lines, 1):
        if member_choices and line.endswith("\r"):
            # (getline_stripped: the line without its CR.)
            line = line[:-1]
            if not line:
                continue
        if line.startswith("#"):
            if line[1:2] != " ":
                continue
            rest = line[2:]
            if not rest.startswith(prefix):
                continue
            rest = rest[len(prefix) :]
            space = rest.find(" ")
            if space < 0:
                continue
            sym_name = rest[:space]
            mark = rest[space + 1 :]
            if not (mark == "is not set" if member_choices else mark.startswith("is not set")):
                continue
            value = "n"
        elif line.startswith(prefix):
            rest = line[len(prefix) :]
            eq = rest.find("=")
            if eq < 0:
                if member_choices:
                    warn(lineno, "unexpected data: " + line)
                continue
            sym_name = rest[:eq]
            value = rest[eq + 1 :]
            if value.endswith("\r"):
                value = value[:-1]
        else:
            if line and line[0] not in "\r":
                warn(lineno, "unexpected data: " + (line if member_choices else line.split("\r")[0]))
            continue

        result.assignments.append((lineno, sym_name, value))
        sym = kc.find(sym_name)
        if sym is None:
            if warn_unknown:
                warn(lineno, f"unknown symbol: {sym_name}")
            kc.conf_changed = True
            continue
        if sym.has_user:
            warn(lineno, f"override: reassigning to symbol {sym.name}")
        apply_user_value(sym, value, lambda msg, n=lineno: warn(n, msg))
    return result


def apply_user_value(sym: Symbol, value: str, warn: Callable[[str], None]) -> bool:
    """One ``CONFIG_FOO=value`` line's effect on the user values, including
    the choice it selects (``conf_read_simple``); False when rejected."""
    if not _set_user_value(sym, value, warn):
        return False
    if sym.kc.gen.member_choices:
        if sym.choice is not None:
            give_priority(sym)
        return True
    if sym.is_choice_value:
        choice = sym.choice
        if sym.user_tri == M:
            if choice.user_tri == Y:
                warn(f"{sym.name} creates inconsistent choice state")
                choice.has_user = False
        elif sym.user_tri == Y:
            if choice.user_tri != N:
                warn(f"override: {sym.name} changes choice state")
            choice.user_selection = sym
        choice.user_tri = max(choice.user_tri, sym.user_tri)
    return True


def _set_user_value(sym: Symbol, value: str, warn: Callable[[str], None]) -> bool:
    """``conf_set_sym_val``; False when the value was rejected."""
    t = sym.type
    if t == BOOL or t == TRISTATE:
        first = value[:1]
        if first == "m" and t == TRISTATE:
            sym.user_tri = M
        elif first == "y":
            sym.user_tri = Y
        elif first == "n":
            sym.user_tri = N
        else:
            warn(f"symbol value '{value}' invalid for {sym.name}")
            return False
        sym.has_user = True
        return True
    if t == STRING:
        if not value.startswith('"'):
            return True
        out = []
        i = 1
        n = len(value)
        closed = False
        while i < n:
            c = value[i]
            if c == '"':
                closed = True
                break
            if c == "\\":
                i += 1
                if i < n:
                    out.append(value[i])
                    i += 1
                continue
            out.append(c)
            i += 1
        if not closed:
            warn("invalid string found")
            return False
        value = "".join(out)
    if t in (STRING, INT, HEX):
        if sym.string_valid(value):
            sym.user_val = value
            sym.has_user = True
        else:
            warn(f"symbol value '{value}' invalid for {sym.name}")
            return False
    return True


def read_config(
    kc: Kconfig, path: str, display_name: str | None = None, text: str | None = None
) -> ConfigReadResult:
    """Load ``path`` (or ``text``) as the current configuration
    (``conf_read``): user values, then the checks that drop values that no
    longer apply."""
    kc.conf_changed = False
    result = read_config_simple(kc, path, display_name, text=text)
    settle_after_read(kc, result)
    return result


def settle_after_read(kc: Kconfig, result: ConfigReadResult | None, settled: set | None = None) -> int:
    """``conf_read`` after the lines are read: compare what sticks; before
    member choices, also drop user values of invisible symbols (unless
    something changed) and out-of-range numbers.  ``settled``, when given,
    receives the symbols whose value did not stick (revalue.py).  Returns
    the count of changes (values that did not stick, numbers dropped)."""
    kc.modules_sym.calc_value()
    unsaved = 0
    order = kc.hash_order()
    for sym in order:
        sym.calc_value()
        if value_differs_from_user(sym):
            unsaved += 1
            if settled is not None:
                settled.add(sym)
    if not kc.gen.member_choices:
        unsaved = drop_stale_user_values(order, unsaved)
    if (result is not None and result.warnings) or unsaved:
        kc.conf_changed = True
    return unsaved


def value_differs_from_user(sym: Symbol) -> bool:
    """Whether a computed value is not what the config file said (or the
    file did not say one for a symbol that is written): the file changes."""
    if sym.is_choice or sym.no_write:
        return False
    if sym.has_user and sym.write:
        if sym.type in (BOOL, TRISTATE):
            return sym.user_tri != sym.curr_tri
        return sym.curr_val != sym.user_val
    return sym.has_user or sym.write


def drop_stale_user_values(order: list[Symbol], unsaved: int) -> int:
    """Before member choices: user values of invisible symbols are dropped
    unless something else changed, out-of-range numbers always; returns
    the updated count of changes."""
    for sym in order:
        if sym.has_user and not sym.is_choice_value:
            if sym.visible == N and not unsaved:
                sym.has_user = False
            if sym.type in (STRING, INT, HEX):
                if not sym.string_within_range(sym.user_val or ""):
                    sym.valid = False
                    sym.has_user = False
                    unsaved += 1
    return unsaved


# -- writing -----------------------------------------------------------------------


N_AS_UNSET, N_NONE, N_AS_VALUE = "unset", "none", "value"


def symbol_line(kc: Kconfig, sym: Symbol, n_style: str = N_AS_UNSET, escape: bool = True) -> str | None:
    """One symbol as a line (without the newline): ``.config`` style by
    default; ``n_style`` says how ``n`` shows (``# ... is not set``, not at
    all as in auto.conf, or ``=n`` as ``listnewconfig`` prints)."""
    if sym.type == UNKNOWN:
        return None
    value = sym.str_value()
    if (sym.type == BOOL or sym.type == TRISTATE) and value == "n" and n_style != N_AS_VALUE:
        return assignment_line(kc, sym, value) if n_style == N_AS_UNSET else None
    if sym.type == STRING and escape:
        value = escape_string_value(value)
    return f"{config_prefix(kc)}{sym.name}={value}"


def assignment_line(kc: Kconfig, sym: Symbol, value: str) -> str:
    """``value`` (``y``, ``n``, ``0x10``, unquoted text) for ``sym`` as a
    ``.config`` line, ``n`` written as ``# CONFIG_FOO is not set``."""
    prefix = config_prefix(kc)
    if (sym.type == BOOL or sym.type == TRISTATE) and value == "n":
        return f"# {prefix}{sym.name} is not set"
    if sym.type == STRING:
        value = escape_string_value(value)
    return f"{prefix}{sym.name}={value}"


def menu_is_visible(node: MenuNode) -> bool:
    """Whether a menu entry would show (``menu_is_visible``)."""
    prompt = node.prompt
    if prompt is None:
        return False
    if node.visibility is not None and eval_expr(node.visibility) == N:
        return False
    sym = node.sym
    if sym is not None:
        sym.calc_value()
        visible = prompt.cond_tri
    else:
        visible = prompt.cond_tri = eval_expr(prompt.cond)
    if visible != N:
        return True
    if sym is None or sym.tri_value() == N:
        return False
    for child in node.children():
        if menu_is_visible(child):
            if not sym.kc.gen.member_choices:
                sym.has_user = True  # (a quirk of choices with a mode)
            return True
    return False


def header(kc: Kconfig, decoration: str = "#", prefix: str = "#", postfix: str = "#") -> str:
    return (
        f"{prefix}\n{decoration} Automatically generated file; DO NOT EDIT.\n"
        f"{decoration} {kc.mainmenu_text}\n{postfix}\n"
    )


def config_text(kc: Kconfig) -> str:
    """The full ``.config`` text for the current values (``conf_write``)."""
    out = [header(kc)]
    if not kc.conf_changed:
        kc.invalidate()
    need_newline = False
    written: set[int] = set()
    root = kc.root
    node = root.list
    while node is not None:
        sym = node.sym
        if sym is None:
            if menu_is_visible(node):
                out.append(f"\n#\n# {node.prompt.text}\n#\n")
                need_newline = False
        elif not sym.is_choice and id(sym) not in written:
            sym.calc_value()
            if sym.write:
                if need_newline:
                    out.append("\n")
                    need_newline = False
                written.add(id(sym))
                line = symbol_line(kc, sym)
                if line is not None:
                    out.append(line + "\n")
        if node.list is not None:
            node = node.list
            continue
        while node is not None:
            if (
                node.sym is None
                and node is not root
                and node.prompt is not None
                and node.prompt.kind == P_MENU
                and kc.gen.end_of_menu_comments
                and menu_is_visible(node)
            ):
                out.append(f"# end of {node.prompt.text}\n")
                need_newline = True
            if node.next is not None:
                node = node.next
                break
            node = node.parent
    return "".join(out)


def min_config_text(kc: Kconfig) -> str:
    """The minimal config (``conf_write_defconfig``, ``savedefconfig``)."""
    kc.invalidate()
    out: list[str] = []
    for node in kc.walk():
        sym = node.sym
        if sym is None or sym.is_choice:
            continue
        sym.calc_value()
        if not sym.write:
            continue
        sym.write = False
        if not sym.is_changeable():
            continue
        if sym.str_value() == string_default(kc, sym):
            continue
        if kc.gen.member_choices:
            # A choice's default member, selected, need not be written.
            if sym.choice is not None and sym is sym.choice.choice_default() and sym.curr_tri == Y:
                continue
        elif sym.is_choice_value:
            choice = sym.choice
            if not choice.optional and sym is choice.choice_default():
                if sym.type == BOOL and sym.curr_tri == Y:
                    continue
        line = symbol_line(kc, sym)
        if line is not None:
            out.append(line + "\n")
    return "".join(out)


def string_default(kc: Kconfig, sym: Symbol) -> str:
    """The value ``sym`` would have with no user value
    (``sym_get_string_default``)."""
    sym.calc_visibility()
    kc.modules_sym.calc_value()
    val = N
    text = ""
    prop = sym.default_prop()
    if prop is not None:
        if sym.type in (BOOL, TRISTATE):
            val = min(eval_expr(prop.expr), prop.cond_tri)
        else:
            ds = prop.expr
            if ds.__class__ is not tuple:
                ds.calc_value()
                text = ds.curr_val or ""
    val = max(val, sym.rev_dep_tri)
    if val == M and not sym.is_choice_value and kc.modules_sym.curr_tri == N:
        val = Y
    if sym.type == BOOL and val == M:
        val = Y
    if val < sym.implied_tri:
        val = sym.implied_tri
    if sym.type in (BOOL, TRISTATE):
        return "nmy"[val]
    if sym.type in (INT, HEX) and not text and kc.gen.numbers_default_to_zero:
        return "0" if sym.type == INT else "0x0"
    if sym.type in (INT, HEX, STRING):
        return text
    return ""


def autoconf_text(kc: Kconfig) -> str:
    """``include/config/auto.conf``."""
    out = [header(kc)]
    for sym in _written_symbols(kc):
        line = symbol_line(kc, sym, N_NONE, escape=False)
        if line is not None:
            out.append(line + "\n")
    return "".join(out)


def autoheader_text(kc: Kconfig) -> str:
    """``include/generated/autoconf.h``."""
    out = [header(kc, " *", "/*", " */")]
    out.extend(f"#define {macro} {value}\n" for macro, value in header_macros(kc))
    return "".join(out)


def header_macros(kc: Kconfig) -> list[tuple[str, str]]:
    """The ``#define``s of ``autoconf.h`` in its order: (macro, replacement)."""
    macros = (header_macro(kc, sym) for sym in _written_symbols(kc))
    return [macro for macro in macros if macro is not None]


def header_macro(kc: Kconfig, sym: Symbol) -> tuple[str, str] | None:
    """The ``#define`` of ``autoconf.h`` for a written symbol, if any."""
    if sym.type == UNKNOWN:
        return None
    value = sym.str_value()
    suffix = ""
    if sym.type in (BOOL, TRISTATE):
        if value == "n":
            return None
        if value == "m":
            suffix = "_MODULE"
        value = "1"
    elif sym.type == HEX:
        if not value.lower().startswith("0x"):
            value = "0x" + value
    elif sym.type == STRING:
        value = escape_string_value(value)
    return f"{config_prefix(kc)}{sym.name}{suffix}", value


def make_variables(kc: Kconfig) -> dict[str, str]:
    """The assignments of ``include/config/auto.conf``: variable -> value
    as make sees it (a string keeps its quotes)."""
    variables = (make_variable(kc, sym) for sym in _written_symbols(kc))
    return dict(variable for variable in variables if variable is not None)


def make_variable(kc: Kconfig, sym: Symbol) -> tuple[str, str] | None:
    """A written symbol's assignment in ``auto.conf``, if any."""
    line = symbol_line(kc, sym, N_NONE, escape=False)
    if line is None:
        return None
    name, _, value = line.partition("=")
    return name, value


def is_written(sym: Symbol) -> bool:
    """Whether a ``.config`` would contain the symbol (its value computed)."""
    sym.calc_value()
    return bool(sym.write and sym.name is not None and not sym.is_choice)


def rustc_cfg_text(kc: Kconfig) -> str:
    """``include/generated/rustc_cfg``."""
    prefix = config_prefix(kc)
    out = []
    for sym in _written_symbols(kc):
        if sym.type == UNKNOWN:
            continue
        value = sym.str_value()
        if sym.type in (BOOL, TRISTATE):
            if value == "n":
                continue
            out.append(f"--cfg={prefix}{sym.name}\n")
        elif sym.type == HEX and not value.lower().startswith("0x"):
            value = "0x" + value
        out.append(f"--cfg={prefix}{sym.name}={escape_string_value(value)}\n")
    return "".join(out)


def _written_symbols(kc: Kconfig):
    """Symbols in hash order that a ``.config`` would contain."""
    for sym in kc.hash_order():
        if is_written(sym):
            yield sym


# -- files on disk ------------------------------------------------------------------


def write_file_atomic(path: str, text: str, keep_old: bool = True, always: bool = False) -> bool:
    """Write ``text`` to ``path`` so that ``path`` holds the old or the new
    content at every moment, whatever kills the process: the data goes to a
    temporary file in the same directory (flushed to disk, with the old
    file's permissions), the old file is kept as ``path.old`` (a hard link,
    made before the switch) and a rename puts the new one in place.  As in
    the C tool, a ``path`` that is a symbolic link becomes ``path.old`` and
    ``path`` a regular file.  Returns False (and touches nothing) when the
    content is unchanged, unless ``always`` (files whose modification time
    make compares); an OSError leaves every file as it was."""
    data = text.encode("utf-8", "surrogateescape")
    if not always:
        try:
            with open(path, "rb") as f:
                if f.read() == data:
                    return False
        except OSError:
            pass
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = None
    tmp = f"{path}.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)  # left by an earlier process with this pid
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        if keep_old and os.path.lexists(path):
            _keep_old(path)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return True


def _keep_old(path: str) -> None:
    """``path.old`` becomes the current ``path`` (the file, or the link
    itself), while ``path`` stays in place."""
    old = path + ".old"
    tmp = f"{old}.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    try:
        os.link(path, tmp, follow_symlinks=False)
    except OSError:
        # No hard links here (some file systems): a copy, links kept as links.
        if os.path.islink(path):
            os.symlink(os.readlink(path), tmp)
        else:
            shutil.copy2(path, tmp)
    os.replace(tmp, old)
