"""A mutant's key and diff, exactly as a committed baseline and a reviewer see them.

The keys of ``baselines/mutation.json`` (and its equivalents, written by a
person) are only worth keeping if the same mutant gets the same key in every
later sweep and every lanekit release: the key below is pinned. The diff is
the one a reviewer reads: the file's own path and line numbers, the names the
user wrote, one line of context.
"""

from __future__ import annotations

from lanes.mutation.keys import MutantSource, describe_mutants

ORIGINAL = """\
import os


def scale(value, factor=2):
    return value * factor


class Meter:
    def read(self, path):
        return open(
            path,
            encoding="utf-8",
        ).read()

    def size(self):
        return 0


def one(): return 1
"""

# mutants/pkg/calc.py in mutmut 3.8's layout (trampolines trimmed): the copy
# of each function next to its mutants, methods spelt xǁClassǁmethod.
MUTATED = """\
def scale(value, factor=2):
    return value * factor
def x_scale__mutmut_orig(value, factor=2):
    return value * factor
def x_scale__mutmut_2(value, factor=3):
    return value * factor
def x_scale__mutmut_10(value, factor=2):
    return value / factor
def x_scale__mutmut_9(value, factor=2):
    return value / factor


class Meter:
    def read(self, path):
        return open(
            path,
            encoding="utf-8",
        ).read()
    def xǁMeterǁread__mutmut_orig(self, path):
        return open(
            path,
            encoding="utf-8",
        ).read()
    def xǁMeterǁread__mutmut_1(self, path):
        return open(
            path,
            ).read()
    def size(self):
        return 0
    def xǁMeterǁsize__mutmut_orig(self):
        return 0
    def xǁMeterǁsize__mutmut_1(self):
        return 1
    def xǁMeterǁread__mutmut_2(self, path):
        return open(
            path,
            encoding="XXutf-8XX",
            errors="strict",
        ).read()
def one(): return 1
def x_one__mutmut_orig(): return 1
def x_one__mutmut_1(): return 2
"""

NAMES = (
    "pkg.calc.x_scale__mutmut_2",
    "pkg.calc.x_scale__mutmut_10",
    "pkg.calc.x_scale__mutmut_9",
    "pkg.calc.xǁMeterǁread__mutmut_1",
    "pkg.calc.xǁMeterǁsize__mutmut_1",
    "pkg.calc.xǁMeterǁread__mutmut_2",
    "pkg.calc.x_one__mutmut_1",
)
HEADER = "--- a/pkg/calc.py\n+++ b/pkg/calc.py\n"


def _described() -> dict[str, MutantSource]:
    return describe_mutants("pkg/calc.py", ORIGINAL, MUTATED, NAMES)


def test_a_mutant_of_the_def_line_is_keyed_and_placed_on_it() -> None:
    assert _described()["pkg.calc.x_scale__mutmut_2"] == MutantSource(
        name="pkg.calc.x_scale__mutmut_2",
        key="pkg/calc.py::scale::c008381de7c8",
        path="pkg/calc.py",
        function="scale",
        line=4,
        original="def scale(value, factor=2):",
        replacement="def scale(value, factor=3):",
        diff=HEADER
        + "@@ -4,2 +4,2 @@\n-def scale(value, factor=2):\n+def scale(value, factor=3):\n"
        + "     return value * factor",
    )


def test_the_same_change_twice_is_numbered_in_mutmuts_order_not_by_name() -> None:
    # By name "_10" sorts before "_9"; mutmut made _9 first, so _9 keeps the plain key.
    described = _described()
    diff = (
        HEADER + "@@ -4,2 +4,2 @@\n def scale(value, factor=2):\n"
        "-    return value * factor\n+    return value / factor"
    )
    first, second = (
        described["pkg.calc.x_scale__mutmut_9"],
        described["pkg.calc.x_scale__mutmut_10"],
    )
    assert (first.key, first.line, first.diff) == ("pkg/calc.py::scale::71442ce203b1", 5, diff)
    assert (second.key, second.line, second.diff) == ("pkg/calc.py::scale::71442ce203b1~2", 5, diff)
    assert (first.original, first.replacement) == ("return value * factor", "return value / factor")


def test_a_change_over_several_lines_keeps_them_all() -> None:
    assert _described()["pkg.calc.xǁMeterǁread__mutmut_1"] == MutantSource(
        name="pkg.calc.xǁMeterǁread__mutmut_1",
        key="pkg/calc.py::Meter.read::f7113e313d5d",
        path="pkg/calc.py",
        function="Meter.read",
        line=12,
        original='encoding="utf-8",\n).read()',
        replacement=").read()",
        diff=HEADER
        + '@@ -11,3 +11,2 @@\n             path,\n-            encoding="utf-8",\n'
        + "-        ).read()\n+            ).read()",
    )


def test_a_method_is_shown_under_the_name_the_user_wrote() -> None:
    size = _described()["pkg.calc.xǁMeterǁsize__mutmut_1"]
    assert (size.key, size.function, size.line) == (
        "pkg/calc.py::Meter.size::219f2463508b",
        "Meter.size",
        16,
    )
    assert size.diff == (
        HEADER + "@@ -15,2 +15,2 @@\n     def size(self):\n-        return 0\n+        return 1"
    )


def test_a_function_the_source_no_longer_has_keeps_its_key_without_a_line() -> None:
    # mutmut's file out of step with the source read: no line to point at, the
    # diff in the function's own lines, the key unchanged.
    original = ORIGINAL.replace("    def size(self):\n        return 0\n", "")
    size = describe_mutants("pkg/calc.py", original, MUTATED, NAMES)[
        "pkg.calc.xǁMeterǁsize__mutmut_1"
    ]
    assert (size.key, size.line) == ("pkg/calc.py::Meter.size::219f2463508b", None)
    assert size.diff == (
        HEADER + "@@ -1,2 +1,2 @@\n     def size(self):\n-        return 0\n+        return 1"
    )


def test_lines_a_mutant_adds_are_all_kept() -> None:
    read = _described()["pkg.calc.xǁMeterǁread__mutmut_2"]
    assert (read.key, read.line) == ("pkg/calc.py::Meter.read::9d9fb0770ffe", 12)
    assert (read.original, read.replacement) == (
        'encoding="utf-8",',
        'encoding="XXutf-8XX",\nerrors="strict",',
    )


def test_a_one_line_function_gets_a_one_line_hunk() -> None:
    one = _described()["pkg.calc.x_one__mutmut_1"]
    assert (one.key, one.line) == ("pkg/calc.py::one::2a4c36b3f962", 19)
    assert one.diff == HEADER + "@@ -19 +19 @@\n-def one(): return 1\n+def one(): return 2"
