"""``#if`` conditions under a configuration, where they can be known.

An ``#if`` expression is evaluated as the C preprocessor would, with the
configuration's macros (:class:`.macros.ConfigMacros`) and nothing else:
a name that is not the configuration's (another macro, one the file
defines itself) makes its part *unknown*, and unknown stays unknown unless
``&&``, ``||`` or ``?:`` decide without it.  ``defined``, the kernel's
``IS_ENABLED``/``IS_BUILTIN``/``IS_MODULE``/``IS_REACHABLE``, integer
arithmetic and comparisons are understood.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .cpp import CONFIG_TESTS
from .macros import MODULE_SUFFIX, ConfigMacros

#: The value of a part that cannot be known.
UNKNOWN = None

_TOKEN = re.compile(r"""\s*(?:
    (0[xX][0-9a-fA-F]+|\d+)[uUlL]*                       # a number
  | ([A-Za-z_]\w*)                                      # a name
  | (<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>!~&|^?:(),])     # an operator
  | (\S))                                               # anything else""", re.X)
_BINARY = {  # operator -> precedence (higher binds tighter)
    "*": 10, "/": 10, "%": 10, "+": 9, "-": 9, "<<": 8, ">>": 8,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "==": 6, "!=": 6,
    "&": 5, "^": 4, "|": 3, "&&": 2, "||": 1,
}


@dataclass
class Outcome:
    """A condition's value (an int, or None: unknown) and the
    configuration macros that decide it, in order."""

    value: int | None
    names: list[str] = field(default_factory=list)


class _Unparsable(Exception):
    pass


def evaluate(text: str, macros: ConfigMacros, local: set[str] | frozenset[str] = frozenset()) -> Outcome:
    """The value of ``#if`` expression ``text``; names in ``local`` (the
    file defines them) are unknown."""
    tokens = []
    for m in _TOKEN.finditer(text):
        if m.group(4):
            return Outcome(UNKNOWN)
        tokens.append(m.group(1) or m.group(2) or m.group(3))
    reader = _Reader(tokens, macros, local)
    try:
        outcome = reader.conditional()
    except _Unparsable:
        return Outcome(UNKNOWN)
    return outcome if reader.pos == len(tokens) else Outcome(UNKNOWN)


def ifdef(name: str, macros: ConfigMacros, local: set[str] | frozenset[str] = frozenset()) -> Outcome:
    """Whether ``#ifdef name`` holds (unknown for a name not the
    configuration's)."""
    if name in local or not name.startswith(macros.prefix):
        return Outcome(UNKNOWN)
    return Outcome(int(name in macros.header), [name])


