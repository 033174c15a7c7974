"""A tree's computed values, saved and put back exactly.

A what-if question (:class:`~.scenario.Scenario`) changes user values and
computes on the same tree.  Marking every value stale afterwards is
correct but costly: the next reader of the tree (the language server's
next hover, or the values after the next edit) then computes all of them
again, ~60 ms on a kernel tree.  :class:`SavedValues` keeps every symbol's
evaluation state, the condition values its properties hold and the
tree-wide results of a reading, and puts back only what changed.
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .tree import Kconfig

#: Everything :meth:`~.symbols.Symbol.calc_value` and a config reading
#: write on a symbol, but ``valid``: a what-if marks every value stale,
#: and computes again only a few (kept apart, it is put back alone).
_FIELDS = ("write", "need_set_choice_values", "curr_tri", "curr_val", "visible", "dir_dep_tri",
           "rev_dep_tri", "implied_tri", "has_user", "user_tri", "user_val", "selection", "user_selection")
_state_of = attrgetter(*_FIELDS)
_valid_of = attrgetter("valid")
_cond_tri_of = attrgetter("cond_tri")


def _valued_props(kc: Kconfig) -> list:
    """The properties whose condition value a computation stores (prompts,
    defaults, ranges), kept per tree until it changes."""
    props = kc.derived.get("valued_props")
    if props is None:
        props = [p for sym in kc.all_symbols for group in (sym.prompts, sym.defaults, sym.ranges) for p in group]
        kc.derived["valued_props"] = props
    return props


class SavedValues:
    """``SavedValues(kc)`` now; :meth:`restore` later gives ``kc`` back the
    values, user input and warnings it had (the tree itself unchanged)."""

    def __init__(self, kc: Kconfig):
        self.kc = kc
        self.symbols = list(kc.all_symbols)
        self.states = list(map(_state_of, self.symbols))
        self.valid = list(map(_valid_of, self.symbols))
        self.props = _valued_props(kc)
        self.cond_tris = list(map(_cond_tri_of, self.props))
        self.members = {choice: list(choice.members) for choice in kc.choices if choice.members}
        self.unmet = list(kc.unmet)
        self.modules_val = kc.modules_val
        self.conf_changed = kc.conf_changed

    def restore(self) -> None:
        kc = self.kc
        for sym, saved, now, valid in zip(self.symbols, self.states, map(_state_of, self.symbols), self.valid,
                                          strict=True):
            sym.valid = valid
            if saved != now:
                (sym.write, sym.need_set_choice_values, sym.curr_tri, sym.curr_val, sym.visible,
                 sym.dir_dep_tri, sym.rev_dep_tri, sym.implied_tri, sym.has_user, sym.user_tri, sym.user_val,
                 sym.selection, sym.user_selection) = saved
        for prop, saved, now in zip(self.props, self.cond_tris, map(_cond_tri_of, self.props), strict=True):
            if saved != now:
                prop.cond_tri = saved
        for choice, members in self.members.items():
            if list(choice.members) != members:
                choice.members = list(members)
        kc.unmet[:] = self.unmet
        kc.modules_val = self.modules_val
        kc.conf_changed = self.conf_changed
