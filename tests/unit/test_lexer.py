"""Tokens, statements and help text (scripts/kconfig/lexer.l rules)."""

from kconfig_ls.kconfig.lexer import Lexer, LineIndex
from kconfig_ls.kconfig.preprocess import Preprocessor


def statements(text, env=None):
    warnings = []
    lexer = Lexer(text, "Kconfig", Preprocessor(env=env or {}), lambda line, msg: warnings.append((line, msg)))
    return list(lexer.statements()), warnings


def kinds(stmt):
    return [(t.kind, t.value) for t in stmt.tokens]


def test_keywords_words_and_operators():
    (stmt,), _ = statements('config FOO_BAR\n')
    assert kinds(stmt) == [("config", "config"), ("WORD", "FOO_BAR")]
    (stmt,), _ = statements('depends on A && !(B || C) && D != "x" && E<=F\n')
    assert [t.kind for t in stmt.tokens] == [
        "depends", "on", "WORD", "&&", "!", "(", "WORD", "||", "WORD", ")", "&&",
        "WORD", "!=", "QUOTE", "&&", "WORD", "<=", "WORD",
    ]


def test_line_continuation_and_line_numbers():
    stmts, _ = statements("config A\n\tdepends on B && \\\n\t\tC\nconfig D\n")
    assert [s.line for s in stmts] == [1, 2, 4]
    assert [t.value for t in stmts[1].tokens] == ["depends", "on", "B", "&&", "C"]


def test_comments_are_ignored():
    (stmt,), _ = statements("config A # a comment\n# whole line\n")
    assert kinds(stmt) == [("config", "config"), ("WORD", "A")]


def test_strings_escapes_and_macros():
    (stmt,), _ = statements('prompt "a \\"quoted\\" $(X) \'s"\n', env={"X": "value"})
    assert stmt.tokens[1].value == 'a "quoted" value \'s'


def test_macro_in_word_expands_to_one_word():
    (stmt,), _ = statements("depends on $(X)_SUFFIX\n", env={"X": "PREFIX"})
    assert stmt.tokens[2].value == "PREFIX_SUFFIX"


def test_empty_expansion_drops_the_token():
    stmts, _ = statements("$(info,hello)\nconfig A\n")
    assert [kinds(s) for s in stmts] == [[("config", "config"), ("WORD", "A")]]


def test_assignment_takes_the_rest_of_the_line_verbatim():
    (stmt,), _ = statements("cc-option = $(success,$(CC) -Werror $(1)) # not a comment\n")
    assert [t.kind for t in stmt.tokens] == ["WORD", "=", "ASSIGN_VAL"]
    assert stmt.tokens[2].value == "$(success,$(CC) -Werror $(1)) # not a comment"


def test_help_text_indentation_rules():
    text = "config A\n\tbool\n\thelp\n\t  First line.\n\n\t    Indented more.\n\t  Last.\n\nconfig B\n"
    stmts, _ = statements(text)
    help_stmt = stmts[2]
    assert help_stmt.help_text == "First line.\n\n  Indented more.\nLast.\n"
    assert stmts[3].line == 9


def test_help_text_ends_at_a_dedent():
    text = "config A\n\thelp\n\t  text\n\tdefault y\n"
    stmts, _ = statements(text)
    assert stmts[1].help_text == "text\n"
    assert [t.value for t in stmts[2].tokens] == ["default", "y"]


def test_help_text_without_blank_line_has_no_trailing_newline():
    stmts, _ = statements("config A\n\thelp\n\t  text\nconfig B\n")
    assert stmts[1].help_text == "text"


def test_unsupported_character_and_missing_newline_warn():
    _, warnings = statements("config A ;")
    assert (1, "ignoring unsupported character ';'") in warnings
    assert (1, "no new line at end of file") in warnings


def test_line_index():
    index = LineIndex("ab\ncd\n")
    assert index.line_col(0) == (1, 0)
    assert index.line_col(4) == (2, 1)
    assert index.offset(2, 1) == 4


def test_a_kept_lexing_gives_back_the_statements_it_was_given():
    """kconfig_ls/kconfig/lexed.py: the packed statements a load keeps come
    back as they were lexed (tokens, offsets, help texts, lines)."""
    from pathlib import Path

    from kconfig_ls.kconfig.lexed import LexedFile

    sample = Path(__file__).resolve().parents[2] / "kconfig_ls" / "data" / "sample"
    texts = [path.read_text() for path in sorted(sample.rglob("Kconfig*"))]
    texts.append('X := $(if,y)\nconfig A\n\tbool "a \\"quoted\\""\n\thelp\n\t  Help.\n\n\t  More.\nconfig B\n')
    for text in texts:
        original, _ = statements(text)
        kept = LexedFile([], 0)
        assert [kept.add(stmt) for stmt in original] == list(range(len(original)))
        assert list(kept.statements()) == original and len(kept) == len(original)
