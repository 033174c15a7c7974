"""Values again after a re-link, for the symbols an edit can reach only.

Reading a config and computing every value of a kernel tree takes more than
a tenth of a second; after an edit of one Kconfig entry most values cannot
have changed.  :class:`ConfigValues` reads a config as the C tool's
``conf_read`` does (``configfile.read_config_simple`` and
``settle_after_read``) and remembers what that reading decided; after
:func:`~.relink.relink_file`, :meth:`ConfigValues.update` computes again
only the symbols whose expressions were made again, then, inputs first
(:mod:`.dependencies`), those reading a symbol whose value did change
(through dependencies, selects, implies, defaults, ranges, prompts and
choices), giving each back the user value the file gave it.  A symbol whose
inputs all kept their values keeps its own: turning EXPERT on reaches
11,560 symbols of x86_64 but changes the inputs of 2,205.  Where an edit
reaches a dependency loop other than a choice's, everything it reaches is
computed again in the C tool's order instead (values in a loop depend on it).

After an edit of the config itself, :meth:`ConfigValues.reread` does the
same for the symbols whose user value the new text changes.

``conf_read``'s last step is global: user values of invisible symbols are
dropped only when no value changed anywhere, and a number out of its range
counts as a change.  When an edit flips that, the drops are redone over
every symbol (flags only: no value moves).  When it touches a number out of
range or the modules symbol, :meth:`update` returns False and the caller
reads the config afresh.  ``tests/unit/test_relink.py`` compares updated
values with a fresh reading after many random edits (random trees, four
generations), ``tests/parity/test_relink_kernel.py`` on x86_64.
"""

from __future__ import annotations

from heapq import heappop, heappush
from operator import attrgetter

from . import configfile
from .dependencies import Dependencies
from .expr import N
from .symbols import Symbol
from .tree import Kconfig

#: Beyond this share of the symbols a fresh reading is as quick as computing
#: again all an edit reaches (x86_64 6.1: 50% of the symbols take 40 ms,
#: 75% 57 ms, a fresh reading 57 ms).
_MOST = 0.7
#: What other symbols' computations read of a symbol (outside its choice).
_seen_by_others = attrgetter("curr_tri", "curr_val", "visible")


