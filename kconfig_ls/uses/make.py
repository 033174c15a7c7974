"""Reading Makefiles and Kbuild files: the ``CONFIG_`` variables used, the
kbuild lists they pick (``obj-$(CONFIG_X) += x.o``), and the conditionals
(``ifdef``/``ifndef``/``ifeq``/``ifneq``, ``else``, ``endif``) that test
them, in the shapes of :mod:`.cpp` so :mod:`.regions` finds the dead arms.

Only what the configuration decides is known: a condition that reads any
other variable or calls a function, or a ``CONFIG_`` variable the file
assigns itself, is unknown.  Lines in ``define``...``endef`` are text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .cexpr import UNKNOWN, Outcome
from .cpp import Branch, Directive, Group, Use
from .macros import ConfigMacros
from .regions import DeadRange, dead_arms

_CONDITIONAL = re.compile(r"[ \t]*(ifdef|ifndef|ifeq|ifneq|else|endif|define|endef)\b[ \t]*(.*)")
def _reference(name: str) -> str:
    """``$(NAME)`` or ``${NAME}``, capturing the name."""
    return r"\$[({](" + name + r")[)}]"



#: ``obj-$(`` right before a name: the kbuild list it picks.
_KBUILD_HEAD = re.compile(r"([A-Za-z0-9_.]+)-\$[({]$")


@dataclass
class MakeFile:
    directives: list[Directive]
    groups: list[Group]
    uses: list[Use]
    #: ``CONFIG_`` variables the file assigns itself.
    assigned: set[str]


def strip_comment(line: str) -> str:
    """``line`` up to its comment (a ``#`` not escaped)."""
    match = re.search(r"(?<!\\)#", line)
    return line if match is None else line[: match.start()]


def scan(text: str, prefix: str = "CONFIG_") -> MakeFile:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    name = re.escape(prefix) + r"\w+"
    use_re = re.compile(r"\b" + name)
    assign_re = re.compile(r"^[ \t]*(?:override[ \t]+|export[ \t]+)?(" + name + r")[ \t]*(?::{1,3}|\+|\?|!)?=")
    directives: list[Directive] = []
    uses: list[Use] = []
    assigned: set[str] = set()
    in_define = False
    i = 0
    while i < len(lines):
        first = i
        logical = strip_comment(lines[i])
        while logical.endswith("\\") and i + 1 < len(lines):
            i += 1
            logical = logical[:-1] + " " + strip_comment(lines[i])
        i += 1
        match = _CONDITIONAL.match(logical)
        keyword = match.group(1) if match else None
        if in_define or keyword == "define":
            # A macro's text: its uses count, its lines are no directives.
            in_define = keyword != "endef" if in_define else True
            keyword = None
        elif match is not None and keyword != "endef":
            rest = match.group(2).rstrip()
            if keyword == "else" and rest:
                inner = _CONDITIONAL.match(rest)
                if inner is not None and inner.group(1) in ("ifdef", "ifndef", "ifeq", "ifneq"):
                    keyword, rest = "else " + inner.group(1), inner.group(2).rstrip()
            directives.append(Directive(keyword, rest, first + 1, i))
        if not in_define:
            assignment = assign_re.match(logical)
            if assignment is not None:
                assigned.add(assignment.group(1))
        for n in range(first, i):
            code = strip_comment(lines[n])
            for m in use_re.finditer(code):
                form = "value"
                if keyword in ("ifdef", "ifndef", "else ifdef", "else ifndef") and n == first:
                    form = "ifdef"
                else:
                    kbuild = _KBUILD_HEAD.search(code, 0, m.start())
                    if kbuild is not None and code[m.end():m.end() + 1] in (")", "}"):
                        form = "kbuild:" + kbuild.group(1)
                uses.append(Use(m.group(), n + 1, m.start(), form))
    return MakeFile(directives, _groups(directives, len(lines)), uses, assigned)


def _groups(directives: list[Directive], line_count: int) -> list[Group]:
    groups: list[Group] = []
    stack: list[Group] = []
    for d in directives:
        if d.keyword in ("ifdef", "ifndef", "ifeq", "ifneq"):
            group = Group([Branch(d, d.end_line + 1, line_count)], stack[-1].branches[-1] if stack else None, None)
            groups.append(group)
            stack.append(group)
        elif d.keyword.startswith("else") and stack:
            stack[-1].branches[-1].last_line = d.line - 1
            stack[-1].branches.append(Branch(d, d.end_line + 1, line_count))
        elif d.keyword == "endif" and stack:
            group = stack.pop()
            group.branches[-1].last_line = d.line - 1
            group.endif_line = d.line
    return groups


def dead_ranges(parsed: MakeFile, macros: ConfigMacros) -> list[DeadRange]:
    """Every arm of ``parsed`` that ``macros`` make make skip."""
    return dead_arms(parsed.groups, lambda branch: condition(branch, macros, parsed.assigned))


def condition(branch: Branch, macros: ConfigMacros, assigned: set[str]) -> Outcome:
    """Whether the conditional opening ``branch`` holds, where the
    configuration alone decides it."""
    keyword = branch.directive.keyword.removeprefix("else").strip()
    text = branch.directive.text
    if not keyword:
        return Outcome(1)
    if keyword in ("ifdef", "ifndef"):
        name = text.strip()
        if not re.fullmatch(re.escape(macros.prefix) + r"\w+", name) or name in assigned:
            return Outcome(UNKNOWN)
        value = int(bool(macros.make.get(name)))
        return Outcome(value if keyword == "ifdef" else 1 - value, [name])
    args = _arguments(text)
    if args is None:
        return Outcome(UNKNOWN)
    names: list[str] = []
    expanded = []
    for arg in args:
        value = _expand(arg, macros, assigned, names)
        if value is None:
            return Outcome(UNKNOWN)
        expanded.append(value)
    equal = expanded[0] == expanded[1]
    return Outcome(int(equal if keyword == "ifeq" else not equal), names)


def _arguments(text: str) -> tuple[str, str] | None:
    """The two arguments of ``ifeq``/``ifneq``: ``(a,b)``, ``"a" "b"`` or
    ``'a' 'b'`` (None for anything else, or blanks make treats specially)."""
    text = text.strip()
    if text.startswith("("):
        depth = 0
        for index, char in enumerate(text):
            depth += char in "({"
            depth -= char in ")}"
            if char == "," and depth == 1:
                first, second = text[1:index], text[index + 1:]
                if not second.endswith(")") or first != first.lstrip():
                    return None
                return first.rstrip(), second[:-1].strip()
        return None
    quoted = re.fullmatch(r"""(["'])(.*?)\1\s+(["'])(.*?)\3""", text)
    return (quoted.group(2), quoted.group(4)) if quoted else None


def _expand(arg: str, macros: ConfigMacros, assigned: set[str], names: list[str]) -> str | None:
    """``arg`` with its configuration variables replaced by their values;
    None if anything else would be expanded."""
    pattern = re.compile(_reference(re.escape(macros.prefix) + r"\w+"))
    out = []
    last = 0
    for m in pattern.finditer(arg):
        if m.group(1) in assigned:
            return None
        out.append(arg[last:m.start()])
        out.append(macros.make.get(m.group(1), ""))
        names.append(m.group(1))
        last = m.end()
    out.append(arg[last:])
    return None if "$" in pattern.sub("", arg) else "".join(out)
