"""Mutant keys survive unrelated edits; diffs speak in the original file's line numbers."""

from __future__ import annotations

from lanes.mutation.keys import describe_mutants, function_of, qualname_of
from tests.mutation.mutation_fixtures import MUTATED, NAMES, ORIGINAL


def _keys(original: str, mutated: str, names: tuple[str, ...] = NAMES) -> dict[str, str]:
    return {n: m.key for n, m in describe_mutants("pkg/calc.py", original, mutated, names).items()}


def test_names_map_to_functions_and_qualified_names() -> None:
    assert function_of("pkg.calc.xǁCounterǁbump__mutmut_2") == "xǁCounterǁbump"
    assert qualname_of("xǁCounterǁbump") == "Counter.bump"
    assert qualname_of("x_clamp") == "clamp"


def test_key_names_file_function_and_change_and_every_mutant_differs() -> None:
    keys = _keys(ORIGINAL, MUTATED)
    assert keys["pkg.calc.x_clamp__mutmut_1"].startswith("pkg/calc.py::clamp::")
    assert keys["pkg.calc.xǁCounterǁbump__mutmut_2"].startswith("pkg/calc.py::Counter.bump::")
    assert len(set(keys.values())) == len(NAMES)


def test_key_survives_renumbering_and_lines_added_above() -> None:
    # A new mutant earlier in clamp shifts mutmut's counters (1 -> 2, 2 -> 3),
    # and an edit above the function moves every line down by two.
    shifted = MUTATED.replace("x_clamp__mutmut_2", "x_clamp__mutmut_3").replace(
        "x_clamp__mutmut_1", "x_clamp__mutmut_2"
    )
    original = "import os\n\n" + ORIGINAL
    names = ("pkg.calc.x_clamp__mutmut_2", "pkg.calc.x_clamp__mutmut_3")
    before = _keys(ORIGINAL, MUTATED)
    after = _keys(original, shifted, names)
    assert after["pkg.calc.x_clamp__mutmut_2"] == before["pkg.calc.x_clamp__mutmut_1"]
    assert after["pkg.calc.x_clamp__mutmut_3"] == before["pkg.calc.x_clamp__mutmut_2"]


def test_key_survives_lines_added_inside_the_function_above_the_change() -> None:
    # A docstring added to clamp moves the mutated comparison down a line
    # within the function: the change is the same, so the key (and the
    # mutant's history under it) must be too.
    signature = "(value, low, high):\n"
    documented = signature + '    """Keep value within [low, high]."""\n'
    before = _keys(ORIGINAL, MUTATED)
    after = _keys(ORIGINAL.replace(signature, documented), MUTATED.replace(signature, documented))
    for name in ("pkg.calc.x_clamp__mutmut_1", "pkg.calc.x_clamp__mutmut_2"):
        assert after[name] == before[name], name


def test_identical_changes_in_one_function_are_numbered_in_mutmut_order() -> None:
    twice = MUTATED.replace("return n + 2", "return n - 1")
    keys = _keys(ORIGINAL, twice)
    first, second = (
        keys["pkg.calc.xǁCounterǁbump__mutmut_1"],
        keys["pkg.calc.xǁCounterǁbump__mutmut_2"],
    )
    assert second == first + "~2"


def test_diff_is_against_the_original_file_with_its_line_numbers() -> None:
    described = describe_mutants("pkg/calc.py", "\n\n" + ORIGINAL, MUTATED, NAMES)
    clamp = described["pkg.calc.x_clamp__mutmut_2"]
    assert clamp.line == 6  # "if value > high:" is line 4 of ORIGINAL, two lines added above
    assert "-    if value > high:\n+    if value >= high:" in clamp.diff
    assert "@@ -5,3 +5,3 @@" in clamp.diff
    assert "def clamp(" not in clamp.diff.splitlines()[3]  # context is one line, not the name
    bump = described["pkg.calc.xǁCounterǁbump__mutmut_1"]
    assert (bump.original, bump.replacement) == ("return n + 1", "return n - 1")
    assert "x_clamp__mutmut" not in clamp.diff  # mutmut's copy names never reach the reader