class _Reader:
    """Precedence climbing over the tokens of one expression; each part
    gives its value and the configuration names that decide it."""

    def __init__(self, tokens: list[str], macros: ConfigMacros, local):
        self.tokens = tokens
        self.pos = 0
        self.macros = macros
        self.local = local

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise _Unparsable
        self.pos += 1
        return token

    def conditional(self) -> Outcome:
        test = self.binary(1)
        if self.peek() != "?":
            return test
        self.take("?")
        yes = self.conditional()
        self.take(":")
        no = self.conditional()
        if test.value is UNKNOWN:
            if yes.value == no.value and yes.value is not UNKNOWN:
                return Outcome(yes.value, yes.names + no.names)
            return Outcome(UNKNOWN)
        chosen = yes if test.value else no
        return Outcome(chosen.value, test.names + chosen.names)

    def binary(self, level: int) -> Outcome:
        left = self.unary()
        while True:
            op = self.peek()
            precedence = _BINARY.get(op)
            if precedence is None or precedence < level:
                return left
            self.take()
            right = self.binary(precedence + 1)
            left = _apply(op, left, right)

    def unary(self) -> Outcome:
        token = self.take()
        if token in ("!", "~", "-", "+"):
            inner = self.unary()
            if inner.value is UNKNOWN:
                return inner
            value = inner.value
            return Outcome({"!": int(not value), "~": ~value, "-": -value, "+": value}[token], inner.names)
        if token == "(":
            inner = self.conditional()
            self.take(")")
            return inner
        if token[0].isdigit():
            try:
                return Outcome(int(token, 16) if token[:2] in ("0x", "0X")
                               else int(token, 8 if token.startswith("0") else 10))
            except ValueError:  # (08)
                raise _Unparsable from None
        if token == "defined":
            paren = self.peek() == "("
            if paren:
                self.take("(")
            name = self.take()
            if paren:
                self.take(")")
            return self._defined(name)
        if token in CONFIG_TESTS:
            self.take("(")
            name = self.take()
            self.take(")")
            return self._config_test(token, name)
        if self.peek() == "(":
            self._skip_call()
            return Outcome(UNKNOWN)
        return self._macro_value(token)

    def _skip_call(self) -> None:
        depth = 0
        while True:
            token = self.take()
            depth += token == "("
            depth -= token == ")"
            if depth == 0:
                return

    def _known(self, name: str) -> bool:
        return name.startswith(self.macros.prefix) and name not in self.local

    def _macro_value(self, name: str) -> Outcome:
        if not self._known(name):
            return Outcome(UNKNOWN)
        text = self.macros.header.get(name)
        if text is None:
            return Outcome(0, [name])  # (an undefined name is 0 in #if)
        try:
            return Outcome(int(text, 16 if text[:2].lower() == "0x" else 8 if text.startswith("0") else 10), [name])
        except ValueError:
            return Outcome(UNKNOWN)  # (a string)

    def _defined(self, name: str) -> Outcome:
        if not self._known(name):
            return Outcome(UNKNOWN)
        return Outcome(int(name in self.macros.header), [name])

    def _config_test(self, test: str, name: str) -> Outcome:
        module = name + MODULE_SUFFIX
        if not self._known(name) or module in self.local:
            return Outcome(UNKNOWN)
        builtin = self.macros.header.get(name) == "1"
        modular = self.macros.header.get(module) == "1"
        if test == "IS_BUILTIN":
            value = int(builtin)
        elif test == "IS_MODULE":
            value = int(modular)
        elif test == "IS_ENABLED":
            value = int(builtin or modular)
        else:
            # IS_REACHABLE: built in, or a module seen from a module (whether
            # this file is built as one is make's, not the config's).
            value = 1 if builtin else UNKNOWN if modular else 0
        return Outcome(value, [name] if value is not UNKNOWN else [])


def _apply(op: str, left: Outcome, right: Outcome) -> Outcome:
    a, b = left.value, right.value
    if op == "&&":
        for side in (left, right):
            if side.value == 0:
                return Outcome(0, side.names)
        return Outcome(UNKNOWN) if a is UNKNOWN or b is UNKNOWN else Outcome(1, left.names + right.names)
    if op == "||":
        for side in (left, right):
            if side.value is not UNKNOWN and side.value != 0:
                return Outcome(1, side.names)
        return Outcome(UNKNOWN) if a is UNKNOWN or b is UNKNOWN else Outcome(0, left.names + right.names)
    if a is UNKNOWN or b is UNKNOWN or (op in ("/", "%") and b == 0) or (op in ("<<", ">>") and b < 0):
        return Outcome(UNKNOWN)
    value = {
        "*": lambda: a * b, "/": lambda: int(a / b), "%": lambda: a - int(a / b) * b,
        "+": lambda: a + b, "-": lambda: a - b, "<<": lambda: a << min(b, 64), ">>": lambda: a >> b,
        "<": lambda: int(a < b), ">": lambda: int(a > b), "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
        "==": lambda: int(a == b), "!=": lambda: int(a != b), "&": lambda: a & b, "^": lambda: a ^ b,
        "|": lambda: a | b,
    }[op]()
    return Outcome(value, left.names + right.names)
