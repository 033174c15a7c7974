"""What must the user set so that a symbol gets a value?

:func:`how_to` searches for user assignments to other symbols that give
``sym`` the target value, fewest changes first, and returns only answers it
has verified: the assignments are written into the base config text exactly
as a user (or the code action) would write them, that text is read back as
``make olddefconfig`` reads it, and the target value is checked.

The search is best-first over sets of assignments.  Expanding a set asks,
under the values that set produces, *what would have to change* for each
unmet requirement: a symbol's prompt condition (with the value to give it),
a ``select`` or ``imply`` of it by another symbol, a ``default`` that could
apply; the same recursively for the operands of the conditions, with ``&&``
needing all operands and ``||`` any.  Because every candidate is evaluated
with the real semantics before it is expanded again, interactions the
recursion cannot see (a choice switching, a default changing) are caught
and corrected by the next expansion.  When no set works, the requirements
that could not be met on the first expansion are the reason.
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from .explain import reverse_index
from .explain_text import c_expr_text, or_terms, readable_expr
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
    TRI_STR,
    TRISTATE,
    UNEQUAL,
    UNKNOWN,
    M,
    N,
    Y,
    and_terms,
    c_strtoll_value,
    eval_expr,
)
from .scenario import ConfigEdit, Scenario, config_edits
from .symbols import string_valid_for_type

if TYPE_CHECKING:
    from .revalue import ConfigValues
    from .symbols import Symbol
    from .tree import Kconfig

#: How many alternatives each requirement keeps (the cheapest ones).
MAX_OPTIONS = 8
MAX_DEPTH = 40

Assignments = dict[str, str]

_FLIP = {EQUAL: EQUAL, UNEQUAL: UNEQUAL, LTH: GTH, LEQ: GEQ, GTH: LTH, GEQ: LEQ}
_NEGATE = {EQUAL: UNEQUAL, UNEQUAL: EQUAL, LTH: GEQ, LEQ: GTH, GTH: LEQ, GEQ: LTH}
_COMPARE = {
    EQUAL: lambda a, b: a == b,
    UNEQUAL: lambda a, b: a != b,
    LTH: lambda a, b: a < b,
    LEQ: lambda a, b: a <= b,
    GTH: lambda a, b: a > b,
    GEQ: lambda a, b: a >= b,
}


@dataclass
class HowTo:
    """The answer: the assignments to add (in order), or why none exist."""

    symbol: str
    target: str
    #: The value ``symbol`` has now, before any change.
    current: str
    reachable: bool
    #: True when the target already holds.
    already: bool = False
    assignments: Assignments = field(default_factory=dict)
    #: Verified by re-reading the edited config as ``olddefconfig`` would.
    verified: bool = False
    #: Why the target cannot be reached (empty when it can).
    reason: str = ""
    blockers: list[str] = field(default_factory=list)
    #: "unmet direct dependencies" warnings the change would cause.
    new_warnings: list[str] = field(default_factory=list)
    #: The edits to the config file that carry the assignments.
    edits: list[ConfigEdit] = field(default_factory=list)
    candidates_tried: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class TargetError(ValueError):
    """The target is not a value the symbol could ever have."""


def how_to(
    kc: Kconfig,
    sym: Symbol,
    target: str,
    base_text: str | None = None,
    time_limit: float = 10.0,
    max_candidates: int = 400,
    reading: ConfigValues | None = None,
) -> HowTo:
    """Assignments that make ``sym`` equal ``target`` when added to the
    config ``base_text`` (``None``/``""``: no config, all defaults).
    ``reading``: the reading of ``base_text`` the tree's values come from,
    if there is one (candidates are then verified from it: scenario.py)."""
    return _solve(kc, _Goal.parse(sym, target), base_text, time_limit, max_candidates, reading)


def _solve(kc: Kconfig, goal: _Goal, base_text: str | None, time_limit: float, max_candidates: int,
           reading: ConfigValues | None) -> HowTo:
    start = time.monotonic()
    sym = goal.sym
    with Scenario(kc, base_text, reading) as scenario:
        scenario.apply({})
        current = sym.str_value_now
        result = HowTo(sym.name or "<choice>", goal.text, current, reachable=False)
        search = _Search(kc, scenario, goal, start + time_limit, max_candidates)
        search.run(result)
    result.seconds = round(time.monotonic() - start, 3)
    if result.reachable:
        result.edits = config_edits(kc, base_text or "", result.assignments)
    return result


def meet_dependencies(
    kc: Kconfig, sym: Symbol, base_text: str | None = None, time_limit: float = 10.0,
    reading: ConfigValues | None = None,
) -> HowTo:
    """Assignments that make ``sym``'s direct dependencies hold at the level
    it is selected to: the fix for an "unmet direct dependencies" warning."""
    sym.calc_value()
    low = max(sym.rev_dep_tri, M)
    goal = _Goal(sym, f"dependencies >= {TRI_STR[low]}", low, Y, expr=sym.dir_dep)
    return _solve(kc, goal, base_text, time_limit, 400, reading)


@dataclass
class _Goal:
    sym: Symbol
    text: str
    low: int = N
    high: int = Y
    value: str | None = None
    #: When set, the goal is on this expression instead of the symbol.
    expr: Any = None

    @classmethod
    def parse(cls, sym: Symbol, target: str) -> _Goal:
        name = sym.name or "<choice>"
        if sym.is_choice:
            raise TargetError(f"{name} is a choice: ask for one of its members instead")
        if sym.type in (BOOL, TRISTATE):
            t = target.strip().lower()
            if t not in ("y", "m", "n"):
                raise TargetError(f"{name} is {sym.type_name}: the target must be y, m or n, not {target!r}")
            if t == "m" and sym.type == BOOL:
                raise TargetError(f"{name} is bool: it can be y or n, never m")
            tri = "nmy".index(t)
            return cls(sym, t, tri, tri)
        if sym.type in (INT, HEX) and not string_valid_for_type(sym.type, target):
            raise TargetError(f"{target!r} is not a valid {sym.type_name} value for {name}")
        if sym.type == HEX and not target.lower().startswith("0x"):
            target = "0x" + target
        return cls(sym, target, value=target)

    def holds(self) -> bool:
        sym = self.sym
        if self.expr is not None:
            return eval_expr(self.expr) >= self.low
        if self.value is None:
            return self.low <= sym.tri <= self.high
        return _same_value(sym, sym.str_value_now, self.value)


def _same_value(sym: Symbol, a: str, b: str) -> bool:
    if sym.type in (INT, HEX):
        base = 10 if sym.type == INT else 16
        return string_valid_for_type(sym.type, a) and c_strtoll_value(a, base) == c_strtoll_value(b, base)
    return a == b


class _Search:
    def __init__(self, kc: Kconfig, scenario: Scenario, goal: _Goal, deadline: float, max_candidates: int):
        self.kc = kc
        self.scenario = scenario
        self.goal = goal
        self.deadline = deadline
        self.max_candidates = max_candidates
        self.blockers: list[str] = []
        #: Options per (symbol, low, high) within one expansion: a symbol
        #: needed by many conditions is worked out once.
        self.memo: dict[tuple, tuple[list[Assignments], list[str]]] = {}

    # -- the best-first loop ----------------------------------------------------------
    def run(self, result: HowTo) -> None:
        goal, scenario = self.goal, self.scenario
        if goal.holds():
            scenario.verify({})
            if goal.holds():
                result.reachable = result.already = result.verified = True
                return
        base_unmet = scenario.base_unmet()
        counter = itertools.count()
        frontier: list[tuple[int, int, Assignments]] = [(0, next(counter), {})]
        seen: set[frozenset] = {frozenset()}
        fallback: tuple[Assignments, list[str]] | None = None
        first_blockers: list[str] | None = None
        tried = 0
        while frontier and tried < self.max_candidates and time.monotonic() < self.deadline:
            _size, _n, assignments = heapq.heappop(frontier)
            tried += 1
            scenario.apply(assignments)
            if assignments and goal.holds():
                unmet = scenario.verify(assignments)
                if goal.holds():
                    new = sorted(unmet - base_unmet)
                    if not new:
                        self._found(result, assignments, [], tried)
                        return
                    if fallback is None:
                        fallback = (assignments, new)
                    continue
                scenario.apply(assignments)
            self.blockers = []
            self.memo = {}
            options = self.goal_options()
            if first_blockers is None:
                first_blockers = self.blockers
            for option in options:
                if not option:
                    continue
                # A requirement found later may need another value for a
                # symbol assigned earlier: the newer value wins.
                merged = _merge(assignments, option) or {**assignments, **option}
                key = frozenset(merged.items())
                if key in seen:
                    continue
                seen.add(key)
                heapq.heappush(frontier, (len(merged), next(counter), merged))
        result.candidates_tried = tried
        if fallback is not None:
            self._found(result, fallback[0], fallback[1], tried)
            return
        # Recorded innermost first; shown from the target down to the cause.
        result.blockers = _unique(list(reversed(first_blockers or [])))
        if frontier:
            result.reason = (f"no verified answer within the search limit ({tried} candidates); "
                             "the requirements found so far are listed")
        else:
            result.reason = result.blockers[0] if result.blockers else f"{result.symbol} cannot be {result.target}"

    def _found(self, result: HowTo, assignments: Assignments, warnings: list[str], tried: int) -> None:
        result.reachable = result.verified = True
        result.assignments = dict(assignments)
        result.new_warnings = warnings
        result.candidates_tried = tried

    def goal_options(self) -> list[Assignments]:
        goal = self.goal
        if goal.expr is not None:
            return self.expr_options(goal.expr, goal.low, Y, frozenset())
        if goal.value is None:
            return self.sym_options(goal.sym, goal.low, goal.high, frozenset())
        return self.value_options(goal.sym, goal.value, frozenset())

    # -- requirements on symbols ---------------------------------------------------------
    def sym_options(self, sym: Symbol, lo: int, hi: int, path: frozenset) -> list[Assignments]:
        """Ways to bring a bool/tristate symbol's value into ``lo..hi``."""
        value = sym.tri
        if lo <= value <= hi:
            return [{}]
        name = sym.name or "<choice>"
        if sym.is_const:
            if name not in ("y", "m", "n"):
                self.blockers.append(f"{name} is a constant")
            return []
        if sym.type not in (BOOL, TRISTATE):
            self.blockers.append(f"{name} is not defined in the loaded tree (another architecture's symbol?)"
                                 if not sym.nodes else f"{name} is {sym.type_name}, not a truth value")
            return []
        if sym.is_choice:
            # A choice has no line of its own in a config: it shows (in
            # y or m mode) when its prompt does.
            if value > hi:
                return []
            return self._union(self.expr_options(p.cond, lo, Y, path) for p in sym.prompts)
        if sym.type == BOOL:
            lo, hi = (Y if lo == M else lo), (N if hi == M else hi)
            if lo > hi:
                return []
        key = (sym, lo, hi)
        known = self.memo.get(key)
        if known is not None:
            options, blockers = known
            self.blockers.extend(blockers)
            return options
        if key in path or len(path) > MAX_DEPTH or time.monotonic() > self.deadline:
            return []
        path = path | {key}
        mark = len(self.blockers)
        if value < lo:
            options = self._raise(sym, lo, hi, path)
        else:
            options = self._lower(sym, lo, hi, path)
        if options:
            # Alternatives that failed do not matter when another works.
            del self.blockers[mark:]
        else:
            self.blockers.append(self._blocker(sym, lo, hi))
        # (Each message once, at its last place: what the answer keeps.
        # Kept with repeats, a memo hit would add its copies to the next
        # entry's, doubling at each level of a diamond of dependencies.)
        self.memo[key] = (options, _last_of_each(self.blockers[mark:]))
        return options

    def _raise(self, sym: Symbol, lo: int, hi: int, path: frozenset) -> list[Assignments]:
        kc = self.kc
        options: list[Assignments] = []
        if sym.is_choice_value:
            return self._choose(sym, path) if hi == Y else []
        if sym.prompts:
            modules_on = kc.modules_val == Y
            value = M if (lo == M and sym.type == TRISTATE and modules_on) or hi == M else Y
            needs: list[list[Assignments]] = []
            if value == M and not modules_on:
                needs.append(self.sym_options(kc.modules_sym, Y, Y, path))
            cond_low = value if sym.type == TRISTATE and (modules_on or value == M) else M
            needs.append(self._union(self.expr_options(p.cond, cond_low, Y, path) for p in sym.prompts))
            if not (sym.has_user and sym.user_tri == value):
                needs.append([{sym.name: TRI_STR[value]}])
            options += _product(needs)
        # A select at m forces a bool symbol to y.
        level = M if sym.get_type() == BOOL else lo
        for by, prop in reverse_index(kc).get(("select", sym), []):
            options += _product([self.sym_options(by, level, Y, path), self.expr_options(prop.cond, level, Y, path)])
        if not sym.has_user or sym.visible == N:
            for prop in sym.defaults:
                options += _product([self.expr_options(prop.expr, lo, Y, path),
                                     self.expr_options(prop.cond, lo, Y, path)])
            for by, prop in reverse_index(kc).get(("imply", sym), []):
                options += _product([self.sym_options(by, lo, Y, path), self.expr_options(prop.cond, lo, Y, path),
                                     self.expr_options(sym.dir_dep, lo, Y, path)])
        return _cheapest(options)

    def _choose(self, sym: Symbol, path: frozenset) -> list[Assignments]:
        """Make a choice member ``y``: the choice must show in ``y`` mode,
        the member's prompt must show, and the user selects it."""
        choice = sym.choice
        needs = [self._union(self.expr_options(p.cond, Y, Y, path) for p in choice.prompts)]
        needs.append(self._union(self.expr_options(p.cond, Y, Y, path) for p in sym.prompts))
        if choice.user_selection is not sym or not sym.has_user or sym.user_tri != Y:
            needs.append([{sym.name: "y"}])
        return _product(needs)

    def _lower(self, sym: Symbol, lo: int, hi: int, path: frozenset) -> list[Assignments]:
        kc = self.kc
        needs: list[list[Assignments]] = []
        for by, prop in reverse_index(kc).get(("select", sym), []):
            if min(by.tri, eval_expr(prop.cond)) > hi:
                limit = N if sym.get_type() == BOOL else hi
                needs.append(self._union([self.sym_options(by, N, limit, path),
                                          self.expr_options(prop.cond, N, limit, path)]))
        if _own_value(sym) > hi:
            needs.append(self._lower_own(sym, hi, path))
        return _product(needs)

    def _lower_own(self, sym: Symbol, hi: int, path: frozenset) -> list[Assignments]:
        """Ways to bring the value a symbol has before selects down to ``hi``."""
        if sym.is_choice_value:
            choice = sym.choice
            return _cheapest([{other.name: "y"} for other in choice.choice_values
                              if other is not sym and other.visible != N])
        if sym.visible != N:
            return [{sym.name: TRI_STR[hi]}]
        options: list[Assignments] = []
        if sym.prompts:
            # Show the prompt (e.g. EXPERT for "if EXPERT") and answer it.
            shown = self._union(self.expr_options(p.cond, M, Y, path) for p in sym.prompts)
            options += _product([shown, [{sym.name: TRI_STR[hi]}]])
        prop = sym.default_prop()
        if prop is not None and min(eval_expr(prop.expr), eval_expr(prop.cond)) > hi:
            options += self.expr_options(prop.cond, N, hi, path)
            options += self.expr_options(prop.expr, N, hi, path)
        for by, imply in reverse_index(self.kc).get(("imply", sym), []):
            if min(by.tri, eval_expr(imply.cond)) > hi:
                options += self._union([self.sym_options(by, N, hi, path), self.expr_options(imply.cond, N, hi, path)])
        return _cheapest(options)

    def value_options(self, sym: Symbol, value: str, path: frozenset) -> list[Assignments]:
        """Ways to give an int/hex/string symbol the value ``value``."""
        if _same_value(sym, sym.str_value_now, value):
            return [{}]
        name = sym.name or "<choice>"
        if _literal(sym):
            return []
        key = (sym, value)
        if key in path or len(path) > MAX_DEPTH:
            return []
        path = path | {key}
        mark = len(self.blockers)
        options: list[Assignments] = []
        range_note = None
        if sym.prompts:
            needs = [self._union(self.expr_options(p.cond, M, Y, path) for p in sym.prompts)]
            prop = sym.range_prop()
            if prop is not None and not sym.string_within_range(value):
                low, high = prop.expr
                range_note = (f"{name} cannot be {value}: it is outside the range "
                              f"{low.str_value_now}..{high.str_value_now} ({prop.file}:{prop.line})")
                needs.append(self._range_options(sym, value, path))
            if not (sym.has_user and sym.user_val is not None and _same_value(sym, sym.user_val, value)):
                needs.append([{sym.name: value}])
            options += _product(needs)
        if not sym.has_user or sym.visible == N:
            for prop in sym.defaults:
                target = prop.expr
                if target.__class__ is tuple:
                    continue
                reach = [{}] if _same_value(sym, target.str_value_now, value) else (
                    [] if _literal(target) else self.value_options(target, value, path))
                options += _product([reach, self.expr_options(prop.cond, M, Y, path)])
        if options:
            del self.blockers[mark:]
        else:
            self.blockers.append(range_note or f"{name} cannot be set to {value}" + (
                "" if sym.prompts else ": it has no prompt and no default gives that value"))
        return _cheapest(options)

    def _range_options(self, sym: Symbol, value: str, path: frozenset) -> list[Assignments]:
        """Ways to make one of ``sym``'s ranges admit ``value``: its
        condition holds and its bounds (often symbols with conditional
        defaults, like NR_CPUS_RANGE_END) take values around it."""
        base = 10 if sym.type == INT else 16
        number = c_strtoll_value(value, base)
        options: list[Assignments] = []
        for prop in sym.ranges:
            low, high = prop.expr
            options += _product([
                self._bound_options(low, lambda b: b <= number, base, path),
                self._bound_options(high, lambda b: b >= number, base, path),
                self.expr_options(prop.cond, M, Y, path),
            ])
        return _cheapest(options)

    def _bound_options(self, bound: Symbol, admits, base: int, path: frozenset) -> list[Assignments]:
        if admits(c_strtoll_value(bound.str_value_now, base)):
            return [{}]
        if _literal(bound):
            return []
        options: list[Assignments] = []
        for prop in bound.defaults:
            target = prop.expr
            if target.__class__ is not tuple and _literal(target) and admits(c_strtoll_value(target.name, base)):
                options += self.expr_options(prop.cond, M, Y, path)
        return _cheapest(options)

    # -- requirements on expressions ----------------------------------------------------
    def expr_options(self, e, lo: int, hi: int, path: frozenset) -> list[Assignments]:
        """Ways to bring the value of expression ``e`` into ``lo..hi``."""
        if e is None:
            return [{}] if hi == Y else []
        value = eval_expr(e)
        if lo <= value <= hi:
            return [{}]
        if e.__class__ is not tuple:
            return self.sym_options(e, lo, hi, path)
        op = e[0]
        if op == AND:
            terms = and_terms(e)
            if value < lo:
                return _product([self.expr_options(t, lo, Y, path) for t in terms if eval_expr(t) < lo])
            return self._union(self.expr_options(t, N, hi, path) for t in terms if eval_expr(t) > hi)
        if op == OR:
            terms = or_terms(e)
            if value < lo:
                return self._union(self.expr_options(t, lo, Y, path) for t in terms)
            return _product([self.expr_options(t, N, hi, path) for t in terms if eval_expr(t) > hi])
        if op == NOT:
            return self.expr_options(e[1], 2 - hi, 2 - lo, path)
        return self._compare_options(op, e[1], e[2], lo > N, path)

    def _compare_options(self, op: int, a: Symbol, b: Symbol, want: bool, path: frozenset) -> list[Assignments]:
        if not want:
            op = _NEGATE[op]
        if _literal(a) == _literal(b):
            text = c_expr_text((op, a, b))
            self.blockers.append(f"`{text}` is fixed (it compares constants, e.g. from ARCH or the toolchain)"
                                 if _literal(a) else f"`{text}` compares two symbols (not searched)")
            return []
        sym, const = (a, b) if _literal(b) else (b, a)
        if sym is b:
            op = _FLIP[op]
        if sym.type in (BOOL, TRISTATE):
            if const.name not in ("n", "m", "y"):
                self.blockers.append(f"{sym.name} is {sym.type_name} and never equals {const.name!r}")
                return []
            c = "nmy".index(const.name)
            allowed = [v for v in (N, M, Y) if _COMPARE[op](v, c)]
            return self._union(self.sym_options(sym, v, v, path) for v in allowed)
        values = _candidate_values(sym, op, const.name)
        if not values:
            self.blockers.append(f"no value of {sym.name} to try for `{c_expr_text((op, sym, const))}`")
        return self._union(self.value_options(sym, v, path) for v in values)

    # -- helpers --------------------------------------------------------------------------
    def _union(self, option_lists) -> list[Assignments]:
        out: list[Assignments] = []
        for options in option_lists:
            out += options
        return _cheapest(out)

    def _blocker(self, sym: Symbol, lo: int, hi: int) -> str:
        name = sym.name or "the choice"
        want = TRI_STR[lo] if lo == hi else f"at least {TRI_STR[lo]}" if hi == Y else f"at most {TRI_STR[hi]}"
        sym.calc_value()
        if lo > sym.curr_tri:
            if sym.is_choice_value:
                return f"{name} cannot be {want}: its choice or its prompt cannot be shown"
            if not sym.prompts:
                conds = [f"`{readable_expr(p.cond)}`" for p in sym.defaults if p.cond is not None]
                how = f"its default needs {' or '.join(conds)}" if conds else "no default can raise it"
                selectable = " and nothing that selects it can be enabled" if reverse_index(self.kc).get(
                    ("select", sym)) else ""
                return f"{name} cannot be {want}: it has no prompt; {how}{selectable}"
            conds = " or ".join(f"`{readable_expr(p.cond)}`" for p in sym.prompts)
            return f"{name} cannot be {want}: its prompt needs {conds}"
        selectors = [by.name for by, prop in reverse_index(self.kc).get(("select", sym), [])
                     if min(by.tri, eval_expr(prop.cond)) > hi]
        if selectors:
            return f"{name} cannot be {want}: it is selected by {', '.join(selectors)}, which cannot be turned off"
        if sym.prompts and sym.visible == N:
            conds = " or ".join(f"`{readable_expr(p.cond)}`" for p in sym.prompts)
            return f"{name} cannot be {want}: its prompt is hidden ({conds}) and its default cannot be turned off"
        return f"{name} cannot be {want}: it has no prompt and its default cannot be turned off"


