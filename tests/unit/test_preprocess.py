"""The macro language on its own (scripts/kconfig/preprocess.c semantics)."""

import pytest

from kconfig_ls.kconfig.preprocess import PreprocessError, Preprocessor


def make(env=None, shell=None):
    return Preprocessor(env=env or {}, shell=shell)


def test_recursive_and_simple_variables():
    pp = make()
    pp.assign("A", "1", ":=")
    pp.assign("B", "$(A)", "=")
    pp.assign("C", "$(A)", ":=")
    pp.assign("A", "2", ":=")
    assert pp.expand("$(B) $(C)") == "2 1"


def test_append_keeps_flavour_and_adds_a_space():
    pp = make()
    pp.assign("X", "a", ":=")
    pp.assign("X", "b", "+=")
    pp.assign("NEW", "c", "+=")
    assert pp.expand("$(X)|$(NEW)") == "a b|c"
    assert pp.variables["NEW"].recursive


def test_user_function_arguments():
    pp = make()
    pp.assign("greeting", "Hello, $(1) and $(2)!", "=")
    assert pp.expand("$(greeting,world,you)") == "Hello, world and you!"


def test_environment_is_the_last_resort_and_recorded():
    pp = make(env={"CC": "gcc"})
    assert pp.expand("$(CC) $(UNDEFINED)") == "gcc "
    assert pp.env_used == {"CC": "gcc"}


def test_dollar_without_parenthesis_is_literal():
    assert make().expand("a$b$") == "a$b$"


def test_circular_variable_is_an_error():
    pp = make()
    pp.assign("X", "$(Y)", "=")
    pp.assign("Y", "$(X)", "=")
    with pytest.raises(PreprocessError, match="Recursive variable 'X' references itself"):
        pp.expand("$(X)")


def test_unterminated_reference():
    with pytest.raises(PreprocessError, match="unterminated reference"):
        make().expand("$(foo")


def test_builtin_argument_counts():
    with pytest.raises(PreprocessError, match="too many function arguments passed to 'info'"):
        make().expand("$(info,a,b)")
    with pytest.raises(PreprocessError, match="too few function arguments passed to 'error-if'"):
        make().expand("$(error-if,y)")


def test_error_if_and_warning_if():
    warnings = []
    pp = Preprocessor(env={}, warn=warnings.append)
    pp.filename, pp.lineno = "Kconfig", 7
    assert pp.expand("$(warning-if,y,careful)$(warning-if,n,quiet)") == ""
    assert warnings == ["Kconfig:7: careful"]
    with pytest.raises(PreprocessError, match="stop here"):
        pp.expand("$(error-if,y,stop here)")


def test_shell_goes_through_the_replaceable_runner():
    seen = []
    pp = make(shell=lambda cmd: seen.append(cmd) or "out")
    assert pp.expand("$(shell,echo hi)") == "out"
    assert seen == ["echo hi"]


def test_real_shell_output_is_flattened():
    assert make().expand("$(shell,printf 'a\\nb\\n\\n')") == "a b"


def test_filename_and_lineno():
    pp = make()
    pp.filename, pp.lineno = "arch/x86/Kconfig", 12
    assert pp.expand("$(filename):$(lineno)") == "arch/x86/Kconfig:12"