class ConfigValues:
    """A config read into a tree, and what the reading decided."""

    def __init__(self, kc: Kconfig, path: str | None, display_name: str | None, text: str | None):
        self.kc = kc
        self.text = text
        self.result: configfile.ConfigReadResult | None = None
        kc.reset_values()
        if text is not None:
            kc.conf_changed = False
            self.result = configfile.read_config_simple(kc, path, display_name, text=text)
        #: The "configuration changed" flag before the reading settled.
        self._changed_when_read = kc.conf_changed
        #: Each symbol's user value as the file gave it (by symbol index).
        self._read = list(map(configfile.user_input_of, kc.all_symbols))
        #: Each choice's members in the order the reading left them (6.11+:
        #: the file's values reorder them).
        self._members = {choice: list(choice.members) for choice in kc.choices}
        #: Symbols whose computed value differs from the file's.
        self.unsaved: set[Symbol] = set()
        self._out_of_range = False
        self._settle()
        #: Which symbols read which (dependencies.py), shared by the
        #: readings of one tree.
        self.dependencies = Dependencies(kc)
        #: Where an edit reaches a loop and everything reached is computed
        #: again: the share of the symbols beyond which a fresh reading is
        #: left to the caller instead.
        self.most_reached = _MOST
        #: The symbols the last :meth:`reread` or :meth:`update` computed
        #: again (None: every symbol was, by a fresh reading).
        self.reached: set[Symbol] | None = None

    def _settle(self) -> None:
        changes = configfile.settle_after_read(self.kc, self.result, self.unsaved)
        # (More changes than values that did not stick: numbers out of range.)
        self._out_of_range = changes != len(self.unsaved)

    @property
    def warnings(self) -> list:
        return self.result.warnings if self.result is not None else []

    # -- after a re-link -------------------------------------------------------------
    def update(self, changed: set[Symbol]) -> bool:
        """The values after a re-link that made ``changed`` again; False
        when only a fresh reading gives them (the tree's values are then
        unspecified until the caller reads the config again)."""
        self.note_changed(changed)
        return self._recompute(changed)

    # -- after an edit of the config ---------------------------------------------------
    def reread(self, text: str, path: str | None, display_name: str | None) -> bool:
        """The values for a new text of the config: the file is read again
        (user values only: cheap), and only the symbols whose user value
        the new text changes, and those depending on them, are computed
        again.  False when only a fresh reading gives the values (the
        tree's values are then unspecified until the caller reads the
        config again)."""
        kc = self.kc
        if self.text is None or text is None or self._out_of_range:
            return False
        # What the last reading settled to, for the symbols this one leaves.
        settled = [(s.valid, s.has_user, s.user_tri, s.user_val, s.user_selection) for s in kc.all_symbols]
        settled_members = {choice: list(choice.members) for choice in kc.choices}
        old_read, old_members = self._read, self._members
        kc.conf_changed = False
        result = configfile.read_config_simple(kc, path, display_name, text=text)
        self.text, self.result, self._changed_when_read = text, result, kc.conf_changed
        self._read = list(map(configfile.user_input_of, kc.all_symbols))
        self._members = {choice: list(choice.members) for choice in kc.choices}
        changed = {sym for sym, now in zip(kc.all_symbols, self._read, strict=True)
                   if sym.index >= len(old_read) or old_read[sym.index] != now}
        changed.update(c for c in kc.choices if self._members[c] != old_members.get(c))
        # (The reading reset every symbol; those it did not change stand as
        # they were settled, and so do those depending on none of them.)
        for sym, state in zip(kc.all_symbols, settled, strict=True):
            if sym not in changed:
                sym.valid, sym.has_user, sym.user_tri, sym.user_val, sym.user_selection = state
                if sym in settled_members:
                    sym.members = settled_members[sym]
        return self._recompute(changed)

    def _recompute(self, changed: set[Symbol]) -> bool:
        """Compute again ``changed`` and the symbols depending on them, each
        with the user value the file gives it, and settle as the reading
        would; False when the reading's global decisions would change."""
        kc = self.kc
        if self._out_of_range:
            return False
        self.reached = None
        was_unsaved = bool(self.unsaved)
        order = self._compute_changed(changed)
        if order is None:
            order = self._compute_reached(changed)
            if order is None:
                return False
        computed = set(order)
        self.unsaved -= computed
        self.unsaved.update(sym for sym in order if configfile.value_differs_from_user(sym))
        if bool(self.unsaved) != was_unsaved:
            if kc.gen.member_choices:
                return False
            self._redo_stale_drops(computed)
        if not kc.gen.member_choices:
            kept = len(self.unsaved)
            if configfile.drop_stale_user_values(order, kept) != kept:
                return False  # (a number out of range: the fresh reading decides)
        kc.conf_changed = self._changed_when_read or bool(self.warnings) or bool(self.unsaved)
        self.reached = computed
        return True

    def _compute_changed(self, changed: set[Symbol]) -> list[Symbol] | None:
        """Compute again, inputs first, the units (dependencies.py)
        holding ``changed`` and those reading a symbol whose value did
        change: a unit whose inputs kept their values keeps its own.
        Returns the symbols computed; None, part done, on meeting a loop
        other than a choice's, or the modules symbol (every tristate
        reads its value)."""
        order = self.dependencies.order()
        if order is None or not order.knows(changed):
            return None
        kc = self.kc
        readers = self.dependencies.readers()
        rank, units, loops = order.rank, order.units, order.loops
        due = sorted({rank[sym] for sym in changed})  # (a sorted list is a heap)
        queued = set(due)
        computed: list[Symbol] = []
        while due:
            r = heappop(due)
            unit = units[r]
            if r in loops or kc.modules_sym in unit:
                return None
            before = [_seen_by_others(sym) for sym in unit]
            for sym in unit:
                self._reset_to_read(sym)
            if kc.unmet:
                kc.unmet[:] = [s for s in kc.unmet if s not in unit]
            for sym in unit:
                sym.calc_value()
            computed.extend(unit)
            if any(_seen_by_others(sym) != old for sym, old in zip(unit, before, strict=True)):
                for sym in unit:
                    for reader in readers.get(sym, ()):
                        r = rank[reader]
                        if r not in queued:
                            queued.add(r)
                            heappush(due, r)
        return computed

    def _compute_reached(self, changed: set[Symbol]) -> list[Symbol] | None:
        """Compute again everything ``changed`` reaches, in the C tool's
        order (where a loop makes values depend on it); returns the symbols
        in that order, None when a fresh reading is as quick or needed."""
        kc = self.kc
        reached = self.dependencies.reach(changed)
        if kc.modules_sym in reached or len(reached) > self.most_reached * len(kc.all_symbols):
            return None
        for sym in reached:
            self._reset_to_read(sym)
        kc.unmet[:] = [s for s in kc.unmet if s not in reached]
        order = [s for s in kc.hash_order() if s in reached]
        for sym in order:
            sym.calc_value()
        return order

    def _reset_to_read(self, sym: Symbol) -> None:
        """No value, and the user value the file gives (to compute again)."""
        sym.reset_state()
        read = self._read
        state = read[sym.index] if sym.index < len(read) else self._unread(sym)
        sym.has_user, sym.user_tri, sym.user_val, sym.user_selection = state
        if sym in self._members:
            sym.members = list(self._members[sym]) or sym.members

    def _unread(self, sym: Symbol) -> tuple:
        """The user value of a symbol made after the reading (a name a
        re-link referred to anew), as a reading leaves one it does not set."""
        return (sym.is_choice and not self.kc.gen.member_choices, N, None, None)

    def _redo_stale_drops(self, reached: set[Symbol]) -> None:
        """Whether anything changed decides, before member choices, if the
        reading drops the user values of invisible symbols (values computed
        before, so none moves): that answer flipped, so the symbols the edit
        did not reach get their user values as a fresh reading leaves them
        (those reached are settled below)."""
        keep = bool(self.unsaved)
        read = self._read
        for sym in self.kc.all_symbols:
            if sym in reached or sym.is_choice_value:
                continue
            if keep:
                if not sym.has_user and sym.index < len(read) and read[sym.index][0]:
                    sym.has_user = True
            elif sym.has_user and sym.visible == N:
                sym.has_user = False

    # -- what-ifs read from this reading -------------------------------------------------
    def put_user_values(self) -> list[tuple]:
        """Each symbol's user value as the file gave it, put back on the tree
        (values left to the caller to mark stale): what reading the same
        text again would give, without reading it (a what-if's base:
        scenario.py); returns them by symbol index."""
        kc = self.kc
        read = self._read
        if len(read) < len(kc.all_symbols):  # (symbols a re-link made since)
            read = read + [self._unread(s) for s in kc.all_symbols[len(read):]]
        for sym, state in zip(kc.all_symbols, read, strict=True):
            if configfile.user_input_of(sym) != state:
                sym.has_user, sym.user_tri, sym.user_val, sym.user_selection = state
        for choice, members in self._members.items():
            if choice.members != members:
                choice.members = list(members)
        return read

    def bookmark(self) -> tuple:
        """This reading's record, for :meth:`go_back` after rereads of other
        texts (a what-if's candidates: scenario.py).  A reread replaces these
        objects rather than changing them, but the set of unsaved symbols,
        which is copied."""
        return (self.text, self.result, self._changed_when_read, self._read, self._members,
                set(self.unsaved), self.reached)

    def go_back(self, mark: tuple) -> None:
        """The record of the reading :meth:`bookmark` took (the tree's
        values are the caller's to put back: saved_values.py)."""
        (self.text, self.result, self._changed_when_read, self._read, self._members,
         unsaved, self.reached) = mark
        self.unsaved = set(unsaved)

    def take_index(self, earlier: ConfigValues | None) -> None:
        """Keep the dependency index of an earlier reading of the same tree
        (it depends on the tree, not on the config)."""
        if earlier is not None and earlier.kc is self.kc:
            self.dependencies = earlier.dependencies

    def note_changed(self, changed: set[Symbol]) -> None:
        """A re-link made ``changed`` again (see Dependencies.note_changed)."""
        self.dependencies.note_changed(changed)

    def prepare(self) -> None:
        """Which symbols read which, and their order, made ahead of the
        first :meth:`update` (half a second on a kernel tree)."""
        self.dependencies.prepare()
