"""A loaded tree written out as plain data, to compare a tree patched by
an incremental re-link with a fresh load of the same texts: the menu
structure as finalised, every property with its finalised condition, every
symbol's accumulated expressions, checks and references, the diagnostics,
and the values after reading a config."""

from __future__ import annotations

from typing import Any

from kconfig_ls.kconfig import configfile
from kconfig_ls.kconfig.symbols import Symbol
from kconfig_ls.kconfig.tree import Kconfig


def shape(e: Any) -> Any:
    if e is None:
        return None
    if isinstance(e, Symbol):
        return e.name if not e.is_choice else f"<choice {e.name}@{_choice_place(e)}>"
    if isinstance(e, tuple):
        return tuple(shape(x) for x in e)
    return e


def _choice_place(choice: Symbol) -> str:
    node = choice.nodes[0] if choice.nodes else None
    return f"{node.file}:{node.line}" if node is not None else "?"


def _node_name(node) -> str:
    if node is None:
        return "-"
    return f"{node.kind}:{node.file}:{node.line}"


def menu_digest(kc: Kconfig) -> list:
    out = []
    for node in kc.walk():
        prompt = node.prompt
        out.append((
            node.kind, shape(node.sym), node.file, node.line, node.end_line, node.name_span, node.help,
            _node_name(node.parent), shape(node.dep), shape(node.visibility),
            None if prompt is None else (prompt.kind, prompt.text, shape(prompt.cond), prompt.line, prompt.span),
        ))
    return out


def symbol_digest(kc: Kconfig) -> dict:
    out = {}
    for sym in kc.all_symbols:
        if not (sym.nodes or sym.refs) or sym.is_const:
            continue
        key = shape(sym)
        out[key] = (
            sym.type, sym.is_choice_value, shape(sym.choice),
            [(p.kind, shape(p.expr), shape(p.cond), p.text, p.file, p.line, p.span, _node_name(p.node))
             for p in sym.props],
            [p.line for p in sym.prompts], [p.line for p in sym.defaults], [p.line for p in sym.selects],
            [p.line for p in sym.implies], [p.line for p in sym.ranges],
            shape(sym.dir_dep), shape(sym.rev_dep), shape(sym.implied),
            [shape(s) for s in sym.choice_values], sorted(sym.refs),
        )
    return out


def diagnostic_digest(kc: Kconfig) -> list:
    return sorted((d.file, d.line, d.col, d.message, d.severity.value, d.code) for d in kc.diagnostics)


def values_digest(kc: Kconfig, config_text: str | None = None, config_name: str = ".config") -> dict:
    kc.reset_values()
    if config_text is None:
        configfile.settle_after_read(kc, None)
    else:
        result = configfile.read_config_simple(kc, config_name, config_name, text=config_text)
        configfile.settle_after_read(kc, result)
    return {
        shape(sym): (sym.str_value_now, sym.visibility, sym.assignable)
        for sym in kc.all_symbols
        if sym.nodes and not sym.is_const
    }


def current_values(kc: Kconfig) -> dict:
    """The values as they stand (computing those not computed yet), the
    user values kept, the unmet warnings and the config's changed flag."""
    values = {
        shape(sym): (sym.str_value_now, sym.visibility, sym.assignable, sym.has_user, sym.user_value)
        for sym in kc.all_symbols
        if sym.nodes and not sym.is_const
    }
    return {"values": values, "unmet": sorted(s.name for s in kc.unmet), "changed": kc.conf_changed}


def tree_digest(kc: Kconfig, config_text: str | None = None, values: bool = True) -> dict:
    """Everything the comparison covers, by part (a failing part is named);
    ``values`` (read afresh from ``config_text``) unless ``values=False``."""
    digest = {
        "menu": menu_digest(kc),
        "symbols": symbol_digest(kc),
        "diagnostics": diagnostic_digest(kc),
        "cycles": sorted(report.text for report in kc.cycles),
        "files": {name: f.text for name, f in kc.files.items()},
        "logical_uses": sorted((f, s, e, shape(sym)) for f, s, e, sym in kc.logical_uses),
        "expansions": sorted(kc.expansions),
        "source_refs": sorted(kc.source_refs),
    }
    if values:
        digest["values"] = values_digest(kc, config_text)
    return digest
