"""Expressions printed with their operands' values, the way the C tool
prints them in warnings and help (``NAME [=value]``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .expr import AND, NOT, OP_TEXT, OR, TRI_STR, UNKNOWN, eval_expr, symbol_text

if TYPE_CHECKING:
    from .symbols import Symbol


def valued_symbol_text(sym: Symbol) -> str:
    if sym.is_const:
        return symbol_text(sym)
    sym.calc_value()
    return f"{sym.name} [={sym.str_value()}]"


def valued_expr(e) -> str:
    """``e`` with every symbol followed by its last computed value, printed
    the way the C tool prints expressions in its messages and help."""
    return c_expr_text(e, with_values=True)


def c_expr_text(e, with_values: bool = False) -> str:
    """``expr_print``: no spaces around comparisons, parentheses only for an
    ``||`` under ``&&`` or ``!``, and `` [=value]`` after every symbol of
    known type (constants included) when ``with_values``."""
    if e is None:
        return "y"
    out: list[str] = []
    _c_print(e, 0, out, with_values)
    return "".join(out)


def readable_expr(e) -> str:
    """``e`` as :func:`c_expr_text` prints it with values, except that
    constants (``y``, ``"x86"``) do not repeat their own value."""
    if e is None:
        return "y"
    out: list[str] = []
    _c_print(e, 0, out, "symbols")
    return "".join(out)


def _c_sym(sym: Symbol, out: list[str], with_values: bool | str) -> None:
    if with_values == "symbols":
        _readable_sym(sym, out)
        return
    if sym.name is None:
        out.append("<choice>")
        return
    out.append(sym.name)
    if with_values and sym.type != UNKNOWN:
        # The value as last computed, even if stale: the C tool prints
        # sym_get_string_value() without recomputing.
        out.append(f" [={sym.str_value()}]")


def _readable_sym(sym: Symbol, out: list[str]) -> None:
    """A symbol for a person: a choice by its prompt, string constants
    quoted, other symbols with their value."""
    if sym.is_choice:
        prompt = sym.prompts[0].text if sym.prompts else None
        label = f'choice "{prompt}"' if prompt else f"choice {sym.name or ''}".rstrip()
        sym.calc_value()
        out.append(f"{label} [{'shown' if sym.visible != 0 else 'hidden'}]")
        return
    if sym.is_const:
        name = sym.name or ""
        plain = name in ("n", "m", "y") or name.lstrip("-").isdigit() or name.lower().startswith("0x")
        out.append(name if plain else symbol_text(sym))
        return
    out.append(sym.name or "")
    if sym.type != UNKNOWN:
        sym.calc_value()
        out.append(f" [={sym.str_value()}]")


def _c_print(e, parent: int, out: list[str], with_values: bool | str) -> None:
    if e.__class__ is not tuple:
        _c_sym(e, out, with_values)
        return
    op = e[0]
    paren = (parent == AND and op == OR) or (parent == NOT and op in (AND, OR))
    if paren:
        out.append("(")
    if op == NOT:
        out.append("!")
        _c_print(e[1], NOT, out, with_values)
    elif op in (AND, OR):
        _c_print(e[1], op, out, with_values)
        out.append(" && " if op == AND else " || ")
        _c_print(e[2], op, out, with_values)
    else:
        _c_sym(e[1], out, with_values)
        out.append(OP_TEXT[op])
        _c_sym(e[2], out, with_values)
    if paren:
        out.append(")")


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


