"""Statement parser: turns the lexer's statements into menu nodes, symbols
and properties (the grammar of ``scripts/kconfig/parser.y``).

Parsing is error tolerant: a statement that does not fit is reported as a
diagnostic with its file and line and skipped, and parsing goes on with the
next statement.  ``source`` statements are followed as they are met, because
the preprocessor's variables are defined in source order.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .errors import Diagnostic, KconfigError, Severity
from .expr import (
    AND,
    BOOL,
    EQUAL,
    GEQ,
    GTH,
    HEX,
    INT,
    LEQ,
    LTH,
    NOT,
    OR,
    STRING,
    TRISTATE,
    UNEQUAL,
    UNKNOWN,
    and_expr,
    is_n,
)
from .lexed import LexedFile
from .lexer import QUOTE, WORD, Lexer, LineIndex, Statement, Token, assignment
from .menu import (
    P_CHOICE,
    P_COMMENT,
    P_DEFAULT,
    P_IMPLY,
    P_MENU,
    P_PROMPT,
    P_RANGE,
    P_SELECT,
    P_SYMBOL,
    MenuNode,
    Property,
)
from .slot_state import tuple_state
from .source_walk import source_name
from .symbols import append_to

if TYPE_CHECKING:
    from .symbols import Symbol
    from .tree import Kconfig

_TYPE_KEYWORDS = {"bool": BOOL, "tristate": TRISTATE, "int": INT, "hex": HEX, "string": STRING}
_CMP_OPS = {"=": EQUAL, "!=": UNEQUAL, "<": LTH, "<=": LEQ, ">": GTH, ">=": GEQ}

# Old forms other Kconfig trees still use; accepted with a warning.
_SOURCE_VARIANTS = {"source", "rsource", "osource", "orsource"}
#: Keywords that start a statement of their own (an entry open before them ends).
_STATEMENT_KEYWORDS = frozenset(
    "config menuconfig choice endchoice comment menu endmenu if endif source mainmenu".split())


class ParseError(Exception):
    """A statement that does not fit the grammar (caught per statement);
    ``token`` is where it went wrong, when known."""

    def __init__(self, message: str, token: Token | None = None, c_message: str | None = None,
                 read: int | None = None, code: str = ""):
        super().__init__(message)
        self.token = token
        #: The diagnostic's code ("after-error": only a consequence of the
        #: error on the line before).
        self.code = code
        #: What the C tool says after "syntax error" (default "invalid statement").
        self.c_message = c_message
        #: How many of the statement's tokens the C parser accepted before
        #: failing (default: those before ``token``, else none).
        self.read = read


@tuple_state
class SourceFile:
    """A parsed Kconfig file: its text and where it was sourced from."""

    __slots__ = ("name", "path", "text", "_index", "included_from")

    def __init__(self, name: str, path: str, text: str, included_from: tuple[str, int] | None):
        self.name = name
        self.path = path
        self.text = text
        self._index: LineIndex | None = None
        self.included_from = included_from

    @property
    def index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex(self.text)
        return self._index


class Builder:
    """Builds the menu tree of one :class:`Kconfig` from its files."""

    def __init__(self, kc: Kconfig):
        self.kc = kc
        self.current_menu: MenuNode = kc.root
        self.current_entry: MenuNode | None = kc.root
        self._last_child: dict[int, MenuNode] = {}
        self.include_stack: list[tuple[str, int]] = []
        #: Tokens the C parser must still read after an error before it
        #: reports the next one (bison's ``yyerrstatus``; files share it).
        self.quiet_tokens = 0
        #: "missing end statement" problems, reported at the end of input.
        self.unclosed: list[Diagnostic] = []
        #: The choice block being parsed (its menu node), if any.
        self.current_choice: MenuNode | None = None
        #: A menuconfig entry without a prompt that ended with its file:
        #: warned about at the next statement read.
        self.pending_menuconfig: MenuNode | None = None

    def report_menuconfig(self, file: str, line: int) -> None:
        """Warn about the pending menuconfig entry without a prompt; the C
        tool names ``file:line``, where its parser was when it noticed."""
        entry = self.pending_menuconfig
        if entry is None:
            return
        self.pending_menuconfig = None
        message = "menuconfig statement without prompt"
        self.kc.add_diagnostic(Diagnostic(entry.file, entry.line, message, Severity.WARNING,
                                          c_text=f"{file}:{line}: warning: {message}\n"))

    def syntax_error_is_reported(self, read: int) -> bool:
        """Account for a statement that failed after ``read`` good tokens;
        True if the C tool prints "syntax error" for it (bison reports an
        error only once three tokens were read since the last; recovering
        reads the erroneous statement's end of line)."""
        loud = self.quiet_tokens <= read
        self.quiet_tokens = 2
        return loud

    # -- nodes and properties (menu.c's parse-time helpers) ---------------------
    def add_entry(self, sym: Symbol | None, kind: str, file: str, line: int) -> MenuNode:
        parent = self.current_menu
        node = MenuNode(sym, parent, file, line, kind)
        last = self._last_child.get(id(parent))
        if last is None:
            parent.list = node
        else:
            last.next = node
        self._last_child[id(parent)] = node
        self.current_entry = node
        if sym is not None:
            append_to(sym, "nodes", node)
            self.add_prop(P_SYMBOL, sym, None, file, line)
        return node

    def open_block(self, node: MenuNode) -> None:
        self.current_menu = node

    def close_block(self) -> None:
        closed = self.current_menu
        self.current_menu = closed.parent
        self._last_child[id(self.current_menu)] = closed

    def add_prop(self, kind: str, expr: Any, cond: Any, file: str, line: int) -> Property:
        entry = self.current_entry
        prop = Property(kind, expr, cond, entry, file, line)
        sym = entry.sym if entry is not None else None
        if sym is not None:
            append_to(sym, "props", prop)
        return prop

    def add_prompt(self, kind: str, text: str, cond: Any, file: str, line: int) -> Property:
        prop = self.add_prop(kind, None, cond, file, line)
        entry = self.current_entry
        stripped = text.lstrip(" \t\n\v\f\r")
        if stripped != text:
            self.kc.warn(file, line, "leading whitespace ignored")
        if entry.prompt is not None:
            self.kc.warn(file, line, "prompt redefined")
        if kind == P_PROMPT:
            menu = entry.parent
            while menu is not None:
                if menu.visibility is not None:
                    prop.cond = and_expr(prop.cond, menu.visibility)
                menu = menu.parent
        entry.prompt = prop
        prop.text = stripped
        return prop

    def set_type(self, typ: int, file: str, line: int) -> None:
        sym = self.current_entry.sym
        if sym.type == typ:
            return
        if sym.type == UNKNOWN:
            sym.type = typ
            return
        entry = self.current_entry
        self.kc.warn(
            entry.file,
            entry.line,
            f"ignoring type redefinition of '{sym.name or '<choice>'}' from "
            f"'{self.kc.type_label(sym.type)}' to '{self.kc.type_label(typ)}'",
        )

    # -- files -------------------------------------------------------------------
    def parse_file(self, name: str, included_from: tuple[str, int] | None = None) -> None:
        path = self.kc.resolve_path(name)
        if path is None:
            if included_from is None:
                raise KconfigError(f"can't find file {name}")
            raise KconfigError(f"can't open file \"{name}\"", *included_from)
        if any(parent_name == name for parent_name, _line in self.include_stack):
            # The chain from the innermost include back to the first time
            # this file was entered, as the C tool prints it.
            chain = []
            for parent_name, line in reversed(self.include_stack):
                chain.append(f"  included from: {parent_name}:{line}\n")
                if parent_name == name:
                    break
            raise KconfigError(
                "Recursive inclusion detected.\nInclusion path:\n"
                f"  current file : {name}\n{''.join(chain)}".rstrip("\n")
            )
        text = self.kc.read_source(name, path)
        source = SourceFile(name, path, text, included_from)
        self.kc.files[name] = source
        if self.kc.progress is not None:
            self.kc.progress(len(self.kc.files))
        log = self.kc.relink
        if log is None:
            FileParser(self, source).run()
        else:
            start, quiet = self.kc.pp.fingerprint(), self.quiet_tokens
            FileParser(self, source).run()
            log.file_states[name] = (start, self.kc.pp.fingerprint())
            log.file_quiet[name] = (quiet, self.quiet_tokens)
            log.file_parses[name] = log.file_parses.get(name, 0) + 1
        if included_from is None:
            gen = self.kc.gen
            line = text.count("\n") + gen.eof_warning_line_offset
            if gen.eof_counts_unterminated_line and text and not text.endswith("\n"):
                line += 1
            self.report_menuconfig(self.kc.top_file if gen.eof_error_in_top_file else "<none>", line)
            self._report_unclosed(text)

    def _report_unclosed(self, top_text: str) -> None:
        """Blocks left open, reported once the whole input is read, as the C
        parser does when it meets the end of it: "syntax error" at a line
        past the top file's end (unless it is still quiet after an error),
        then each block, innermost first."""
        loud = self.syntax_error_is_reported(0) if self.unclosed else False
        for diag in self.unclosed:
            if loud:
                gen = self.kc.gen
                where = self.kc.top_file if gen.eof_error_in_top_file else "<none>"
                line = top_text.count("\n") + gen.eof_error_line_offset
                if gen.eof_counts_unterminated_line and top_text and not top_text.endswith("\n"):
                    line += 1
                text = f"{where}:{line}: syntax error\n{diag.file}:{diag.line}: {diag.message}\n"
                diag = replace(diag, c_text=text)
                loud = False
            self.kc.add_diagnostic(diag)
        self.unclosed.clear()


#: Operators one statement may hold.  Expressions nest at most this deep,
#: so every walk over them stays well inside Python's stack; the kernel's
#: longest has under a hundred.  (The C tool's parser gives up with
#: "memory exhausted" near 10,000 nested parentheses and crashes on a few
#: hundred thousand ``&&``.)
MAX_OPERATORS = 1000
_OPERATOR_KINDS = frozenset(("(", "!", "&&", "||"))


def _check_operator_count(stmt: Statement) -> None:
    count = 0
    for tok in stmt.tokens:
        if tok.kind in _OPERATOR_KINDS:
            count += 1
            if count > MAX_OPERATORS:
                raise ParseError(f"expression too complex: more than {MAX_OPERATORS} operators in one statement",
                                 tok, c_message="memory exhausted")


def _is_source(stmt: Statement) -> bool:
    first = stmt.tokens[0]
    return first.kind == "source" or (first.kind == WORD and first.value in _SOURCE_VARIANTS)


class ExpressionParser:
    """Kconfig expressions over a statement's tokens: ``||`` binds loosest,
    then ``&&``, then ``!``; comparisons join two symbols."""

    def __init__(self) -> None:
        #: (token, symbol) of every operand used as a truth value rather
        #: than compared, since the last reset (for type diagnostics).
        self.bare_operands: list[tuple[Token, Symbol]] = []

    # -- expressions -----------------------------------------------------------------
    def symbol_ref(self, toks: list[Token], pos: int, allow_const: bool) -> Symbol:
        if pos >= len(toks):
            raise ParseError("syntax error: expected a symbol", toks[-1] if toks else None, read=len(toks))
        tok = toks[pos]
        if tok.kind == WORD or (tok.kind == QUOTE and allow_const):
            return self.resolve_symbol(tok)
        raise ParseError(f"syntax error: expected a symbol, got '{tok.value}'", tok)

    def resolve_symbol(self, tok: Token) -> Symbol:
        raise NotImplementedError

    def parse_if(self, toks: list[Token], pos: int) -> tuple[Any, int]:
        if pos < len(toks) and toks[pos].kind == "if":
            return self.parse_condition(toks, pos + 1)
        return None, pos

    def parse_condition(self, toks: list[Token], pos: int) -> tuple[Any, int]:
        """An expression used as a truth value: its bare operands are
        logical uses."""
        del self.bare_operands[:]
        expr, pos = self.parse_expr(toks, pos)
        self.note_logical_uses()
        return expr, pos

    def note_logical_uses(self) -> None:
        """Hook: the bare operands just parsed were used as truth values."""
        del self.bare_operands[:]

    def parse_expr(self, toks: list[Token], pos: int) -> tuple[Any, int]:
        left, pos = self._parse_and(toks, pos)
        while pos < len(toks) and toks[pos].kind == "||":
            right, pos = self._parse_and(toks, pos + 1)
            left = (OR, left, right)
        return left, pos

    def _parse_and(self, toks: list[Token], pos: int) -> tuple[Any, int]:
        left, pos = self._parse_unary(toks, pos)
        while pos < len(toks) and toks[pos].kind == "&&":
            right, pos = self._parse_unary(toks, pos + 1)
            left = (AND, left, right)
        return left, pos

    def _parse_unary(self, toks: list[Token], pos: int) -> tuple[Any, int]:
        if pos >= len(toks):
            raise ParseError("syntax error: unexpected end of expression", toks[-1] if toks else None,
                             read=len(toks))
        kind = toks[pos].kind
        if kind == "!":
            operand, pos = self._parse_unary(toks, pos + 1)
            return (NOT, operand), pos
        if kind == "(":
            inner, pos = self.parse_expr(toks, pos + 1)
            if pos >= len(toks) or toks[pos].kind != ")":
                raise ParseError("syntax error: missing ')'", toks[pos - 1] if pos <= len(toks) else None, read=pos)
            return inner, pos + 1
        left = self.symbol_ref(toks, pos, allow_const=True)
        pos += 1
        if pos < len(toks) and toks[pos].kind in _CMP_OPS:
            op = _CMP_OPS[toks[pos].kind]
            right = self.symbol_ref(toks, pos + 1, allow_const=True)
            return (op, left, right), pos + 2
        self.bare_operands.append((toks[pos - 1], left))
        return left, pos


class FileParser(ExpressionParser):
    """Parses the statements of one file into the shared :class:`Builder`."""

    def __init__(self, builder: Builder, source: SourceFile):
        super().__init__()
        self.b = builder
        self.kc = builder.kc
        self.source = source
        self.file = source.name
        self.blocks: list[tuple[str, MenuNode, int]] = []
        #: The last statement read (the final-newline check looks at it).
        self.last_statement: Statement | None = None
        #: What the current entry accepts as options: config, choice, menu,
        #: comment, or None.
        self.entry_kind: str | None = None
        self.first_statement = True
        #: The line of the statement just before, if it failed.
        self.failed_line: int | None = None
        #: An ``if`` block whose reported line is the next statement's (4.x).
        self._if_awaiting_line: MenuNode | None = None
        #: Options each kind of entry accepts (the generation's grammar).
        self.option_handlers = _MEMBER_CHOICE_OPTIONS if self.kc.gen.member_choices else _OPTION_HANDLERS

    def warn(self, line: int, message: str) -> None:
        self.kc.warn(self.file, line, message)

    def note_logical_uses(self) -> None:
        for tok, sym in self.bare_operands:
            if not sym.is_const:
                self.kc.logical_uses.append((self.file, tok.start, tok.end, sym))
        del self.bare_operands[:]

    def resolve_symbol(self, tok: Token) -> Symbol:
        if tok.kind == QUOTE:
            return self.kc.lookup_const(tok.value)
        sym = self.kc.lookup(tok.value)
        if not sym.is_const:
            append_to(sym, "refs", (self.file, tok.start, tok.end))
        return sym

    def error(self, line: int, message: str, token: Token | None = None, c_text: str | None = None,
              code: str = "") -> None:
        self.kc.add_diagnostic(self._diagnostic(line, message, token, c_text, code))

    def _diagnostic(self, line: int, message: str, token: Token | None = None, c_text: str | None = None,
                    code: str = "") -> Diagnostic:
        col = end_col = None
        if token is not None:
            line, col = self.source.index.line_col(token.start)
            end_col = col + (token.end - token.start)
        return Diagnostic(self.file, line, message, Severity.ERROR, col or 0, end_col, code=code, c_text=c_text)

    def run(self) -> None:
        cache = self.kc.lex_cache
        ahead = self.kc.lex_ahead
        lexed = ahead.take(self.file, self.source.text) if ahead is not None and cache is None else None
        if lexed is not None:  # (lexed while the load waited for a probe: lex_ahead.py)
            for stmt in lexed.replay(self.warn):
                self.consume(stmt)
            self._record_expansions([])
        elif cache is None:
            lexer = Lexer(self.source.text, self.file, self.kc.pp, self.warn, self.kc.gen)
            for stmt in lexer.statements():
                self.consume(stmt)
            self._record_expansions(lexer.expansions)
        else:
            self._run_with_cache(cache)
        self._check_final_newline()

    def _check_final_newline(self) -> None:
        """6.11+: the top file's last statement needs its newline (the
        lexer gives the parser no end of line at the end of input there), so
        without one it is a syntax error and the entry's options end
        unfinished (no menuconfig warning follows)."""
        text = self.source.text
        if (not self.kc.gen.top_file_needs_final_newline or self.source.included_from is not None
                or not text or text.endswith("\n") or self.last_statement is None
                or self.last_statement.help_text is not None):
            return
        self.b.pending_menuconfig = None
        line = text.count("\n") + 1
        if self.b.syntax_error_is_reported(len(self.last_statement.tokens)):
            self.error(line, "syntax error: the last line needs a newline",
                       c_text=f"{self.file}:{line}: syntax error\n")

    def _record_expansions(self, expansions: list[tuple[int, int, str]]) -> None:
        self.end_entry()
        for start, end, result in expansions:
            self.kc.expansions.append((self.file, start, end, result))
        while self.blocks:
            kind, node, line = self.blocks.pop()
            self.b.unclosed.append(self._diagnostic(line, "missing end statement for this entry"))
            self.b.close_block()
            if kind == "choice":
                self.b.current_choice = None

    def consume(self, stmt: Statement) -> None:
        entry_before = self.entry_kind
        in_entry = entry_before is not None
        if self._if_awaiting_line is not None:
            self._settle_if_line(stmt.line)
        self.b.report_menuconfig(self.file, stmt.line)
        self.last_statement = stmt
        try:
            if len(stmt.tokens) > MAX_OPERATORS:
                _check_operator_count(stmt)
            self.statement(stmt)
            if self.entry_kind is not None:
                entry = self.b.current_entry
                last = stmt.help_end_line - 1 if stmt.help_text is not None else stmt.line
                if last > entry.end_line:
                    entry.end_line = last
        except ParseError as exc:
            first = stmt.tokens[0]
            # 4.x: an entry's option list has its own error rule (option_error),
            # so a bad option is reported as one and the entry goes on.
            option_error = self.kc.gen.option_errors and in_entry and first.kind not in _STATEMENT_KEYWORDS
            if in_entry and self.entry_kind in ("choice", "menu") and not option_error:
                self._drop_block()
            c_message = exc.c_message or "invalid statement"
            if option_error and not c_message.startswith("unexpected '"):
                c_message = f'unknown option "{first.value}"' if first.kind == WORD else "invalid option"
            if c_message.startswith("unexpected '"):
                # Reported by a grammar action, not by the parser's recovery.
                self.b.quiet_tokens = 0
                c_text = f"{self.file}:{stmt.line}: {c_message}\n"
            else:
                c_text = f"{self.file}:{stmt.line}: {c_message}\n"
                if self.b.syntax_error_is_reported(self._tokens_read(stmt, exc)):
                    line = stmt.line + self.kc.gen.syntax_error_line_offset
                    c_text = f"{self.file}:{line}: syntax error\n" + c_text
            self.error(stmt.line, str(exc), exc.token, c_text, exc.code)
            self.entry_kind = entry_before if option_error else None
            self.failed_line = stmt.line
        else:
            if not _is_source(stmt):
                # (A source statement counted its tokens before the file it
                # sources, whose statements come after them.)
                self.b.quiet_tokens = 0
            self.failed_line = None
        self.first_statement = False

    @staticmethod
    def _tokens_read(stmt: Statement, exc: ParseError) -> int:
        if exc.read is not None:
            return exc.read
        if exc.token is not None:
            for index, tok in enumerate(stmt.tokens):
                if tok is exc.token:
                    return index
        return 0

    def _run_with_cache(self, cache: dict) -> None:
        """Replay this file's statements from an earlier lexing when the text
        and the macro state it depends on are the same (the language server
        re-links the tree after an edit without re-lexing other files)."""
        pp = self.kc.pp
        key = (self.file, self.source.text)
        entry: LexedFile | None = cache.get(key)
        if entry is not None and (not entry.expanded or entry.start_state == pp.fingerprint()):
            for line, message in entry.warnings:
                self.warn(line, message)
            for index, stmt in enumerate(entry.statements()):
                self.consume(stmt)
                resume = entry.after_source.get(index)
                if resume is not None and resume[0] != pp.fingerprint():
                    # A sourced file changed the macros: lex the rest anew.
                    lexer = Lexer(self.source.text, self.file, pp, self.warn, self.kc.gen)
                    lexer.pos, lexer.line = resume[1], resume[2]
                    for rest in lexer.statements():
                        self.consume(rest)
                    self._record_expansions([e for e in entry.expansions if e[0] < resume[1]])
                    self._record_expansions(lexer.expansions)
                    return
            self._record_expansions(entry.expansions)
            return
        warnings: list[tuple[int, str]] = []

        def record(line: int, message: str) -> None:
            warnings.append((line, message))
            self.warn(line, message)

        entry = LexedFile(warnings, pp.fingerprint())
        lexer = Lexer(self.source.text, self.file, pp, record, self.kc.gen)
        for stmt in lexer.statements():
            index = entry.add(stmt)
            self.consume(stmt)
            if _is_source(stmt):
                entry.after_source[index] = (pp.fingerprint(), lexer.pos, lexer.line)
        entry.expanded = lexer.expanded
        entry.expansions = lexer.expansions
        self._record_expansions(lexer.expansions)
        cache[key] = entry

    # -- dispatch ----------------------------------------------------------------
    def statement(self, stmt: Statement) -> None:
        toks = stmt.tokens
        kind = toks[0].kind
        line = stmt.line

        if self.entry_kind == "config" and kind == WORD and (
                toks[0].value == "option" or (toks[0].value == "transitional" and self.kc.gen.transitional)):
            if toks[0].value == "transitional":
                self.opt_transitional(stmt)
            else:
                self.opt_option(stmt)
            return
        if self.entry_kind is not None:
            handler = self.option_handlers[self.entry_kind].get(kind)
            if handler is not None:
                handler(self, stmt)
                return

        self.end_entry(stmt.line)
        if kind in ("config", "menuconfig"):
            if kind == "menuconfig" and self.in_choice():
                raise ParseError("invalid statement")
            self.config_entry(stmt, kind)
        elif kind == "choice":
            if self.in_choice():
                raise ParseError("invalid statement")
            self.choice_entry(stmt)
        elif kind == "comment":
            text = self.expect_end(toks, 1, quote=True)
            self.b.add_entry(None, "comment", self.file, line)
            self.b.add_prompt(P_COMMENT, text, None, self.file, line)
            self.entry_kind = "comment"
        elif kind == "menu":
            if self.in_choice():
                raise ParseError("invalid statement")
            text = self.expect_end(toks, 1, quote=True)
            node = self.b.add_entry(None, "menu", self.file, line)
            self.b.add_prompt(P_MENU, text, None, self.file, line)
            self.push_block("menu", node, line)
            self.entry_kind = "menu"
        elif kind == "if":
            expr, pos = self.parse_condition(toks, 1)
            self.expect_eol(toks, pos)
            node = self.b.add_entry(None, "if", self.file, line)
            node.dep = and_expr(node.dep, expr)
            self.push_block("if", node, line)
            if self.kc.gen.if_line_is_next_statement:
                self._if_awaiting_line = node
        elif kind in ("endmenu", "endchoice", "endif"):
            self.expect_eol(toks, 1)
            self.end_block(kind[3:], stmt)
        elif kind == "source" or (kind == WORD and toks[0].value in _SOURCE_VARIANTS):
            if self.in_choice():
                raise ParseError("invalid statement")
            self.source_statement(stmt)
        elif kind == "mainmenu":
            text = self.expect_end(toks, 1, quote=True)
            if not self.first_statement or self.b.include_stack:
                raise ParseError("syntax error: 'mainmenu' must be the first statement")
            self.b.current_entry = self.kc.root
            self.b.add_prompt(P_MENU, text, None, self.file, line)
        elif (assigned := assignment(toks)) is not None:
            if self.in_choice():
                raise ParseError("invalid statement")
            pp = self.kc.pp
            pp.filename, pp.lineno = self.file, line
            pp.assign(*assigned)
        elif kind == WORD:
            raise ParseError(f'unknown statement "{toks[0].value}"', toks[0], f'unknown statement "{toks[0].value}"',
                             read=1)
        elif any(kind in options for options in _OPTION_HANDLERS.values()):
            message = f"'{toks[0].value}' outside a config, choice, menu or comment entry"
            # (4.x's grammar has a rule of its own for this.)
            c_message = f'unexpected option "{toks[0].value}"' if self.kc.gen.option_errors else None
            if self.failed_line:
                raise ParseError(f"{message} (the entry ended at the error on line {self.failed_line})", toks[0],
                                 c_message, code="after-error")
            raise ParseError(message, toks[0], c_message)
        else:
            raise ParseError("invalid statement", toks[0])

    def _settle_if_line(self, line: int) -> None:
        """4.x's grammar reduces an ``if`` line only once it has seen the
        next token, so the block is reported at the next statement's line."""
        node, self._if_awaiting_line = self._if_awaiting_line, None
        node.line = line
        for i, (kind, block_node, _line) in enumerate(self.blocks):
            if block_node is node:
                self.blocks[i] = (kind, node, line)

    def end_entry(self, next_line: int | None = None) -> None:
        """The current entry is complete (the statement at ``next_line`` is
        not one of its options; None: the file ended).  A menuconfig entry
        without a prompt is warned about where the C parser notices, at the
        next statement (of any file) or the end of input.  A config entry
        inside a member choice must have a prompt and be bool, and joins
        the choice's priority list."""
        kind, self.entry_kind = self.entry_kind, None
        entry = self.b.current_entry
        if kind == "config" and entry is not None and entry.kind == "menuconfig" and entry.prompt is None:
            self.b.pending_menuconfig = entry
        if next_line is not None:
            self.b.report_menuconfig(self.file, next_line)
        choice = self.b.current_choice
        if not self.kc.gen.member_choices or choice is None:
            return
        if kind == "choice":
            if choice.prompt is None:
                self._member_error(choice, "choice must have a prompt")
            return
        if kind != "config":
            return
        sym = entry.sym
        if entry.prompt is None:
            self._member_error(entry, "choice member must have a prompt")
        if sym.type != BOOL:
            self._member_error(entry, "choice member must be bool")
        if not sym.is_choice_value:
            sym.is_choice_value = True
            append_to(choice.sym, "members", sym)

    def _member_error(self, entry: MenuNode, message: str) -> None:
        self.kc.add_diagnostic(Diagnostic(entry.file, entry.line, message, Severity.ERROR,
                                          c_text=f"{entry.file}:{entry.line}: error: {message}\n"))

    def in_choice(self) -> bool:
        """Whether a ``choice`` block of this file is open."""
        return any(block[0] == "choice" for block in self.blocks)

    def push_block(self, kind: str, node: MenuNode, line: int) -> None:
        self.blocks.append((kind, node, line))
        self.b.open_block(node)

    def end_block(self, kind: str, stmt: Statement) -> None:
        if not self.blocks:
            raise ParseError(f"unexpected 'end{kind}' (no open '{kind}' block in this file)")
        open_kind, node, _line = self.blocks[-1]
        if open_kind != kind:
            # The block counts as closed all the same (as in the C grammar).
            self.blocks.pop()
            self.b.close_block()
            said = f"end{kind}" if self.kc.gen.end_error_names_keyword else kind
            raise ParseError(
                f"unexpected 'end{kind}' within {open_kind} block",
                stmt.tokens[0],
                f"unexpected '{said}' within {open_kind} block",
            )
        self.blocks.pop()
        node.end_line = stmt.line
        self.b.close_block()
        if kind == "choice":
            self.b.current_choice = None

    def _drop_block(self) -> None:
        """A choice's or menu's option failed: bison's recovery discards the
        unfinished entry, so it never opens a block (what follows becomes
        its siblings and its ``endchoice``/``endmenu`` has nothing to close)."""
        if self.blocks:
            kind = self.blocks.pop()[0]
            self.b.close_block()
            if kind == "choice":
                self.b.current_choice = None

    # -- entries -------------------------------------------------------------------
    def config_entry(self, stmt: Statement, kind: str) -> None:
        toks = stmt.tokens
        if len(toks) != 2 or toks[1].kind != WORD:
            raise ParseError(f"syntax error: expected a symbol name after '{kind}'",
                             read=2 if len(toks) > 2 and toks[1].kind == WORD else 1)
        sym = self.kc.lookup(toks[1].value)
        sym.optional = True
        node = self.b.add_entry(sym, kind, self.file, stmt.line)
        node.name_span = (toks[1].start, toks[1].end)
        self.entry_kind = "config"

    def choice_entry(self, stmt: Statement) -> None:
        toks = stmt.tokens
        member_choices = self.kc.gen.member_choices
        name = None
        if len(toks) == 2 and toks[1].kind == WORD and not member_choices:
            name = toks[1].value
        elif len(toks) != 1:
            raise ParseError("syntax error in 'choice'" if not member_choices else
                             "syntax error: 'choice' takes no name in this kconfig generation")
        sym = self.kc.lookup_choice(name)
        sym.no_write = True
        node = self.b.add_entry(sym, "choice", self.file, stmt.line)
        if name is not None:
            node.name_span = (toks[1].start, toks[1].end)
        if member_choices:
            sym.type = BOOL
        else:
            self.b.add_prop(P_CHOICE, None, None, self.file, stmt.line)
        self.push_block("choice", node, stmt.line)
        self.b.current_choice = node
        self.entry_kind = "choice"

    def source_statement(self, stmt: Statement) -> None:
        toks = stmt.tokens
        keyword = toks[0].value
        path = self.expect_end(toks, 1, quote=True)
        if self.kc.gen.dollar_symbols:
            path = expand_symbol_references(self.kc, path)
        if keyword != "source":
            self.warn(stmt.line, f"'{keyword}' is not supported by the Linux 6.1 C tool")
            if keyword.startswith("o") and self.kc.resolve_path(self._relative(keyword, path)) is None:
                self.kc.missing_sources.append(self._relative(keyword, path))
                return
            path = self._relative(keyword, path)
        self.kc.source_refs.append((self.file, toks[1].start, toks[1].end, path))
        self.b.quiet_tokens = 0
        self.b.include_stack.append((self.file, stmt.line))
        try:
            self.b.parse_file(path, (self.file, stmt.line))
        finally:
            self.b.include_stack.pop()

    def _relative(self, keyword: str, path: str) -> str:
        return source_name(keyword, self.file, path)

    # -- options -------------------------------------------------------------------
    def opt_type(self, stmt: Statement) -> None:
        toks = stmt.tokens
        typ = _TYPE_KEYWORDS[toks[0].kind]
        if self.entry_kind == "choice" and typ not in (BOOL, TRISTATE):
            raise ParseError("invalid statement")
        if self.entry_kind == "choice" and self.kc.gen.member_choices and (
                len(toks) < 2 or toks[1].kind != QUOTE):
            raise ParseError("syntax error: a choice's 'bool' needs its prompt")
        pos = 1
        if pos < len(toks) and self.is_prompt(toks[pos]):
            text = toks[pos].value
            cond, pos = self.parse_if(toks, pos + 1)
            self.expect_eol(toks, pos)
            self.b.add_prompt(P_PROMPT, text, cond, self.file, stmt.line)
        else:
            self.expect_eol(toks, pos)
        self.b.set_type(typ, self.file, stmt.line)

    def opt_prompt(self, stmt: Statement) -> None:
        toks = stmt.tokens
        if len(toks) < 2 or not self.is_prompt(toks[1]):
            raise ParseError("syntax error: 'prompt' needs a quoted text")
        cond, pos = self.parse_if(toks, 2)
        self.expect_eol(toks, pos)
        self.b.add_prompt(P_PROMPT, toks[1].value, cond, self.file, stmt.line)

    def opt_default(self, stmt: Statement) -> None:
        toks = stmt.tokens
        kind = toks[0].kind
        if self.entry_kind == "choice":
            if kind != "default":
                raise ParseError("invalid statement")
            target = self.symbol_ref(toks, 1, allow_const=False)
            cond, pos = self.parse_if(toks, 2)
            self.expect_eol(toks, pos)
            self.b.add_prop(P_DEFAULT, target, cond, self.file, stmt.line)
            return
        del self.bare_operands[:]
        expr, pos = self.parse_expr(toks, 1)
        if kind != "default" or expr.__class__ is tuple:
            self.note_logical_uses()  # a truth value, not a symbol's value
        cond, pos = self.parse_if(toks, pos)
        self.expect_eol(toks, pos)
        self.b.add_prop(P_DEFAULT, expr, cond, self.file, stmt.line)
        if kind == "def_bool":
            self.b.set_type(BOOL, self.file, stmt.line)
        elif kind == "def_tristate":
            self.b.set_type(TRISTATE, self.file, stmt.line)

    def opt_select(self, stmt: Statement) -> None:
        toks = stmt.tokens
        target = self.symbol_ref(toks, 1, allow_const=False)
        cond, pos = self.parse_if(toks, 2)
        self.expect_eol(toks, pos)
        kind = P_SELECT if toks[0].kind == "select" else P_IMPLY
        self.b.add_prop(kind, target, cond, self.file, stmt.line)

    def opt_range(self, stmt: Statement) -> None:
        toks = stmt.tokens
        low = self.symbol_ref(toks, 1, allow_const=True)
        high = self.symbol_ref(toks, 2, allow_const=True)
        cond, pos = self.parse_if(toks, 3)
        self.expect_eol(toks, pos)
        self.b.add_prop(P_RANGE, (low, high), cond, self.file, stmt.line)

    def opt_modules(self, stmt: Statement) -> None:
        self.expect_eol(stmt.tokens, 1)
        self._set_modules(stmt.line)

    def _set_modules(self, line: int) -> None:
        sym = self.b.current_entry.sym
        kc = self.kc
        if kc.modules_sym is not None and kc.modules_sym is not sym:
            self.error(
                line,
                f"symbol '{sym.name}' redefines option 'modules' already defined by symbol "
                f"'{kc.modules_sym.name}'",
            )
            return
        kc.modules_sym = sym

    def opt_transitional(self, stmt: Statement) -> None:
        self.expect_eol(stmt.tokens, 1)
        self.b.current_entry.sym.transitional = True

    def opt_option(self, stmt: Statement) -> None:
        """``option env=...``/``defconfig_list``/``modules``/``allnoconfig_y``
        from older Kconfig trees (gone from Linux 6.1)."""
        toks = stmt.tokens
        if len(toks) < 2 or toks[1].kind not in (WORD, "modules"):
            raise ParseError('unknown statement "option"')
        name = toks[1].value
        gen = self.kc.gen
        if not gen.option_keyword:
            self.warn(stmt.line, f"'option {name}' is obsolete and not supported by the Linux 6.1 C tool")
        if name == "modules":
            self._set_modules(stmt.line)
        elif name == "env" and len(toks) >= 4 and toks[2].kind == "=" and toks[3].kind == QUOTE:
            entry = self.b.current_entry
            sym = entry.sym
            value = self.kc.pp.env.get(toks[3].value)
            if value is not None:
                default = self.kc.lookup_const(value)
                self.b.add_prop(P_DEFAULT, default, None, self.file, stmt.line)
            elif gen.option_keyword:
                self.kc.warn(entry.file, entry.line, f"environment variable {toks[3].value} undefined")
            sym.no_write = True
        elif name == "defconfig_list":
            self.kc.defconfig_list_sym = self.b.current_entry.sym
        elif name == "allnoconfig_y":
            self.b.current_entry.sym.allnoconfig_y = True
        else:
            raise ParseError(f"unknown option \"{name}\"")

    def opt_optional(self, stmt: Statement) -> None:
        self.expect_eol(stmt.tokens, 1)
        self.b.current_entry.sym.optional = True

    def opt_depends(self, stmt: Statement) -> None:
        toks = stmt.tokens
        if len(toks) < 2 or toks[1].kind != "on":
            raise ParseError("syntax error: expected 'depends on'")
        expr, pos = self.parse_condition(toks, 2)
        if self.kc.gen.conditional_depends:
            # "depends on X if Y": X only while Y is not n (X || Y = n).
            cond, pos = self.parse_if(toks, pos)
            if cond is not None:
                expr = (OR, expr, is_n(cond))
        self.expect_eol(toks, pos)
        entry = self.b.current_entry
        entry.dep = and_expr(entry.dep, expr)

    def opt_visible(self, stmt: Statement) -> None:
        cond, pos = self.parse_if(stmt.tokens, 1)
        self.expect_eol(stmt.tokens, pos)
        entry = self.b.current_entry
        entry.visibility = and_expr(entry.visibility, cond)

    def opt_help(self, stmt: Statement) -> None:
        entry = self.b.current_entry
        text = stmt.help_text or ""
        name = entry.sym.name if entry.sym is not None and entry.sym.name else "<choice>"
        if entry.help is not None:
            self.warn(
                stmt.line,
                f"'{name}' defined with more than one help text -- only the last one will be used",
            )
        if not text.strip(" \f\n\r\t\v"):
            self.warn(stmt.line, f"'{name}' defined with blank help text")
        entry.help = text
        entry.end_line = max(entry.end_line, stmt.help_end_line - 1)

    # -- small helpers -----------------------------------------------------------------
    def expect_eol(self, toks: list[Token], pos: int) -> None:
        if pos < len(toks):
            raise ParseError(f"syntax error: unexpected '{toks[pos].value}'", toks[pos])

    def is_prompt(self, tok: Token) -> bool:
        """A prompt's text: quoted, or (4.x) also a bare word."""
        return tok.kind == QUOTE or (tok.kind == WORD and self.kc.gen.bare_word_prompts)

    def expect_end(self, toks: list[Token], pos: int, quote: bool) -> str:
        if pos >= len(toks) or (quote and not self.is_prompt(toks[pos])):
            raise ParseError(f"syntax error: '{toks[0].value}' needs a quoted text", read=pos)
        self.expect_eol(toks, pos + 1)
        return toks[pos].value


_CONFIG_OPTIONS = {
    **{kw: FileParser.opt_type for kw in _TYPE_KEYWORDS},
    "prompt": FileParser.opt_prompt,
    "default": FileParser.opt_default,
    "def_bool": FileParser.opt_default,
    "def_tristate": FileParser.opt_default,
    "select": FileParser.opt_select,
    "imply": FileParser.opt_select,
    "range": FileParser.opt_range,
    "modules": FileParser.opt_modules,
    "depends": FileParser.opt_depends,
    "help": FileParser.opt_help,
}


_OPTION_HANDLERS: dict[str, dict[str, Any]] = {
    "config": {**_CONFIG_OPTIONS},
    "choice": {
        "prompt": FileParser.opt_prompt,
        "bool": FileParser.opt_type,
        "tristate": FileParser.opt_type,
        "int": FileParser.opt_type,
        "hex": FileParser.opt_type,
        "string": FileParser.opt_type,
        "optional": FileParser.opt_optional,
        "default": FileParser.opt_default,
        "depends": FileParser.opt_depends,
        "help": FileParser.opt_help,
    },
    "menu": {"visible": FileParser.opt_visible, "depends": FileParser.opt_depends},
    "comment": {"depends": FileParser.opt_depends},
}


#: Member choices (Linux 6.11+): only bool choices with a prompt; no
#: ``optional``.
_MEMBER_CHOICE_OPTIONS: dict[str, dict[str, Any]] = {
    **_OPTION_HANDLERS,
    "choice": {k: v for k, v in _OPTION_HANDLERS["choice"].items()
               if k not in ("tristate", "int", "hex", "string", "optional")},
}


def expand_symbol_references(kc: Kconfig, text: str) -> str:
    """``$NAME`` replaced by the value of symbol NAME, empty when there is
    none (4.x ``sym_expand_string_value``, for source paths and the main
    menu's title)."""
    out: list[str] = []
    i = 0
    while True:
        dollar = text.find("$", i)
        if dollar < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:dollar])
        end = dollar + 1
        while end < len(text) and (text[end].isascii() and (text[end].isalnum() or text[end] == "_")):
            end += 1
        sym = kc.find(text[dollar + 1 : end])
        if sym is not None:
            # (Mid-parse: the value from the properties read so far.)
            sym.index_properties()
            sym.valid = False
            sym.calc_value()
            out.append(sym.str_value())
        i = end