def _literal(sym: Symbol) -> bool:
    """A value written in the Kconfig: a quoted constant, or an unquoted
    word such as ``64`` that no entry defines (the C tool keeps those as
    symbols whose value is their name)."""
    return sym.is_const or (not sym.nodes and sym.type == UNKNOWN)


def _own_value(sym: Symbol) -> int:
    """The value ``sym`` would have without ``select`` (sym_calc_value)."""
    if sym.is_choice_value and sym.visible == Y:
        return Y if sym.choice.selection is sym else N
    if sym.visible != N and sym.has_user:
        value = min(sym.user_tri, sym.visible)
    else:
        value = N
        prop = sym.default_prop()
        if prop is not None:
            value = min(eval_expr(prop.expr), prop.cond_tri)
        if sym.implied_tri != N:
            value = min(max(value, sym.implied_tri), sym.dir_dep_tri)
    if value == M and sym.get_type() == BOOL:
        value = Y
    return value


def _candidate_values(sym: Symbol, op: int, const: str) -> list[str]:
    """Values of an int/hex/string symbol that satisfy ``sym <op> const``."""
    if op == EQUAL:
        return [const]
    if sym.type not in (INT, HEX) or not string_valid_for_type(sym.type, const):
        return []
    base = 10 if sym.type == INT else 16
    number = c_strtoll_value(const, base)
    steps = {UNEQUAL: (1, -1), LTH: (-1,), LEQ: (0, -1), GTH: (1,), GEQ: (0, 1)}[op]
    out = []
    for step in steps:
        n = number + step
        out.append(str(n) if base == 10 else hex(n) if n >= 0 else "")
    return [v for v in out if v]


def _merge(a: Assignments, b: Assignments) -> Assignments | None:
    """``a`` plus ``b``; None when they set a symbol to different values."""
    out = dict(a)
    for name, value in b.items():
        if out.get(name, value) != value:
            return None
        out[name] = value
    return out


def _product(needs: list[list[Assignments]]) -> list[Assignments]:
    """Every consistent combination of one option from each list."""
    combos: list[Assignments] = [{}]
    for options in needs:
        if not options:
            return []
        combos = _cheapest(m for c in combos for o in options if (m := _merge(c, o)) is not None)
        if not combos:
            return []
    return combos


def _cheapest(options) -> list[Assignments]:
    unique: dict[frozenset, Assignments] = {}
    for option in options:
        unique.setdefault(frozenset(option.items()), option)
    return sorted(unique.values(), key=len)[:MAX_OPTIONS]


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _last_of_each(items: list[str]) -> list[str]:
    """``items`` without repeats, each where it last came (the answer's
    reasons are the unique ones of the reversed list: these are the same)."""
    return _unique(items[::-1])[::-1]
