"""The configuration modes of ``scripts/kconfig/conf``: allno/allyes/allmod/
alldef/rand (``conf_set_all_new_symbols``), yes2mod/mod2yes/mod2no
(``conf_rewrite_tristates``) and the choice handling they share."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .expr import BOOL, TRISTATE, M, N, Y

if TYPE_CHECKING:
    from .tree import Kconfig

DEF_DEFAULT, DEF_YES, DEF_MOD, DEF_NO, DEF_RANDOM = range(5)

MODE_BY_NAME = {
    "allnoconfig": DEF_NO,
    "allyesconfig": DEF_YES,
    "allmodconfig": DEF_MOD,
    "alldefconfig": DEF_DEFAULT,
    "randconfig": DEF_RANDOM,
}


class GlibcRandom:
    """glibc's ``rand()`` after ``srand(seed)`` (the TYPE_3 additive
    generator), so ``randconfig`` with ``KCONFIG_SEED`` matches the C tool."""

    def __init__(self, seed: int):
        seed &= 0xFFFFFFFF
        if seed == 0:
            seed = 1
        r = [0] * 34
        r[0] = seed if seed < 0x80000000 else seed - 0x100000000
        for i in range(1, 31):
            hi, lo = divmod(r[i - 1], 127773) if r[i - 1] >= 0 else _cdivmod(r[i - 1], 127773)
            word = 16807 * lo - 2836 * hi
            if word < 0:
                word += 2147483647
            r[i] = word
        for i in range(31, 34):
            r[i] = r[i - 31]
        self.state = [x & 0xFFFFFFFF for x in r]
        for _ in range(310):
            self._next()

    def _next(self) -> int:
        s = self.state
        value = (s[-31] + s[-3]) & 0xFFFFFFFF
        s.append(value)
        if len(s) > 64:
            del s[: len(s) - 34]
        return value >> 1

    def rand(self) -> int:
        return self._next()


def _cdivmod(a: int, b: int) -> tuple[int, int]:
    """C division (truncating toward zero)."""
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q, a - q * b


def parse_probability(env_value: str | None) -> tuple[int, int, int]:
    """``KCONFIG_PROBABILITY`` as (pby, pty, ptm); raises ValueError."""
    pby, pty, ptm = 50, 33, 33
    values: list[int] = []
    text = env_value or ""
    while text and len(values) < 3:
        num = ""
        i = 0
        while i < len(text) and (text[i].isdigit() or (i == 0 and text[i] in "+-")):
            num += text[i]
            i += 1
        tmp = int(num) if num not in ("", "+", "-") else 0
        if not 0 <= tmp <= 100:
            raise ValueError("KCONFIG_PROBABILITY")
        values.append(tmp)
        text = text[i + 1 :] if text[i : i + 1] == ":" else text[i:]
        if not num:
            break
    if len(values) == 1:
        pby = values[0]
        ptm = pby // 2
        pty = pby - ptm
    elif len(values) == 2:
        pty, ptm = values
        pby = pty + ptm
    elif len(values) == 3:
        pby, pty, ptm = values
    if pty + ptm > 100:
        raise ValueError("KCONFIG_PROBABILITY")
    return pby, pty, ptm


def set_all_new_symbols(kc: Kconfig, mode: int, rng: GlibcRandom | None = None) -> bool:
    """Give every symbol without a user value one (``conf_set_all_new_symbols``).
    True when randconfig must run it again (choices with a mode of their own)."""
    pby, pty, ptm = 50, 33, 33
    if mode == DEF_RANDOM:
        pby, pty, ptm = parse_probability(kc.env.get("KCONFIG_PROBABILITY"))
    if kc.gen.member_choices:
        _set_new_symbols_in_menu_order(kc, mode, rng, (pby, pty, ptm))
        return False
    changed = False
    order = kc.hash_order()
    for sym in order:
        if sym.has_user or sym.valid:
            continue
        gt = sym.get_type()
        if gt != BOOL and gt != TRISTATE:
            continue
        changed = True
        value = _new_value(sym, mode, rng, (pby, pty, ptm))
        if value is None:
            continue
        sym.user_tri = value
        if not (sym.is_choice and mode == DEF_RANDOM):
            sym.has_user = True

    kc.invalidate()

    if mode != DEF_RANDOM:
        for sym in order:
            if (sym.is_choice and not sym.has_user) or sym.is_choice_value:
                sym.need_set_choice_values = True

    for choice in order:
        if choice.has_user or not choice.is_choice:
            continue
        choice.calc_value()
        if mode == DEF_RANDOM:
            changed |= _randomize_choice_values(choice, rng)
        else:
            choice.set_all_choice_values()
            changed = True
    return changed


def _new_value(sym, mode: int, rng: GlibcRandom | None, probabilities: tuple[int, int, int]) -> int | None:
    """The value a mode gives a symbol without one; None for alldefconfig
    (the defaults stay).  randconfig draws one number per symbol."""
    if mode == DEF_YES:
        return Y
    if mode == DEF_MOD:
        return M
    if mode == DEF_NO:
        return Y if sym.allnoconfig_y else N
    if mode == DEF_RANDOM:
        return _random_tristate(sym, rng, probabilities)
    return None


def _random_tristate(sym, rng: GlibcRandom, probabilities: tuple[int, int, int]) -> int:
    pby, pty, ptm = probabilities
    cnt = rng.rand() % 100
    if sym.type == TRISTATE:
        if cnt < pty:
            return Y
        if cnt < pty + ptm:
            return M
        return N
    return Y if cnt < pby else N


def _set_new_symbols_in_menu_order(kc: Kconfig, mode: int, rng: GlibcRandom | None,
                                   probabilities: tuple[int, int, int]) -> None:
    """Member-choice generations: every bool/tristate entry with a prompt
    and no user value, in menu order; choice members are left to their
    choice, which randconfig shuffles."""
    for node in kc.walk():
        sym = node.sym
        if (sym is None or node.prompt is None or sym.has_user or sym.type not in (BOOL, TRISTATE)
                or sym.is_choice_value):
            continue
        if sym.is_choice:
            if mode == DEF_RANDOM:
                _shuffle_choice(node, rng)
            continue
        value = _new_value(sym, mode, rng, probabilities)
        if value is None:
            continue
        sym.user_tri = value
        sym.has_user = True
    kc.invalidate()


def _shuffle_choice(node, rng: GlibcRandom) -> None:
    """randconfig on a member choice: the members without a user value are
    set to y one by one in random order, each moved to the back of the
    priority list (so user input from KCONFIG_ALLCONFIG keeps precedence
    and the first random pick wins)."""
    entries = [below.sym for below in node.walk() if below.sym is not None]
    cnt = sum(1 for sym in entries if not sym.has_user)
    members = node.sym.members
    while cnt > 0:
        x = rng.rand() % cnt
        for sym in entries:
            if not sym.has_user:
                x -= 1
            if x < 0:
                sym.user_tri = Y
                sym.has_user = True
                if sym in members:
                    members.remove(sym)
                members.append(sym)
                break
        cnt -= 1


def _randomize_choice_values(choice, rng: GlibcRandom) -> bool:
    if choice.curr_tri != Y:
        return False
    values = choice.choice_values
    pick = rng.rand() % len(values)
    for i, value in enumerate(values):
        if i == pick:
            value.user_tri = Y
            choice.user_selection = value
        else:
            value.user_tri = N
        value.has_user = True
        value.valid = False
    choice.has_user = True
    choice.valid = False
    return True


def rewrite_tristates(kc: Kconfig, old: int, new: int) -> None:
    """``--yes2modconfig`` and friends."""
    for sym in kc.hash_order():
        if sym.get_type() == TRISTATE and sym.user_tri == old:
            sym.user_tri = new
    kc.invalidate()
