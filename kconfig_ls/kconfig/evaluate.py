"""Evaluating expression text against a loaded tree (``Kconfig.eval``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import KconfigError
from .expr import eval_expr
from .lexer import QUOTE, Lexer, Token
from .parser import ExpressionParser, ParseError
from .symbols import Symbol, make_constant

if TYPE_CHECKING:
    from .tree import Kconfig


class KconfigSyntaxError(KconfigError):
    """An expression that does not parse; ``column`` (0-based) points at the
    offending token in the text."""

    def __init__(self, message: str, text: str, column: int):
        super().__init__(f"{message} (column {column + 1} of {text!r})")
        self.text = text
        self.column = column


class _TextParser(ExpressionParser):
    def __init__(self, kc: Kconfig):
        super().__init__()
        self.kc = kc

    def resolve_symbol(self, tok: Token) -> Symbol:
        kc = self.kc
        if tok.kind == QUOTE:
            return kc.const_symbols.get(tok.value) or kc.find_const(tok.value) or make_constant(tok.value)
        sym = kc.find(tok.value)
        if sym is None:
            # An unknown name: evaluates like an undefined symbol (n), without
            # adding anything to the tree.
            sym = Symbol(kc, tok.value)
        return sym


def parse_expression(kc: Kconfig, text: str):
    """The expression in ``text``; raises :class:`KconfigSyntaxError`."""
    problems: list[tuple[int, str]] = []
    # Lexed after an "if" so that "A = B" is not taken for an assignment.
    lead = "if "
    source = lead + text.replace("\n", " ") + "\n"
    lexer = Lexer(source, "<expression>", kc.pp, lambda line, msg: problems.append((line, msg)))
    statements = list(lexer.statements())
    if problems:
        raise KconfigSyntaxError(problems[0][1], text, 0)
    toks = statements[0].tokens[1:] if statements else []
    if not toks:
        raise KconfigSyntaxError("syntax error: empty expression", text, 0)
    parser = _TextParser(kc)
    try:
        expr, pos = parser.parse_expr(toks, 0)
    except ParseError as exc:
        column = exc.token.start - len(lead) if exc.token is not None else len(text)
        raise KconfigSyntaxError(str(exc), text, column) from None
    if pos < len(toks):
        bad = toks[pos]
        raise KconfigSyntaxError(f"syntax error: unexpected '{bad.value}'", text, bad.start - len(lead))
    return expr


def evaluate(kc: Kconfig, text: str) -> int:
    """The tristate value (0, 1, 2) of the expression ``text``."""
    return eval_expr(parse_expression(kc, text))
