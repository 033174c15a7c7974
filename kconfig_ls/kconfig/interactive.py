"""The line-oriented configurator of ``scripts/kconfig/conf``
(``--oldaskconfig``, ``--oldconfig``, ``--syncconfig``): the same questions,
the same answers accepted, the same text on stdout."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from ..stdin_lines import StdinLines
from .configfile import menu_is_visible
from .expr import HEX, INT, STRING, M, N, Y
from .help_text import symbol_help
from .member_choices import calc_choice, set_choice_value
from .menu import P_COMMENT, P_MENU
from .newconfig import is_new

if TYPE_CHECKING:
    from .menu import MenuNode
    from .symbols import Symbol
    from .tree import Kconfig


def _strip(text: str) -> str:
    return text.strip(" \t\n\v\f\r")


class Conversation:
    """One run of conf's interactive modes over a loaded tree."""

    def __init__(self, kc: Kconfig, mode: str, lines: StdinLines, out: TextIO, err: TextIO, tty: bool):
        self.kc = kc
        self.mode = mode
        self.lines = lines
        self.out = out
        self.err = err
        self.tty = tty
        self.indent = 1
        self.line = "\n"
        self.root_entry: MenuNode = kc.root
        self.conf_cnt = 0

    def write(self, text: str) -> None:
        self.out.write(text)

    def run(self) -> None:
        kc = self.kc
        if self.mode == "oldaskconfig":
            self.root_entry = kc.root
            self.conf(kc.root)
            self.mode = "oldconfig"
        while True:
            self.conf_cnt = 0
            self.check_conf(kc.root)
            if not self.conf_cnt:
                break

    # -- input -------------------------------------------------------------------
    def _fgets(self) -> None:
        self.out.flush()
        got = self.lines.readline()
        if got is None:
            self.err.write("\nError in reading or end of file.\n")
            self.err.flush()
        else:
            self.line = got
        if not self.tty:
            self.write(self.line)

    def ask_value(self, sym: Symbol, default: str | None) -> bool:
        if not sym.has_user:
            self.write("(NEW) ")
        self.line = "\n"
        if not sym.is_changeable():
            self.write(f"{default or ''}\n")
            return False
        if self.mode in ("oldconfig", "syncconfig") and sym.has_user:
            self.write(f"{default or ''}\n")
            return False
        self._fgets()
        return True

    # -- questions ---------------------------------------------------------------
    def conf_string(self, node: MenuNode) -> None:
        sym = node.sym
        while True:
            self.write(f"{' ' * (self.indent - 1)}{node.prompt.text} ")
            self.write(f"({sym.name}) ")
            default: str | None = sym.str_value()
            self.write(f"[{default}] ")
            if not self.ask_value(sym, default):
                return
            line = self.line
            if line.startswith("\n"):
                pass
            elif line.startswith("?") and line[1:2] == "\n":
                self.print_help(node)
                default = None
            else:
                default = line[:-1]
            if default is not None and sym.set_string_value(default):
                return
            if self.kc.gen.number_question_stops_at_eof and getattr(self.lines, "hit_eof", False):
                # Re-asking would loop forever on an exhausted input.
                self.err.write(f"\nerror: no value for new symbol '{sym.name}' at end of input\n")
                self.err.flush()
                raise SystemExit(1)

    def conf_sym(self, node: MenuNode) -> None:
        sym = node.sym
        while True:
            self.write(f"{' ' * (self.indent - 1)}{node.prompt.text} ")
            if sym.name:
                self.write(f"({sym.name}) ")
            sym.calc_value()
            old = sym.curr_tri
            text = "[" + "NMY"[old]
            if old != N and sym.tristate_within_range(N):
                text += "/n"
            if old != M and sym.tristate_within_range(M):
                text += "/m"
            if old != Y and sym.tristate_within_range(Y):
                text += "/y"
            self.write(text + "/?] ")
            if not self.ask_value(sym, sym.str_value()):
                return
            answer = _strip(self.line)
            first = answer[:1]
            rest = answer[1:]
            if first in ("n", "N"):
                if rest not in ("", "o"):
                    continue
                new = N
            elif first in ("m", "M"):
                if rest:
                    continue
                new = M
            elif first in ("y", "Y"):
                if rest not in ("", "es"):
                    continue
                new = Y
            elif first == "":
                new = old
            elif first == "?":
                self.print_help(node)
                continue
            else:
                continue
            if sym.set_tristate_value(new):
                return
            self.print_help(node)

    def conf_member_choice(self, node: MenuNode) -> None:
        """A member choice's question (no mode to ask first); the answer
        picks a member as the configurator does."""
        choice = node.sym
        chosen = self._pick_member(node, lambda: calc_choice(choice), None)
        set_choice_value(choice, chosen.sym)

    def conf_choice(self, node: MenuNode) -> bool:
        sym = node.sym
        is_new = not sym.has_user
        sym.calc_value()
        if sym.is_changeable():
            self.conf_sym(node)
            sym.calc_value()
            if sym.curr_tri == N:
                return True
            if sym.curr_tri == M:
                return False
        else:
            if sym.curr_tri == N:
                return True
            if sym.curr_tri == M:
                self.write(f"{' ' * (self.indent - 1)}{node.prompt_text}\n")
                return False
        chosen = self._pick_member(node, lambda: sym.selection, is_new)
        chosen.sym.set_tristate_value(Y)
        for grandchild in chosen.children():
            self.indent += 2
            self.conf(grandchild)
            self.indent -= 2
        return True

    def _pick_member(self, node: MenuNode, selected: Callable[[], Symbol | None], is_new: bool | None) -> MenuNode:
        """List a choice's visible members, read the answer (or take the
        selected one) and return the member picked.  ``is_new`` is whether
        the choice counts as new; None (member choices): whether any member
        has no value yet, and every member shows its name."""
        pad = " " * (self.indent - 1)
        member_choices = is_new is None
        new = bool(is_new)
        while True:
            self.write(f"{pad}{node.prompt_text}\n")
            current = selected()
            cnt = default = 0
            self.line = ""
            for child in node.children():
                if not menu_is_visible(child):
                    continue
                if child.sym is None:
                    self.write(f"{'*':>{self.indent}} {child.prompt_text}\n")
                    continue
                cnt += 1
                if child.sym is current:
                    default = cnt
                    self.write(f"{'>':>{self.indent}}")
                else:
                    self.write(" " * self.indent)
                self.write(f" {cnt}. {child.prompt_text}")
                if child.sym.name or member_choices:
                    self.write(f" ({child.sym.name})")
                if not child.sym.has_user:
                    new = new or member_choices
                    self.write(" (NEW)")
                self.write("\n")
            self.write(f"{pad}choice")
            if cnt == 1:
                self.write("[1]: 1\n")
            else:
                self.write(f"[1-{cnt}?]: ")
                if self.mode in ("oldconfig", "syncconfig") and not new:
                    cnt = default
                    self.write(f"{cnt}\n")
                elif self.mode in ("oldconfig", "syncconfig", "oldaskconfig"):
                    self._fgets()
                    answer = _strip(self.line)
                    self.line = answer
                    if answer.startswith("?"):
                        self.print_help(node)
                        continue
                    if not answer:
                        cnt = default
                    elif answer[0].isdigit():
                        cnt = _atoi(answer)
                    else:
                        continue
            chosen = None
            for child in node.children():
                if child.sym is None or not menu_is_visible(child):
                    continue
                cnt -= 1
                if cnt == 0:
                    chosen = child
                    break
            if chosen is None:
                continue
            if self.line and self.line.endswith("?"):
                self.print_help(chosen)
                continue
            return chosen

    # -- traversal ---------------------------------------------------------------
    def conf(self, node: MenuNode) -> None:
        if not menu_is_visible(node):
            return
        sym = node.sym
        prompt = node.prompt
        if prompt is not None and prompt.kind in (P_MENU, P_COMMENT):
            if prompt.kind == P_MENU and self.mode != "oldaskconfig" and self.root_entry is not node:
                self.check_conf(node)
                return
            text = node.prompt_text
            if text is not None:
                star = f"{'*':>{self.indent}}"
                self.write(f"{star}\n{star} {text}\n{star}\n")
        if sym is not None:
            if sym.is_choice and self.kc.gen.member_choices:
                self.conf_member_choice(node)
                return
            if sym.is_choice:
                self.conf_choice(node)
                if sym.curr_tri != M:
                    return
            elif sym.type in (INT, HEX, STRING):
                self.conf_string(node)
            else:
                self.conf_sym(node)
            self.indent += 2
        for child in node.children():
            self.conf(child)
        if sym is not None:
            self.indent -= 2

    def check_conf(self, node: MenuNode) -> None:
        if not menu_is_visible(node):
            return
        if is_new(node.sym):
            if not self.conf_cnt:
                self.write("*\n* Restart config...\n*\n")
            self.conf_cnt += 1
            self.root_entry = parent_menu(self.kc, node)
            self.conf(self.root_entry)
        for child in node.children():
            self.check_conf(child)

    def print_help(self, node: MenuNode) -> None:
        self.write(f"\n{symbol_help(self.kc, node)}\n")


def parent_menu(kc: Kconfig, node: MenuNode) -> MenuNode:
    """The closest enclosing menu (or menuconfig) of ``node``."""
    while node is not kc.root:
        if node.prompt is not None and node.prompt.kind == P_MENU:
            return node
        node = node.parent
    return node


def _atoi(text: str) -> int:
    digits = ""
    for c in text:
        if not c.isdigit():
            break
        digits += c
    return int(digits) if digits else 0


def run_interactive(kc: Kconfig, mode: str, lines: StdinLines | None = None) -> None:
    tty = sys.stdin.isatty() and sys.stdout.isatty()
    Conversation(kc, mode, lines or StdinLines(), sys.stdout, sys.stderr, tty).run()
    sys.stdout.flush()
