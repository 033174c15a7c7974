"""Choices as Linux 6.11 and newer compute them (``member_choices`` in the
generation profile).

A choice is a bool block with no value of its own.  Its members keep a
priority list, in definition order at first; reading a config file moves
each member it assigns to the front (the last assignment wins), picking a
member in the configurator does the same for every visible member, and
randconfig moves its random pick to the back.  The selected member is:

1. the first visible member, in priority order, that the user set to ``y``;
2. else the choice's default, unless the user set that one to ``n``;
3. else the first visible member, in menu order, the user did not set;
4. else the last visible member in priority order (the least recent ``n``).

Every visible member then is ``y`` (the selected one) or ``n``, computed
and written together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .expr import N, Y

if TYPE_CHECKING:
    from .symbols import Symbol


def calc_choice(choice: Symbol) -> Symbol | None:
    """Select a member of ``choice`` and give every visible member its
    value (``sym_calc_choice``)."""
    chosen = None
    for member in choice.members:
        member.calc_visibility()
        if member.visible != N and member.has_user and member.user_tri == Y:
            chosen = member
            break
    # (What explanations call the user's selection.)
    choice.user_selection = chosen
    if chosen is None:
        chosen = choice.choice_default()
        if chosen is not None and chosen.has_user and chosen.user_tri == N:
            chosen = None
    if chosen is None:
        for member in choice.choice_values:
            if member.visible != N and not member.has_user:
                chosen = member
                break
    if chosen is None:
        for member in reversed(choice.members):
            if member.visible != N:
                chosen = member
                break
    for member in choice.choice_values:
        if member.visible == N:
            continue
        member.curr_tri = Y if member is chosen else N
        member.valid = True
        member.write = True
    choice.selection = chosen
    return chosen


def give_priority(member: Symbol) -> None:
    """A config file assigned ``member``: it goes to the front of its
    choice's priority list."""
    members = member.choice.members
    if member in members:
        members.remove(member)
    members.insert(0, member)


def set_choice_value(choice: Symbol, picked: Symbol) -> None:
    """The user picked ``picked`` in the configurator (``choice_set_value``):
    every visible member gets a user value, ``y`` for the pick and ``n`` for
    the others, and moves to the front, one after the other in menu order
    (so the last visible member in menu order ends up first)."""
    changed = False
    for member in choice.choice_values:
        if member.visible == N:
            continue
        value = Y if member is picked else N
        if member.curr_tri != value:
            changed = True
        member.user_tri = value
        member.has_user = True
        give_priority(member)
    if changed:
        choice.kc.invalidate()


def settle(choice: Symbol) -> None:
    """Compute ``choice``'s selection now (it is otherwise computed when a
    member's value is asked for)."""
    for member in choice.choice_values:
        member.calc_value()
