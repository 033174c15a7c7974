"""The help screen of a menu entry, as the C tool's ``menu_get_ext_help``
lays it out: help text, then the symbol's type, definitions, prompts,
dependencies, location in the menus, selects and implies."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .explain_text import revdep_lines, valued_expr
from .expr import C_TYPE_NAMES, HEX, INT
from .menu import P_MENU
from .simplify import equal, is_yes

if TYPE_CHECKING:
    from .menu import MenuNode, Property
    from .symbols import Symbol
    from .tree import Kconfig

NO_HELP = "There is no help available for this option."


def symbol_help(kc: Kconfig, node: MenuNode) -> str:
    sym = node.sym
    prefix = kc.env.get("CONFIG_", "CONFIG_")
    text = ""
    help_body = NO_HELP
    if node.help is not None:
        if sym is not None and sym.name:
            text += f"{prefix}{sym.name}:\n\n"
        help_body = node.help
    text += help_body + "\n"
    if sym is not None:
        text += symbol_info(kc, sym)
    return text


def symbol_info(kc: Kconfig, sym: Symbol) -> str:
    """``get_symbol_str``: what the symbol is and where it comes from."""
    out: list[str] = []
    if sym.name:
        sym.calc_value()
        out.append(f"Symbol: {sym.name} [={sym.str_value()}]\n")
        out.append(f"Type  : {C_TYPE_NAMES[sym.type]}\n")
        if sym.type in (INT, HEX):
            prop = sym.range_prop()
            if prop is not None:
                low, high = prop.expr
                out.append(f"Range : [{valued_expr(low)} {valued_expr(high)}]\n")
    for node in sym.nodes:
        if node.prompt is not None:
            out.append(f"Defined at {node.file}:{node.line}\n")
            out.append(_prompt_info(kc, node.prompt))
    for node in sym.nodes:
        if node.prompt is None:
            out.append(f"Defined at {node.file}:{node.line}\n")
            if not is_yes(node.dep):
                out.append(f"  Depends on: {valued_expr(node.dep)}\n")
    out.append(_props_line(sym.selects, "Selects: "))
    if sym.rev_dep is not None:
        for value, label in ((2, "y"), (1, "m"), (0, "n")):
            out.append(revdep_lines(sym.rev_dep, value, f"Selected by [{label}]:\n"))
    out.append(_props_line(sym.implies, "Implies: "))
    if sym.implied is not None:
        for value, label in ((2, "y"), (1, "m"), (0, "n")):
            out.append(revdep_lines(sym.implied, value, f"Implied by [{label}]:\n"))
    out.append("\n\n")
    return "".join(out)


def _props_line(props: list[Property], title: str) -> str:
    if not props:
        return ""
    return title + " && ".join(valued_expr(p.expr) for p in props) + "\n"


def _prompt_info(kc: Kconfig, prompt: Property) -> str:
    node = prompt.node
    out = [f"  Prompt: {prompt.text}\n"]
    if not is_yes(node.dep):
        out.append(f"  Depends on: {valued_expr(node.dep)}\n")
    if not equal(node.dep, prompt.cond) and not is_yes(prompt.cond):
        out.append(f"  Visible if: {valued_expr(prompt.cond)}\n")
    out.append("  Location:\n")
    chain: list[MenuNode] = []
    cur = node
    while cur is not kc.root and cur is not None and len(chain) < 8:
        chain.append(cur)
        cur = cur.parent
    indent = 4
    for entry in reversed(chain):
        line = f"{' ' * (indent - 1)} -> {entry.prompt_text}"
        if entry.sym is not None:
            line += f" ({entry.sym.name or '<choice>'} [={entry.sym.str_value()}])"
        out.append(line + "\n")
        indent += 2
    return "".join(out)


__all__ = ["symbol_help", "symbol_info", "P_MENU"]
