"""Expressions printed with their operands' values, the way the C tool
prints them in warnings and help (``NAME [=value]``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .expr import AND, OR, TRI_STR, eval_expr, expr_to_str, symbol_text

if TYPE_CHECKING:
    from .symbols import Symbol


def valued_symbol_text(sym: Symbol) -> str:
    if sym.is_const:
        return symbol_text(sym)
    sym.calc_value()
    return f"{sym.name} [={sym.str_value()}]"


def valued_expr(e) -> str:
    """``e`` with every symbol followed by its current value."""
    return expr_to_str(e, valued_symbol_text)


def or_terms(e) -> list:
    if e is not None and e.__class__ is tuple and e[0] == OR:
        return or_terms(e[1]) + or_terms(e[2])
    return [] if e is None else [e]


def revdep_lines(e, value: int, title: str) -> str:
    """The terms of a reverse dependency (``A && B || C``) that currently
    evaluate to ``value``, one per line (``expr_print_revdep``)."""
    lines = [f"  - {valued_expr(term)}\n" for term in or_terms(e) if eval_expr(term) == value]
    if not lines:
        return ""
    return title + "".join(lines)


def unmet_dependency_text(sym: Symbol) -> str:
    """The C tool's "unmet direct dependencies" warning for ``sym``."""
    text = (
        f"\nWARNING: unmet direct dependencies detected for {sym.name}\n"
        f"  Depends on [{TRI_STR[sym.dir_dep_tri]}]: {valued_expr(sym.dir_dep)}\n"
    )
    text += revdep_lines(sym.rev_dep, 2, "  Selected by [y]:\n")
    text += revdep_lines(sym.rev_dep, 1, "  Selected by [m]:\n")
    return text


__all__ = ["AND", "unmet_dependency_text", "valued_expr", "revdep_lines"]
