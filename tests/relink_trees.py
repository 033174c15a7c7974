"""Random multi-file Kconfig trees and random edits of them, for the test
of the incremental re-link (tests/unit/test_relink.py).

A tree is a model: files of entries (configs, menuconfigs, choices, menus,
``if`` blocks, comments, ``source`` lines) whose dependencies, defaults,
selects and prompts refer to symbols of every file.  An edit changes the
model and renders the file again: most edits keep the file's entries
(expressions, properties, prompts, help, blank lines: what the re-link
patches), some change them (a new entry, a renamed symbol, a broken line:
what must fall back to a full load).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

TYPES = ("bool", "tristate", "int", "hex", "string")
#: The prompt of the entry a broken edit adds (a syntax error).
_BROKEN = "broken ("


@dataclass
class Entry:
    kind: str  # config, menuconfig, choice, menu, if, comment, source
    name: str = ""
    type: str = "bool"
    prompt: str | None = None
    prompt_if: str | None = None
    depends: list[str] = field(default_factory=list)
    visible: str | None = None
    defaults: list[tuple[str, str | None]] = field(default_factory=list)
    selects: list[tuple[str, str | None]] = field(default_factory=list)
    implies: list[tuple[str, str | None]] = field(default_factory=list)
    ranges: list[tuple[str, str]] = field(default_factory=list)
    help: str | None = None
    children: list[Entry] = field(default_factory=list)
    gap: int = 0  # blank lines before the entry
    #: A broken line inside the entry (a syntax error while typing).
    garbage: str | None = None
    modules: bool = False


class RandomTree:
    """Files as entry models, rendered to text on demand."""

    def __init__(self, seed: int, files: int = 4, member_choices: bool = False):
        self.rng = random.Random(seed)
        #: 6.11+: choices and their members are bool.
        self.member_choices = member_choices
        self.types: dict[str, str] = {}
        self.files: dict[str, list[Entry]] = {}
        self.file_names = ["Kconfig"] + [f"sub{i}/Kconfig" for i in range(1, files)]
        for name in self.file_names[1:]:
            self.files[name] = self._entries(depth=0, count=self.rng.randint(3, 8))
        top = [Entry("config", name="MODULES", type="bool", prompt="Modules", modules=True,
                     defaults=[("y", None)])]
        top += self._entries(depth=0, count=3)
        for name in self.file_names[1:]:
            place = self.rng.random()
            src = Entry("source", name=name)
            if place < 0.3:
                top.append(Entry("menu", prompt=f"Menu of {name}", depends=self._deps(), children=[src]))
            elif place < 0.55:
                top.append(Entry("if", depends=[self._expr()], children=[src]))
            else:
                top.append(src)
        top += self._entries(depth=0, count=2)
        self.files["Kconfig"] = top

    # -- generation ---------------------------------------------------------------
    def _new_symbol(self, typ: str | None = None) -> str:
        name = f"S{len(self.types)}"
        self.types[name] = typ or self.rng.choices(TYPES, (6, 5, 1, 1, 1))[0]
        return name

    def _symbols(self, *types: str) -> list[str]:
        return [n for n, t in self.types.items() if not types or t in types]

    def _expr(self, depth: int = 0) -> str:
        rng = self.rng
        tris = self._symbols("bool", "tristate") or ["y"]
        roll = rng.random()
        if depth < 2 and roll < 0.25:
            return f"{self._expr(depth + 1)} {rng.choice(['&&', '||'])} {self._expr(depth + 1)}"
        if depth < 2 and roll < 0.33:
            return f"!{self._expr(depth + 1)}" if rng.random() < 0.5 else f"({self._expr(depth + 1)})"
        if roll < 0.42:
            return f"{rng.choice(tris)} {rng.choice(['=', '!='])} {rng.choice('ynm')}"
        if roll < 0.47:
            return rng.choice("ynm")
        if roll < 0.5:
            return "UNDEFINED_" + str(rng.randint(0, 3))
        return rng.choice(tris)

    def _deps(self) -> list[str]:
        return [self._expr() for _ in range(self.rng.choice((0, 0, 1, 1, 2)))]

    def _cond(self) -> str | None:
        return self._expr() if self.rng.random() < 0.3 else None

    def _value(self, typ: str) -> str:
        rng = self.rng
        if typ in ("bool", "tristate"):
            return self._expr() if rng.random() < 0.4 else rng.choice("ynm")
        if typ == "int":
            return str(rng.choice([0, 1, 5, 10, 100]))
        if typ == "hex":
            return rng.choice(["0x0", "0x10", "0xff"])
        return '"' + rng.choice(["", "a", "b c"]) + '"'

    def _config(self, kind: str = "config", typ: str | None = None) -> Entry:
        rng = self.rng
        name = self._new_symbol(typ)
        typ = self.types[name]
        entry = Entry(kind, name=name, type=typ, gap=rng.choice((0, 0, 1)))
        if rng.random() < 0.75 or kind == "menuconfig":
            entry.prompt = f"Prompt {name}"
            entry.prompt_if = self._cond()
        entry.depends = self._deps()
        for _ in range(rng.choice((0, 1, 1, 2))):
            entry.defaults.append((self._value(typ), self._cond()))
        if typ in ("bool", "tristate"):
            for _ in range(rng.choice((0, 0, 1, 2))):
                entry.selects.append((self._later_symbol(), self._cond()))
            if rng.random() < 0.2:
                entry.implies.append((self._later_symbol(), self._cond()))
        if typ in ("int", "hex") and rng.random() < 0.4:
            entry.ranges.append(("0", "100") if typ == "int" else ("0x0", "0xff"))
        if rng.random() < 0.3:
            entry.help = f"Help for {name}."
        return entry

    def _later_symbol(self) -> str:
        """A bool/tristate symbol to select (made now if there are few)."""
        tris = self._symbols("bool", "tristate")
        if len(tris) < 3 or self.rng.random() < 0.2:
            return self._new_symbol(self.rng.choice(("bool", "tristate")))
        return self.rng.choice(tris)

    def _entries(self, depth: int, count: int) -> list[Entry]:
        rng = self.rng
        out: list[Entry] = []
        for _ in range(count):
            roll = rng.random()
            if depth < 2 and roll < 0.12:
                children = self._entries(depth + 1, rng.randint(1, 3))
                out.append(Entry("menu", prompt=f"Menu {len(self.types)}", depends=self._deps(),
                                 visible=self._cond() if rng.random() < 0.3 else None, children=children))
            elif depth < 2 and roll < 0.24:
                out.append(Entry("if", depends=[self._expr()], children=self._entries(depth + 1, rng.randint(1, 3))))
            elif depth < 2 and roll < 0.34:
                head = self._config("menuconfig", "bool")
                out.append(head)
                inner = self._entries(depth + 1, rng.randint(1, 3))
                out.append(Entry("if", depends=[head.name], children=inner))
            elif roll < 0.42:
                typ = "bool" if self.member_choices else rng.choice(("bool", "tristate"))
                members = [self._config(typ=typ) for _ in range(rng.randint(2, 3))]
                for member in members:
                    member.prompt = member.prompt or f"Prompt {member.name}"
                    member.defaults = []
                choice = Entry("choice", type=typ, prompt=f"Choice {len(self.types)}", depends=self._deps(),
                               children=members)
                if rng.random() < 0.5:
                    choice.defaults.append((rng.choice(members).name, None))
                out.append(choice)
            elif roll < 0.47:
                out.append(Entry("comment", prompt=f"Comment {len(self.types)}", depends=self._deps()))
            else:
                out.append(self._config())
        return out

    # -- text -----------------------------------------------------------------------
    def text(self, name: str) -> str:
        lines: list[str] = []
        for entry in self.files[name]:
            _render(entry, lines, self.member_choices)
        return "\n".join(lines) + "\n"

    def texts(self) -> dict[str, str]:
        return {name: self.text(name) for name in self.file_names}

    def config(self) -> str:
        """A random .config over the tree's symbols."""
        rng = self.rng
        out = []
        for name, typ in self.types.items():
            if rng.random() < 0.5:
                continue
            if typ in ("bool", "tristate"):
                value = rng.choice("ynm")
                out.append(f"CONFIG_{name}={value}" if value != "n" else f"# CONFIG_{name} is not set")
            else:
                out.append(f"CONFIG_{name}={self._value(typ)}")
        return "\n".join(out) + "\n"

    # -- edits ----------------------------------------------------------------------
    def edit(self) -> tuple[str, bool]:
        """Change one file at random: (its name, whether its entries stayed)."""
        rng = self.rng
        for name, entries in self.files.items():
            if entries and entries[-1].prompt == _BROKEN:
                entries.pop()  # (mended at the next edit)
                return name, False
            typed = [e for e in _walk(entries) if e.garbage is not None]
            if typed:
                typed[0].garbage = None  # (finished typing)
                return name, True
        name = rng.choice(self.file_names)
        entries = list(_walk(self.files[name]))
        configs = [e for e in entries if e.kind in ("config", "menuconfig")]
        roll = rng.random()
        if roll < 0.08 or not configs:
            # A new entry (the re-link must fall back).
            self.files[name].insert(rng.randint(0, len(self.files[name])), self._config())
            return name, False
        if roll < 0.11:
            victim = rng.choice(configs)
            victim.name = self._new_symbol(victim.type)
            return name, False
        if roll < 0.13:
            self.files[name].append(Entry("comment", prompt=_BROKEN, depends=["&&"]))
            return name, False
        if roll < 0.2:
            rng.choice(configs).garbage = rng.choice(["\tdepends on (", "\tselect", "bogus line", "\tdefault y if"])
            return name, True
        target = rng.choice(entries)
        what = rng.random()
        if target.kind == "source":
            target.gap += 1
        elif what < 0.25:
            if target.depends and rng.random() < 0.4:
                target.depends.pop(rng.randrange(len(target.depends)))
            else:
                target.depends.append(self._expr())
        elif what < 0.4 and target.kind in ("config", "menuconfig"):
            if target.defaults and rng.random() < 0.5:
                target.defaults[rng.randrange(len(target.defaults))] = (self._value(target.type), self._cond())
            else:
                target.defaults.append((self._value(target.type), self._cond()))
        elif what < 0.55 and target.kind in ("config", "menuconfig") and target.type in ("bool", "tristate"):
            if target.selects and rng.random() < 0.4:
                target.selects.pop()
            elif rng.random() < 0.7:
                target.selects.append((rng.choice(self._symbols("bool", "tristate")), self._cond()))
            else:
                target.implies.append((rng.choice(self._symbols("bool", "tristate")), self._cond()))
        elif what < 0.65 and target.kind in ("config", "menuconfig", "comment", "menu", "choice"):
            target.prompt_if = None if target.prompt_if else self._expr()
        elif what < 0.72 and target.kind == "config":
            target.prompt = None if target.prompt else f"Prompt {target.name}"
        elif what < 0.8 and target.kind == "menu":
            target.visible = None if target.visible else self._expr()
        elif what < 0.88:
            target.help = None if target.help else f"New help {rng.randint(0, 99)}."
        elif target.prompt is not None:
            target.prompt = target.prompt + " (edited)"
        else:
            target.gap = rng.choice((0, 1, 2, 3))
        return name, True


