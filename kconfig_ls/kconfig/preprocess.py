"""The Kconfig macro language: variables, user functions and built-ins.

This mirrors the semantics of the kernel's ``scripts/kconfig/preprocess.c``:
``$(name)`` references a variable, a built-in function or an environment
variable, in that order; ``$(name,arg,...)`` calls a user-defined (recursive)
variable with ``$(1)``... bound, or a built-in.  Variables are defined with
``=`` (recursive: expanded at use), ``:=`` (simple: expanded at definition)
and ``+=`` (append, keeping the existing flavour).

``$(shell,...)`` is the one way a Kconfig tree can run commands, so it goes
through a single replaceable callable (:attr:`Preprocessor.shell`).  Callers
that must not run commands (an untrusted tree in the language server) install
a policy that returns an empty string.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import KconfigError
from .probe_worker import OUTPUT_LIMIT, command_output

if TYPE_CHECKING:
    from .probes import FilesAhead, Probes

ShellRunner = Callable[[str], str]


def run_shell(command: str, cwd: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """Run ``command`` with /bin/sh as ``popen`` would and post-process its
    output like the C tool: at most 4095 bytes, trailing newlines removed,
    inner newlines turned into spaces."""
    return shell_output(command_output(command, cwd, env))


def shell_output(out: bytes) -> str:
    """A command's output as ``$(shell,...)`` gives it: the first
    :data:`~.probe_worker.OUTPUT_LIMIT` bytes, trailing newlines removed,
    inner newlines turned into spaces."""
    text = out[:OUTPUT_LIMIT].decode("utf-8", "surrogateescape").rstrip("\n")
    return text.replace("\n", " ")


@dataclass
class Variable:
    name: str
    value: str
    recursive: bool
    expanding: int = 0


class PreprocessError(KconfigError):
    """A fatal preprocessor error (the C tool exits on these)."""


@dataclass
class Preprocessor:
    """Macro state for one parse of a Kconfig tree."""

    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    shell: ShellRunner | None = None
    #: Called with the text of ``$(info,...)`` and ``$(warning-if,...)``.
    info: Callable[[str], None] = print
    warn: Callable[[str], None] | None = None
    variables: dict[str, Variable] = field(default_factory=dict)
    #: Environment variables the tree referenced, in first-use order.
    env_used: dict[str, str] = field(default_factory=dict)
    #: Position context for $(filename), $(lineno) and error messages.
    filename: str = "<none>"
    lineno: int = 0
    #: The runner, when it can start commands ahead (probes.py), and the
    #: current file's look-ahead (set by its lexer until used): the first
    #: command that must really run starts those of the rest of the file.
    probes: Probes | None = None
    commands_ahead: Callable[[], Iterable[str]] | None = None
    #: Guesses the files sourced after a given one (source_walk.py), for
    #: the first look-ahead of a load only: it then reads on through them.
    files_ahead: FilesAhead | None = None

    # -- errors ----------------------------------------------------------------
    def _fail(self, message: str) -> PreprocessError:
        return PreprocessError(message, self.filename, self.lineno)

    def fingerprint(self) -> int:
        """A hash of the variable definitions: equal fingerprints expand
        every reference the same way.  Stable across processes (a tree
        snapshot keeps them; Python's ``hash`` of text is salted)."""
        state = repr([(v.name, v.value, v.recursive) for v in self.variables.values()])
        return int.from_bytes(hashlib.blake2b(state.encode("utf-8", "surrogateescape"), digest_size=8).digest())

    # -- variables -------------------------------------------------------------
    def assign(self, name: str, value: str, op: str) -> None:
        """Handle ``name = value`` (op ``=``), ``:=`` and ``+=``."""
        var = self.variables.get(name)
        append = False
        if var is not None:
            if op == "+=":
                append = True
                recursive = var.recursive
            else:
                recursive = op == "="
        else:
            recursive = op in ("=", "+=")
        new_value = value if recursive else self.expand(value)
        if var is None:
            self.variables[name] = Variable(name, new_value, recursive)
        elif append:
            var.value = var.value + " " + new_value
        else:
            var.value = new_value
            var.recursive = recursive

    # -- expansion -------------------------------------------------------------
    def expand(self, text: str, args: list[str] | None = None) -> str:
        """Expand every ``$(...)`` in ``text``."""
        try:
            out, _ = self._expand_until(text, 0, None, args or [])
        except RecursionError:
            # Functions calling each other with arguments nest deeper than
            # Python's stack before the C tool's per-variable limit of 1000
            # stops them: the same error, a little earlier.
            raise self._fail("Too deep recursive expansion") from None
        return out

    def expand_token(self, text: str, pos: int) -> tuple[str, int]:
        """Expand one word starting at ``pos`` (letters, digits, ``_``, ``-``
        and ``$(...)`` references); return the expansion and the end offset."""
        return self._expand_until(text, pos, _is_word_char, [])

    def expand_dollar(self, text: str, pos: int) -> tuple[str, int]:
        """``text[pos]`` follows a ``$``: expand one reference."""
        return self._expand_dollar(text, pos, [])

    def _expand_until(
        self, text: str, pos: int, keep: Callable[[str], bool] | None, args: list[str]
    ) -> tuple[str, int]:
        parts: list[str] = []
        start = pos
        n = len(text)
        while pos < n:
            c = text[pos]
            if c == "$":
                parts.append(text[start:pos])
                value, pos = self._expand_dollar(text, pos + 1, args)
                parts.append(value)
                start = pos
                continue
            if keep is not None and not keep(c):
                break
            pos += 1
        parts.append(text[start:pos])
        return "".join(parts), pos

    def _expand_dollar(self, text: str, pos: int, args: list[str]) -> tuple[str, int]:
        if pos >= len(text) or text[pos] != "(":
            return "$", pos
        depth = 0
        q = pos + 1
        n = len(text)
        while q < n:
            c = text[q]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            q += 1
        if q >= n:
            raise self._fail(f"unterminated reference to '{text[pos + 1:]}': missing ')'")
        return self._eval_clause(text[pos + 1 : q], args), q + 1

    def _eval_clause(self, clause: str, args: list[str]) -> str:
        if clause.isdigit():
            index = int(clause)
            if 0 < index <= len(args):
                return args[index - 1]
        pieces: list[str] = []
        depth = 0
        start = 0
        for i, c in enumerate(clause):
            if c == "," and depth == 0:
                pieces.append(clause[start:i])
                start = i + 1
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
        pieces.append(clause[start:])
        if len(pieces) > 16:
            raise self._fail("too many function arguments")
        name = self.expand(pieces[0], args)
        call_args = [self.expand(p, args) for p in pieces[1:]]

        var = self.variables.get(name)
        if var is not None:
            if not call_args and var.expanding:
                raise self._fail(f"Recursive variable '{name}' references itself (eventually)")
            if var.expanding > 1000:
                raise self._fail("Too deep recursive expansion")
            var.expanding += 1
            try:
                return self.expand(var.value, call_args) if var.recursive else var.value
            finally:
                var.expanding -= 1

        builtin = _BUILTINS.get(name)
        if builtin is not None:
            lo, hi, func = builtin
            if len(call_args) < lo:
                raise self._fail(f"too few function arguments passed to '{name}'")
            if len(call_args) > hi:
                raise self._fail(f"too many function arguments passed to '{name}'")
            return func(self, call_args)

        if not call_args and name:
            if name in self.env_used:
                return self.env_used[name]
            value = self.env.get(name)
            if value is not None:
                self.env_used[name] = value
                return value
        return ""

    # -- built-ins -------------------------------------------------------------
    def _do_shell(self, args: list[str]) -> str:
        command = args[0]
        ahead = self.commands_ahead
        if ahead is not None and self.probes is not None and self.probes.needs_run(command):
            self.commands_ahead = None
            self.probes.prefetch(ahead())
        if self.shell is None:
            return run_shell(command, env=self.env)
        return self.shell(command)

    def _do_info(self, args: list[str]) -> str:
        self.info(args[0])
        return ""

    def _do_warning_if(self, args: list[str]) -> str:
        if args[0] == "y":
            message = f"{self.filename}:{self.lineno}: {args[1]}"
            if self.warn is not None:
                self.warn(message)
        return ""

    def _do_error_if(self, args: list[str]) -> str:
        if args[0] == "y":
            raise self._fail(args[1])
        return ""


def _is_word_char(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in "_-")


_BUILTINS: dict[str, tuple[int, int, Callable[[Preprocessor, list[str]], str]]] = {
    "error-if": (2, 2, Preprocessor._do_error_if),
    "filename": (0, 0, lambda pp, _args: pp.filename),
    "info": (1, 1, Preprocessor._do_info),
    "lineno": (0, 0, lambda pp, _args: str(pp.lineno)),
    "shell": (1, 1, Preprocessor._do_shell),
    "warning-if": (2, 2, Preprocessor._do_warning_if),
}
