"""A mutant's stable identity and the diff a reviewer reads, from mutmut's mutated files.

mutmut names a mutant by its function and a counter (``pkg.mod.x_func__mutmut_7``);
the counter shifts whenever a mutation is added or removed earlier in the
function, so last week's ``_7`` is not this week's. The key built here keeps
what a reader means by "the same mutant": the file, the function's qualified
name, and a hash of the lines the mutation changes (removed and added, stripped
of indentation) — an edit elsewhere in the file, or a line moved within the
function, leaves it unchanged. Two mutants with the same change in the same
function (rare: the same expression twice on one line) get ``~2``, ``~3``
suffixes in mutmut's order.

The mutated file ``mutants/<path>`` holds, for every function, a copy of the
original (``x_func__mutmut_orig``) next to each mutant (``x_func__mutmut_N``);
methods are spelt ``xǁClassǁmethod``. Reading those copies is all this module
does: it never creates a mutant.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["MutantSource", "describe_mutants", "function_of", "qualname_of"]

_MARK: Final = "__mutmut_"
_CLASS_SEPARATOR: Final = "ǁ"
_HUNK: Final = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


@dataclass(frozen=True)
class MutantSource:
    """What mutmut's mutated file says about one mutant."""

    name: str  # mutmut's name, valid for this run only
    key: str  # stable across unrelated edits
    path: str
    function: str  # qualified name: "clamp", "Counter.bump"
    line: int | None  # the first changed line in the original file
    original: str  # the changed lines as they were (stripped, joined by newlines)
    replacement: str  # the changed lines as the mutant has them
    diff: str  # a unified diff against the original file, in its line numbers


def function_of(name: str) -> str:
    """``pkg.mod.xǁCǁm__mutmut_3`` -> ``xǁCǁm`` (the mangled function, no module)."""
    mangled = name.rpartition(_MARK)[0]
    return mangled.rpartition(".")[2]


def qualname_of(mangled: str) -> str:
    """``x_func`` -> ``func``; ``xǁClassǁmethod`` -> ``Class.method``."""
    if mangled.startswith("x" + _CLASS_SEPARATOR):
        return ".".join(mangled[2:].split(_CLASS_SEPARATOR))
    return mangled.removeprefix("x_")


def _function_spans(tree: ast.Module) -> dict[str, tuple[int, int]]:
    """Every function and method (any depth) by name -> (first line, last line)."""
    spans: dict[str, tuple[int, int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            spans.setdefault(node.name, (node.lineno, node.end_lineno or node.lineno))
    return spans


def _original_def_lines(source: str) -> dict[str, int]:
    """Qualified name -> the line of its ``def`` in the original file."""
    lines: dict[str, int] = {}

    def visit(body: Iterable[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines.setdefault(prefix + node.name, node.lineno)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")

    visit(ast.parse(source).body, "")
    return lines


def _shift_hunks(diff_lines: Iterable[str], offset: int) -> list[str]:
    """Renumber hunk headers from function-relative to file lines."""
    out = []
    for line in diff_lines:
        match = _HUNK.match(line)
        if match is None:
            out.append(line)
            continue
        old = int(match.group(1)) + offset
        new = int(match.group(3)) + offset
        out.append(f"@@ -{old}{match.group(2) or ''} +{new}{match.group(4) or ''} @@")
    return out


def _change(orig: list[str], mutant: list[str]) -> tuple[list[str], list[str], int]:
    """(removed lines, added lines, index of the first changed line in ``orig``)."""
    removed: list[str] = []
    added: list[str] = []
    first = -1
    matcher = difflib.SequenceMatcher(a=orig, b=mutant, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if first < 0:
            first = i1
        removed.extend(line.strip() for line in orig[i1:i2])
        added.extend(line.strip() for line in mutant[j1:j2])
    return removed, added, max(first, 0)


def describe_mutants(
    path: str, original_source: str, mutated_source: str, names: Iterable[str]
) -> dict[str, MutantSource]:
    """Describe each mutant ``names`` (mutmut's names) of the file ``path``.

    ``original_source`` is the file as the user wrote it, ``mutated_source``
    mutmut's ``mutants/<path>``.
    """
    mutated_lines = mutated_source.splitlines()
    spans = _function_spans(ast.parse(mutated_source))
    def_lines = _original_def_lines(original_source)

    def body(function_name: str, display: str) -> list[str]:
        start, end = spans[function_name]
        text = mutated_lines[start - 1 : end]
        # The copy is named x_func__mutmut_N; show the name the user wrote.
        text[0] = text[0].replace(function_name, display, 1)
        return text

    described: dict[str, MutantSource] = {}
    seen: dict[str, int] = {}
    # mutmut's own order (by counter) decides which duplicate gets ~2.
    for name in sorted(names, key=_mutmut_order):
        mangled = function_of(name)
        qualname = qualname_of(mangled)
        plain = qualname.rpartition(".")[2]
        local = mangled + name[name.rindex(_MARK) :]
        orig_lines = body(mangled + _MARK + "orig", plain)
        mutant_lines = body(local, plain)
        removed, added, first = _change(orig_lines, mutant_lines)
        digest = hashlib.sha256(
            "\0".join((qualname, "\n".join(removed), "\n".join(added))).encode()
        ).hexdigest()[:12]
        key = f"{path}::{qualname}::{digest}"
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key = f"{key}~{seen[key]}"
        def_line = def_lines.get(qualname)
        offset = def_line - 1 if def_line is not None else 0
        diff = _shift_hunks(
            difflib.unified_diff(
                orig_lines, mutant_lines, f"a/{path}", f"b/{path}", n=1, lineterm=""
            ),
            offset,
        )
        described[name] = MutantSource(
            name=name,
            key=key,
            path=path,
            function=qualname,
            line=None if def_line is None else def_line + first,
            original="\n".join(removed),
            replacement="\n".join(added),
            diff="\n".join(diff),
        )
    return described


def _mutmut_order(name: str) -> tuple[str, int]:
    stem, _, number = name.rpartition(_MARK)
    return (stem, int(number) if number.isdigit() else 0)