def _walk(entries: list[Entry]):
    for entry in entries:
        yield entry
        yield from _walk(entry.children)


def _suffix(cond: str | None) -> str:
    return f" if {cond}" if cond else ""


def _render(entry: Entry, lines: list[str], member_choices: bool = False) -> None:
    lines.extend([""] * entry.gap)
    kind = entry.kind
    if kind == "source":
        lines.append(f'source "{entry.name}"')
        return
    if kind == "if":
        lines.append(f"if {entry.depends[0] if entry.depends else 'y'}")
        _render_block(entry, lines, member_choices, "endif")
        return
    if kind in ("menu", "comment"):
        lines.append(f'{kind} "{entry.prompt}"')
        lines.extend(f"\tdepends on {dep}" for dep in entry.depends)
        if entry.visible:
            lines.append(f"\tvisible if {entry.visible}")
        if kind == "menu":
            _render_block(entry, lines, member_choices, "endmenu")
        return
    if kind == "choice":
        lines.append("choice")
        lines.append(f'\tprompt "{entry.prompt}"{_suffix(entry.prompt_if)}')
        if not member_choices:  # (6.11+: a choice is bool, and says nothing)
            lines.append(f"\t{entry.type}")
        for dep in entry.depends:
            lines.append(f"\tdepends on {dep}")
        for value, cond in entry.defaults:
            lines.append(f"\tdefault {value}{_suffix(cond)}")
        _render_block(entry, lines, member_choices, "endchoice")
        return
    lines.append(f"{kind} {entry.name}")
    if entry.garbage is not None:
        lines.append(entry.garbage)
    if entry.prompt is not None:
        lines.append(f'\t{entry.type} "{entry.prompt}"{_suffix(entry.prompt_if)}')
    else:
        lines.append(f"\t{entry.type}")
    if entry.modules:
        lines.append("\tmodules")
    for dep in entry.depends:
        lines.append(f"\tdepends on {dep}")
    for value, cond in entry.defaults:
        lines.append(f"\tdefault {value}{_suffix(cond)}")
    for target, cond in entry.selects:
        lines.append(f"\tselect {target}{_suffix(cond)}")
    for target, cond in entry.implies:
        lines.append(f"\timply {target}{_suffix(cond)}")
    for low, high in entry.ranges:
        lines.append(f"\trange {low} {high}")
    if entry.help:
        lines.append("\thelp")
        lines.append(f"\t  {entry.help}")


def _render_block(entry: Entry, lines: list[str], member_choices: bool, end: str) -> None:
    for child in entry.children:
        _render(child, lines, member_choices)
    lines.append(end)
