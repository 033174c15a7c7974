"""Trying other configurations on a loaded tree without losing its own.

The explanation engine asks "what if the user also set A=y and B=m?" many
times.  A :class:`Scenario` answers on the same :class:`Kconfig` object: it
saves the user values, applies a candidate's assignments the way
``conf_read_simple`` applies lines of a ``.config`` (values are then
recomputed lazily, so only what the question touches is evaluated), and puts
everything back when it closes (:mod:`.saved_values`: the values too, not
just the user input, so the tree need not be computed again).

:func:`config_edits` says how a candidate changes a config file's text, and
:meth:`Scenario.verify` re-reads that exact text through the same path as
``make olddefconfig`` (``conf_read``), so an answer is only given once the
file it describes really produces the value.  When the tree's values are
its reading of the base text (a :class:`~.revalue.ConfigValues`, as in the
language server), that reading re-reads the candidate: only the symbols
the candidate's lines reach are computed again (a few milliseconds where a
whole reading of a kernel tree takes sixty), with the same result
(``tests/unit/test_saved_values.py`` compares both ways).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import configfile
from .expr import STRING
from .saved_values import SavedValues

if TYPE_CHECKING:
    from .revalue import ConfigValues
    from .symbols import Symbol
    from .tree import Kconfig

_UserState = tuple[bool, int, "str | None", "Symbol | None"]


@dataclass(frozen=True)
class ConfigEdit:
    """One change to a config file: replace line ``line`` (1-based) with
    ``text``; ``text`` None deletes it; ``line`` None appends ``text``."""

    line: int | None
    text: str | None


def assigned_name(line: str, prefix: str) -> str | None:
    """The symbol a ``.config`` line assigns (``CONFIG_FOO=...`` or
    ``# CONFIG_FOO is not set``), without the prefix."""
    if line.startswith(prefix):
        eq = line.find("=", len(prefix))
        return line[len(prefix) : eq] if eq > len(prefix) else None
    start = "# " + prefix
    if line.startswith(start) and line.rstrip().endswith(" is not set"):
        return line[len(start) :].split(" ", 1)[0] or None
    return None


def config_edits(kc: Kconfig, base_text: str, assignments: dict[str, str]) -> list[ConfigEdit]:
    """The edits that add ``assignments`` to a config file's text.

    An existing line for the symbol is replaced in place (later duplicates
    are deleted).  Choice members are the exception: which ``=y`` line comes
    last decides the choice, so their old lines are deleted and the new
    ones appended after everything else.
    """
    prefix = configfile.config_prefix(kc)
    edits: list[ConfigEdit] = []
    placed: set[str] = set()
    for number, line in enumerate(base_text.splitlines(), 1):
        name = assigned_name(line, prefix)
        if name is None or name not in assignments:
            continue
        sym = kc.find(name)
        if name in placed or sym is None or sym.is_choice_value:
            edits.append(ConfigEdit(number, None))
            continue
        placed.add(name)
        new = configfile.assignment_line(kc, sym, assignments[name])
        if new != line:
            edits.append(ConfigEdit(number, new))
    for name, value in assignments.items():
        sym = kc.find(name)
        if name not in placed and sym is not None:
            edits.append(ConfigEdit(None, configfile.assignment_line(kc, sym, value)))
    return edits


def apply_edits(base_text: str, edits: list[ConfigEdit]) -> str:
    """``base_text`` with ``edits`` applied (a trailing newline kept)."""
    lines = base_text.splitlines()
    by_line = {e.line: e.text for e in edits if e.line is not None}
    out = [by_line.get(n, line) for n, line in enumerate(lines, 1)]
    out = [line for line in out if line is not None]
    out.extend(e.text for e in edits if e.line is None and e.text is not None)
    return "\n".join(out) + "\n" if out else ""


def config_with(kc: Kconfig, base_text: str, assignments: dict[str, str]) -> str:
    return apply_edits(base_text, config_edits(kc, base_text, assignments))


class Scenario:
    """What-if evaluation on ``kc`` against a base config text (``""`` for
    no config file: every symbol at its default).  Use as a context manager;
    the tree's own values are restored on exit."""

    def __init__(self, kc: Kconfig, base_text: str | None, reading: ConfigValues | None = None):
        self.kc = kc
        self.base_text = base_text or ""
        self._saved = SavedValues(kc)
        #: The reading of the base text the tree's values come from, if the
        #: caller has it (None: each candidate is read whole).
        self._reading = reading if reading is not None and reading.kc is kc and reading.text == self.base_text else None
        self._bookmark = self._reading.bookmark() if self._reading is not None else None
        self._saved_callback = kc.unmet_callback
        kc.unmet_callback = None
        if self._reading is not None:
            self._base = self._reading.put_user_values()
        else:
            configfile.read_config_simple(kc, "<base>", text=self.base_text, warn_unknown=False)
            self._base = _user_state(kc)
        self._touched: list[Symbol] = []
        #: Whether the values are a verified candidate's (not the base's).
        self._verified = False
        self._base_unmet: set[str] | None = None
        kc.invalidate()

    def __enter__(self) -> Scenario:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._restore_base()
        self.kc.unmet_callback = self._saved_callback

    def apply(self, assignments: dict[str, str]) -> None:
        """Base values plus ``assignments``, as if appended to the file;
        values are recomputed on demand."""
        kc = self.kc
        if self._verified:
            # (Each what-if starts from the base values, whichever way the
            # last candidate was read: in a dependency loop, values met
            # half-computed are the ones computed before.)
            self._restore_base()
            self._touched = list(kc.all_symbols)
        for sym in self._touched:
            state = self._base[sym.index]
            sym.has_user, sym.user_tri, sym.user_val, sym.user_selection = state
        self._touched = []
        for name, value in assignments.items():
            sym = kc.find(name)
            if sym is None:
                continue
            self._touched.append(sym)
            if sym.is_choice_value:
                self._touched.append(sym.choice)
            if sym.type == STRING:
                value = configfile.escape_string_value(value)
            configfile.apply_user_value(sym, value, _ignore)
        kc.invalidate()

    def verify(self, assignments: dict[str, str]) -> set[str]:
        """Read the base text with ``assignments`` written in exactly as
        ``conf_read`` would, compute every value, and return the names of
        symbols whose direct dependencies are then unmet (the C tool's
        warnings).  Afterwards the values are those of that file; call
        :meth:`apply` to continue trying."""
        kc = self.kc
        text = config_with(kc, self.base_text, assignments)
        if not self._reread(text):
            # (From no values, as the C tool reading the file starts: in a
            # dependency loop the values met half-computed would be older ones.)
            kc.reset_values()
            configfile.read_config(kc, "<candidate>", text=text)
            for sym in kc.hash_order():
                sym.calc_value()
        unmet = {sym.name for sym in kc.unmet}
        kc.unmet.clear()
        self._touched = list(kc.all_symbols)
        self._verified = True
        return unmet

    def _reread(self, text: str) -> bool:
        """The values of ``text`` computed from the base reading, for the
        symbols its changes reach only; False when only a whole reading
        gives them (no base reading, or one that declines)."""
        reading = self._reading
        if reading is None:
            return False
        self._restore_base()
        return reading.reread(text, "<candidate>", "<candidate>")

    def _restore_base(self) -> None:
        """The values and warnings of the base reading, and its record."""
        self._saved.restore()
        if self._reading is not None:
            self._reading.go_back(self._bookmark)
        self._verified = False

    def base_unmet(self) -> set[str]:
        """The unmet-dependency warnings the base config already has (kept
        per tree and base text: a tree object never changes its Kconfig)."""
        if self._base_unmet is None:
            known = self.kc.derived.setdefault("base_unmet", {})
            key = self.base_text
            if key not in known:
                if len(known) > 8:
                    known.clear()
                known[key] = self.verify({})
            self._base_unmet = known[key]
        return self._base_unmet


def remember_base_unmet(kc: Kconfig, base_text: str | None) -> None:
    """Just after ``base_text`` was read afresh and every value computed:
    its unmet-dependency warnings are the tree's, so a scenario on it need
    not read and compute it all again (a third of a second on a kernel)."""
    known = kc.derived.setdefault("base_unmet", {})
    if len(known) > 8:
        known.clear()
    known[base_text or ""] = {sym.name for sym in kc.unmet}


def _user_state(kc: Kconfig) -> list[_UserState]:
    return list(map(configfile.user_input_of, kc.all_symbols))


def _ignore(_message: str) -> None:
    return None
