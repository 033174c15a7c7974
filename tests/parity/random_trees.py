"""Random small Kconfig trees for differential fuzzing against the C tool.

Each tree mixes bool, tristate, int, hex and string symbols with prompts or
without; ``depends on``, ``select``, ``imply``, ``default``, ``range`` and
``visible if``; conditions built from ``!``, ``=``, ``!=``, ``<``, ``<=``,
``>``, ``>=``, ``&&``, ``||``, parentheses and the constants y/m/n; menus,
``menuconfig`` entries, ``if`` blocks, comments and choices (bool members,
tristate and ``optional`` choices where the generation has them), so that
cycles, unmet dependencies and unclosed blocks come up too.  A random
``.config`` (values of every type, some invalid) goes with each tree.

Used by ``scripts/fuzz_parity.py`` (long runs) and the default tests (a
fixed slice of seeds).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

TYPES = ("bool", "tristate", "int", "hex", "string")
TYPE_WEIGHTS = (40, 30, 12, 9, 9)
MODES = ("allnoconfig", "allyesconfig", "allmodconfig", "alldefconfig", "olddefconfig", "randconfig")


@dataclass
class RandomTree:
    """One generated case: the Kconfig text, a .config and the mode."""

    kconfig: str
    config: str
    mode: str
    symbols: dict[str, str] = field(default_factory=dict)


class _Generator:
    def __init__(self, rng: random.Random, member_choices: bool):
        self.rng = rng
        self.member_choices = member_choices
        count = rng.randint(4, 11)
        self.types = {f"S{i}": rng.choices(TYPES, TYPE_WEIGHTS)[0] for i in range(count)}
        self.names = list(self.types)
        self.lines: list[str] = []

    # -- values and expressions ------------------------------------------------------
    def _of_type(self, *types: str) -> list[str]:
        return [n for n, t in self.types.items() if t in types]

    def constant(self, typ: str) -> str:
        rng = self.rng
        if typ in ("bool", "tristate"):
            return rng.choice("ynm" if typ == "tristate" else "yn")
        if typ == "int":
            return str(rng.choice([0, 1, 2, 5, 10, -3, 100, rng.randint(-20, 200)]))
        if typ == "hex":
            return rng.choice(["0x0", "0x10", "0x1f", "0xff", "0x1000", hex(rng.randint(0, 4096))])
        return '"' + rng.choice(["", "abc", "b", "x y", "10", "0x10"]) + '"'

    def atom(self) -> str:
        rng = self.rng
        logical = self._of_type("bool", "tristate")
        roll = rng.random()
        if roll < 0.08:
            return rng.choice("ynm")
        if roll < 0.55 and logical:
            return rng.choice(logical)
        name = rng.choice(self.names)
        typ = self.types[name]
        if roll < 0.7:
            other = rng.choice(self.names) if rng.random() < 0.3 else self.constant(typ)
            op = rng.choice(["=", "!="])
            if op == "!=" and other == "y" and self.member_choices:
                # 6.11+'s expr_transform turns "A != y" of a bool A into a
                # negation of the symbol's own memory read as an expression:
                # undefined behaviour (and a type may still become bool).
                other = "n"
            return f"{name} {op} {other}"
        if typ in ("int", "hex"):
            return f"{name} {rng.choice(['<', '<=', '>', '>='])} {self.constant(typ)}"
        if typ == "string":
            return f"{name} {rng.choice(['=', '!=', '<', '>'])} {self.constant(typ)}"
        return self.atom()

    def expr(self, depth: int = 0) -> str:
        rng = self.rng
        roll = rng.random()
        if depth >= 3 or roll < 0.35:
            return self.atom()
        if roll < 0.5:
            return "!" + self._grouped(depth + 1)
        op = rng.choice([" && ", " || "])
        return self.expr(depth + 1) + op + self.expr(depth + 1)

    def _grouped(self, depth: int) -> str:
        inner = self.expr(depth)
        if " " in inner or inner.startswith("!"):
            return f"({inner})"
        return inner

    def cond(self, chance: float = 0.35) -> str:
        return f" if {self.expr(1)}" if self.rng.random() < chance else ""

    # -- entries ---------------------------------------------------------------------
    def entry(self, name: str, in_choice: bool = False) -> None:
        rng = self.rng
        typ = "bool" if in_choice and self.member_choices else self.types[name]
        if in_choice and typ not in ("bool", "tristate"):
            typ = "bool"
        self.types[name] = typ
        keyword = "menuconfig" if not in_choice and rng.random() < 0.1 else "config"
        self.lines.append(f"{keyword} {name}")
        if rng.random() < 0.85 or in_choice:
            self.lines.append(f'\t{typ} "{name.lower()} prompt"{self.cond(0.15)}')
        else:
            self.lines.append(f"\t{typ}")
        for _ in range(rng.randint(0, 4)):
            self.option(name, typ, in_choice)

    def option(self, name: str, typ: str, in_choice: bool) -> None:
        rng = self.rng
        logical = self._of_type("bool", "tristate")
        kinds = ["depends on", "default"]
        if typ in ("bool", "tristate") and logical:
            kinds += ["select", "imply"]
        if typ in ("int", "hex"):
            kinds.append("range")
        kind = rng.choice(kinds)
        if kind == "depends on":
            self.lines.append(f"\tdepends on {self.expr()}")
        elif kind == "default":
            if in_choice and rng.random() < 0.7:
                return
            value = self.constant(typ) if rng.random() < 0.6 else self.expr(2) if typ in (
                "bool", "tristate") else rng.choice(self.names)
            self.lines.append(f"\tdefault {value}{self.cond()}")
        elif kind in ("select", "imply"):
            self.lines.append(f"\t{kind} {rng.choice(logical)}{self.cond()}")
        else:
            low, high = sorted([self.constant(typ), self.constant(typ)], key=_number)
            if rng.random() < 0.2:
                low = rng.choice(self.names)
            self.lines.append(f"\trange {low} {high}{self.cond(0.2)}")

    def choice(self, members: list[str]) -> None:
        rng = self.rng
        self.lines.append("choice")
        if self.member_choices:
            self.lines.append(f'\tprompt "choice {members[0]}"')
            if rng.random() < 0.5:
                self.lines.append("\tbool")
        else:
            typ = "bool" if rng.random() < 0.7 else "tristate"
            self.lines.append(f'\t{typ} "choice {members[0]}"')
        if not self.member_choices and rng.random() < 0.25:
            self.lines.append("\toptional")
        if rng.random() < 0.4:
            self.lines.append(f"\tdepends on {self.expr(1)}")
        if rng.random() < 0.5:
            self.lines.append(f"\tdefault {rng.choice(members)}{self.cond(0.3)}")
        for name in members:
            self.entry(name, in_choice=True)
        self.lines.append("endchoice")

    def build(self) -> str:
        rng = self.rng
        lines = self.lines
        if rng.random() < 0.7:
            lines += ["config MODULES", '\tbool "modules"', "\tmodules", f"\tdefault {rng.choice('yn')}"]
            self.types["MODULES"] = "bool"
        open_blocks: list[str] = []
        pending = list(self.names)
        while pending:
            roll = rng.random()
            if roll < 0.12 and len(open_blocks) < 3:
                lines.append(f'menu "menu {len(lines)}"')
                if rng.random() < 0.5:
                    lines.append(f"\tdepends on {self.expr(1)}")
                if rng.random() < 0.3:
                    lines.append(f"\tvisible if {self.expr(1)}")
                open_blocks.append("endmenu")
            elif roll < 0.22 and len(open_blocks) < 3:
                lines.append(f"if {self.expr(1)}")
                open_blocks.append("endif")
            elif roll < 0.27:
                lines.append(f'comment "comment {len(lines)}"')
                if rng.random() < 0.5:
                    lines.append(f"\tdepends on {self.expr(1)}")
            if roll > 0.85 and len(pending) >= 2:
                count = rng.randint(1, min(3, len(pending)))
                self.choice(pending[:count])
                del pending[:count]
            else:
                self.entry(pending.pop(0))
            if open_blocks and rng.random() < 0.3:
                lines.append(open_blocks.pop())
        while open_blocks and rng.random() < 0.95:
            lines.append(open_blocks.pop())
        return "\n".join(line for line in lines if line) + "\n"

    def config(self) -> str:
        rng = self.rng
        out = []
        for name, typ in self.types.items():
            roll = rng.random()
            if roll < 0.4:
                continue
            if roll < 0.5:
                out.append(f"# CONFIG_{name} is not set")
            elif rng.random() < 0.1:
                out.append(f"CONFIG_{name}=" + rng.choice(["y", "m", "", "zz", "12", "0x8", '"q"']))
            else:
                out.append(f"CONFIG_{name}={self.constant(typ)}")
        rng.shuffle(out)
        return "\n".join(out) + ("\n" if out else "")


def _number(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        return 0


def random_tree(seed: int, member_choices: bool = False) -> RandomTree:
    """The case for ``seed`` (the same for every run and machine);
    ``member_choices``: 6.11+ choices (bool members, no ``optional``)."""
    rng = random.Random(seed)
    gen = _Generator(rng, member_choices)
    kconfig = gen.build()
    return RandomTree(kconfig, gen.config(), rng.choice(MODES), dict(gen.types))
