"""The files a tree will source, guessed from their text alone
(kconfig_ls/kconfig/source_walk.py): the parse's depth-first order, every
``source`` variant, paths with macros, and nothing for what cannot be read
or expanded."""

from __future__ import annotations

from kconfig_ls.kconfig.errors import KconfigError
from kconfig_ls.kconfig.source_walk import files_after, sourced_names

TREE = {
    "Kconfig": (
        'mainmenu "m"\n'
        'source "a/Kconfig"\n'
        'rsource "sub/Kconfig"\n'
        '\tosource "$(SRCARCH)/Kconfig"\n'
        'orsource "missing/Kconfig"\n'
        'mysource "not/a/source"\n'
        'source "$(BROKEN/Kconfig"\n'
        'source "a/Kconfig"\n'
        'source "last/Kconfig"\n'
    ),
    "a/Kconfig": 'source "a/b/Kconfig"\nrsource "c/Kconfig"\n',
    "a/b/Kconfig": "config B\n\tbool\n",
    "a/c/Kconfig": "config C\n\tbool\n",
    "sub/Kconfig": "config SUB\n\tbool\n",
    "x86/Kconfig": 'source "a/b/Kconfig"\nconfig X86\n\tdef_bool y\n',
    "last/Kconfig": "config LAST\n\tbool\n",
}


def expand(path: str) -> str:
    if "$(BROKEN" in path:
        raise KconfigError("unterminated reference")
    return path.replace("$(SRCARCH)", "x86")


def walk(current: str) -> list[str]:
    return [name for name, _text in files_after("Kconfig", current, TREE.get, expand)]


def test_every_variant_of_source_is_followed_and_nothing_else():
    assert sourced_names("Kconfig", TREE["Kconfig"], expand) == [
        "a/Kconfig", "sub/Kconfig", "x86/Kconfig", "missing/Kconfig", "a/Kconfig", "last/Kconfig"]
    # (rsource is relative to the sourcing file's folder)
    assert sourced_names("a/Kconfig", TREE["a/Kconfig"], expand) == ["a/b/Kconfig", "a/c/Kconfig"]


def test_the_files_after_one_come_in_the_parses_order_each_once():
    assert walk("Kconfig") == ["a/Kconfig", "a/b/Kconfig", "a/c/Kconfig", "sub/Kconfig", "x86/Kconfig",
                               "last/Kconfig"]
    assert walk("a/c/Kconfig") == ["sub/Kconfig", "x86/Kconfig", "last/Kconfig"]
    assert walk("last/Kconfig") == []
    assert walk("not/in/the/tree") == []


def test_the_texts_come_with_their_names():
    assert dict(files_after("Kconfig", "sub/Kconfig", TREE.get, expand)) == {
        "x86/Kconfig": TREE["x86/Kconfig"], "last/Kconfig": TREE["last/Kconfig"]}


def test_only_rsource_and_orsource_are_relative_to_the_sourcing_file(tmp_path):
    """The parser and the guess share the rule: an ``osource`` in a
    sub-folder names its file from the top of the tree, as ``source`` does."""
    from kconfig_ls.kconfig.source_walk import source_name
    from kconfig_ls.kconfig.tree import Kconfig

    assert source_name("osource", "sub/Kconfig", "other/Kconfig") == "other/Kconfig"
    assert source_name("orsource", "sub/Kconfig", "other/Kconfig") == "sub/other/Kconfig"
    assert source_name("rsource", "sub/Kconfig", "/abs/Kconfig") == "/abs/Kconfig"
    (tmp_path / "sub").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "Kconfig").write_text('source "sub/Kconfig"\n')
    (tmp_path / "sub" / "Kconfig").write_text('osource "other/Kconfig"\n')
    (tmp_path / "other" / "Kconfig").write_text("config OTHER\n\tdef_bool y\n")
    kc = Kconfig("Kconfig", srctree=str(tmp_path), env={}, warn_stream=None)
    assert kc.find("OTHER").type is not None and kc.missing_sources == []
