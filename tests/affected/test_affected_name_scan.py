"""What one module's statements bind and read, as the name flow sees them.

The name flow narrows a module-level change to the recorded code that reads
what it changed; it is only as good as this scan: every name a statement binds,
every name its evaluation reads (resolved through imports to the module that
defines it), and what kind of statement it is (a plain binding the flow
follows, or a call, a write into an object, names bound by code, which it
cannot). Each case parses a small real module in-process.
"""

from __future__ import annotations

from lanes.affected.namescan import ALL, Module, Resolver, Stmt, parse_module

FILES = [
    "pkg/__init__.py",
    "pkg/consts.py",
    "pkg/calc.py",
    "pkg/sub/__init__.py",
    "pkg/sub/deep.py",
    "tests/test_x.py",
]
HERE = "pkg/calc.py"


def _scan(source: str, file: str = HERE, files: list[str] = FILES) -> Module:
    module, _ = parse_module(source.encode(), file, Resolver(files, ("",)))
    return module


def _stmt(source: str, file: str = HERE) -> Stmt:
    """The last module-level statement of ``source``."""
    return _scan(source, file).stmts[-1]


def _here(*names: str) -> set[tuple[str, str]]:
    return {(HERE, name) for name in names}


def test_a_resolver_maps_module_names_to_files_under_the_first_root() -> None:
    resolver = Resolver(
        ["src/pkg/a.py", "src/pkg/__init__.py", "tools/x-y.py", "top.py"], ("src", "")
    )
    # tools/x-y.py is no importable module; top.py is under the second root.
    assert resolver.by_module == {
        "pkg": "src/pkg/__init__.py",
        "pkg.a": "src/pkg/a.py",
        "top": "top.py",
    }
    assert resolver.roots == ("src", "")


def test_a_module_name_claimed_twice_keeps_the_first_file_in_path_order() -> None:
    resolver = Resolver(["b/pkg/m.py", "a/pkg/m.py"], ("a", "b"))
    assert resolver.by_module == {"pkg.m": "a/pkg/m.py"}


def test_relative_imports_resolve_from_the_importing_module() -> None:
    resolver = Resolver(FILES, ("",))
    assert resolver.absolute("pkg/calc.py", 0, "os.path") == "os.path"
    assert resolver.absolute("pkg/calc.py", 0, None) == ""
    assert resolver.absolute("pkg/calc.py", 1, "consts") == "pkg.consts"
    assert resolver.absolute("pkg/calc.py", 1, None) == "pkg"
    # In a package's __init__, one dot is the package itself.
    assert resolver.absolute("pkg/sub/__init__.py", 1, "deep") == "pkg.sub.deep"
    assert resolver.absolute("pkg/sub/deep.py", 2, "consts") == "pkg.consts"
    assert resolver.absolute("pkg/sub/deep.py", 2, None) == "pkg"
    assert resolver.absolute("pkg/sub/__init__.py", 2, None) == "pkg"


def test_an_import_binds_its_names_and_says_where_each_came_from() -> None:
    module = _scan(
        "import os\n"
        "import pkg.sub.deep\n"
        "import pkg.consts as c\n"
        "from pkg import consts, calc as k\n"
        "from pkg.consts import LIMIT as L, SCALE\n"
        "from .consts import LIMIT\n"
        "from ..outside import thing\n"
    )
    imports = [(s.kind, s.binds, s.sources) for s in module.stmts]
    assert imports == [
        ("import", {"os"}, {"os": None}),
        # `import a.b.c` binds `a`: the module object, read through.
        ("import", {"pkg"}, {"pkg": None}),
        ("import", {"c"}, {"c": None}),
        # A submodule bound by `from pkg import mod` is a module object too.
        ("import", {"consts", "k"}, {"consts": None, "k": None}),
        (
            "import",
            {"L", "SCALE"},
            {"L": ("pkg/consts.py", "LIMIT"), "SCALE": ("pkg/consts.py", "SCALE")},
        ),
        ("import", {"LIMIT"}, {"LIMIT": ("pkg/consts.py", "LIMIT")}),
        # A module outside the project: the name is bound, from nothing the flow follows.
        ("import", {"thing"}, {"thing": None}),
    ]
    assert module.stmts[4].value_refs == {("pkg/consts.py", "LIMIT"), ("pkg/consts.py", "SCALE")}
    assert module.stmts[3].value_refs == {
        ("pkg/__init__.py", "consts"),
        ("pkg/__init__.py", "calc"),
    }
    assert module.stmts[0].value_refs == set()


def test_a_star_import_names_the_file_it_reads_and_binds_nothing_by_name() -> None:
    module = _scan("from pkg.consts import *\nfrom .sub import *\nfrom os.path import *\n")
    assert [(s.kind, s.source, s.binds) for s in module.stmts] == [
        ("star", "pkg/consts.py", set()),
        ("star", "pkg/sub/__init__.py", set()),
        ("star", "", set()),
    ]


def test_a_future_import_is_no_project_name() -> None:
    module = _scan("from __future__ import annotations\nX = annotations\n")
    assert module.stmts[1].value_refs == _here("annotations")


def test_reads_through_a_module_alias_resolve_to_the_name_in_that_module() -> None:
    module = _scan(
        "import pkg.consts as c\n"
        "import pkg.sub.deep\n"
        "from pkg import consts\n"
        "from pkg import sub as s\n"
        "A = c.SCALE\n"
        "B = pkg.sub.deep.VALUE\n"
        "C = vars(consts)\n"
        "D = s.deep\n"
        "E = s.deep.VALUE.real\n"
        "F = c\n"
    )
    reads = [s.value_refs for s in module.stmts[4:]]
    assert reads == [
        {(HERE, "c"), ("pkg/consts.py", "SCALE")},
        {(HERE, "pkg"), ("pkg/sub/deep.py", "VALUE")},
        # The module passed on whole: any of its names may be read.
        {(HERE, "vars"), (HERE, "consts"), ("pkg/consts.py", ALL)},
        {(HERE, "s"), ("pkg/sub/deep.py", ALL)},
        {(HERE, "s"), ("pkg/sub/deep.py", "VALUE")},
        {(HERE, "c"), ("pkg/consts.py", ALL)},
    ]


def test_an_attribute_of_something_else_reads_only_its_root_name() -> None:
    assert _stmt("X = obj.attr.deeper\n").value_refs == _here("obj")
    assert _stmt("X = f().attr\n").value_refs == _here("f")


def test_statements_are_sorted_into_what_the_flow_can_follow() -> None:
    kinds = [
        (s.kind, s.binds)
        for s in _scan(
            '"""The docstring."""\n'
            "X = 1\n"
            "Y: int = X\n"
            "Z: int\n"
            "X\n"
            "print(X)\n"
            "X.attr = 2\n"
            "X[0] = 3\n"
            "X += 4\n"
            "del X[0]\n"
            "del Y\n"
            "locals().update({'a': 1})\n"
            "globals()['b'] = 2\n"
            "vars(X)\n"
            "for n in range(3):\n    setattr(X, 'x', n)\n"
            "for n in range(3):\n    Y = n\n"
            "if X:\n    X.flag = True\n"
            "try:\n    import json\nexcept ImportError:\n    json.x = None\n"
            "try:\n    import json\nexcept ImportError:\n    json = None\n"
            "with X:\n    W = 1\n"
            "Q = [n for n in range(3)]\n"
            "(A, [B, *C]) = D = 1, [2, 3]\n"
            "X.a.b = 5\n"
            "o = lambda: print(1)\n"
        ).stmts
    ]
    assert kinds == [
        ("doc", set()),
        ("plain", {"X"}),
        ("plain", {"Y"}),
        ("plain", {"Z"}),
        ("plain", set()),
        ("call", set()),
        # Writes into an existing object: it may be shared with another module.
        ("call", {"X"}),
        ("call", {"X"}),
        ("call", {"X"}),
        ("call", {"X"}),
        ("plain", {"Y"}),
        # Names bound by code: any name of the module may change.
        ("computed", set()),
        ("computed", set()),
        ("call", set()),
        ("call", {"n"}),
        ("plain", {"n", "Y"}),
        ("call", {"X"}),
        ("call", {"json"}),
        ("plain", {"json"}),
        ("plain", {"W"}),
        ("plain", {"Q", "n"}),
        ("plain", {"A", "B", "C", "D"}),
        ("call", {"X"}),
        # A lambda's body runs when called: binding it calls nothing.
        ("plain", {"o"}),
    ]


def test_a_docstring_is_a_constant_expression_anywhere_at_module_level() -> None:
    module = _scan("X = 1\n'not the first string'\n42\n")
    assert [s.kind for s in module.stmts] == ["plain", "doc", "doc"]
    assert (module.stmts[1].line, module.stmts[1].end) == (2, 2)


def test_a_statement_spans_its_lines_and_a_decorated_one_starts_at_its_decorator() -> None:
    module = _scan("X = [\n    1,\n]\n\n\n@property\n@other(\n    1\n)\ndef f():\n    return 1\n")
    assert [(s.line, s.end) for s in module.stmts] == [(1, 3), (6, 11)]


def test_a_function_definition_reads_its_defaults_and_decorators_when_defined() -> None:
    stmt = _stmt(
        "@deco(D)\n"
        "def f(a: A, /, b: B = X, *args: V, c: C = Y, d=None, **kw: K) -> R:\n"
        "    return Z\n"
    )
    assert stmt.kind == "def"
    assert stmt.binds == {"f"}
    assert stmt.value_refs == _here("deco", "D", "A", "B", "X", "V", "C", "Y", "K", "R")
    assert stmt.body_refs == _here("Z")
    assert stmt.base_refs == set()


def test_postponed_annotations_are_not_read_when_a_function_is_defined() -> None:
    source = "from __future__ import annotations\n\n\ndef f(a: A = X) -> R:\n    return Z\n"
    assert _stmt(source).value_refs == _here("X")
    # Another __future__ import does not postpone them.
    source = "from __future__ import division\n\n\ndef f(a: A = X) -> R:\n    return Z\n"
    assert _stmt(source).value_refs == _here("A", "X", "R")


def test_a_class_reads_its_body_when_defined_and_its_methods_when_called() -> None:
    stmt = _stmt(
        "@dataclass\n"
        "class Box(Base, metaclass=Meta):\n"
        "    SIDE: int = L\n"
        "    size = lambda self, n=N: n * M\n"
        "\n"
        "    class Inner(InnerBase):\n"
        "        DEPTH = P\n"
        "\n"
        "    @staticmethod\n"
        "    def area(n: T = S) -> U:\n"
        "        return Q\n"
    )
    assert stmt.kind == "def"
    assert stmt.binds == {"Box"}
    # Class bases are kept apart: a base whose methods changed changes behaviour only.
    assert stmt.base_refs == _here("Base", "Meta")
    # A lambda bound in the class body is read whole when the class is defined.
    assert stmt.value_refs == _here(
        "dataclass", "int", "L", "n", "N", "M", "InnerBase", "P", "staticmethod", "T", "S", "U"
    )
    assert stmt.body_refs == _here("Q")
    assert stmt.decorated is False


def test_a_decorator_that_may_register_the_definition_elsewhere_is_marked() -> None:
    plain = (
        "@property\n@functools.wraps(g)\n@lru_cache(maxsize=2)\n@cache\n@abstractmethod\n"
        "@classmethod\n@staticmethod\n@cached_property\n@total_ordering\n"
        "@x.setter\n@x.getter\n@x.deleter\n@dataclass(frozen=True)\ndef f():\n    pass\n"
    )
    assert _stmt(plain).decorated is False
    assert _stmt("@app.route('/')\ndef f():\n    pass\n").decorated is True
    assert _stmt("@register\nclass C:\n    pass\n").decorated is True
    # A method registered from inside a class registers the class's code too.
    assert _stmt("class C:\n    @hook\n    def m(self):\n        pass\n").decorated is True
    assert _stmt("class C:\n    @property\n    def m(self):\n        pass\n").decorated is False
    assert _stmt("def f():\n    pass\n").decorated is False


def test_a_function_reads_the_module_names_its_own_names_do_not_shadow() -> None:
    module = _scan(
        "import pkg.consts as c\n"
        "\n"
        "\n"
        "def f(a, /, b, *args, k, **kw):\n"
        "    global G\n"
        "    G = a + b + k + len(args) + len(kw)\n"
        "    x = X\n"
        "    for i in I:\n"
        "        pass\n"
        "    try:\n"
        "        pass\n"
        "    except E as err:\n"
        "        print(err)\n"
        "    import pkg.calc as inner\n"
        "\n"
        "    def helper(q=Q):\n"
        "        return q + N + x\n"
        "\n"
        "    class Local:\n"
        "        pass\n"
        "\n"
        "    return x + i + c.SCALE + inner.F + helper() + Local + G\n"
        "\n"
        "\n"
        "def g(c):\n"
        "    return c.SCALE\n"
    )
    assert module.functions["f"] == {
        (HERE, "G"),
        (HERE, "X"),
        (HERE, "I"),
        (HERE, "E"),
        (HERE, "print"),
        (HERE, "len"),
        (HERE, "Q"),
        (HERE, "N"),
        (HERE, "q"),
        (HERE, "c"),
        ("pkg/consts.py", "SCALE"),
        # An import inside the function still reads the module it names.
        (HERE, "inner"),
        (HERE, "F"),
    }
    # A parameter named like a module alias reads nothing of that module.
    assert module.functions["g"] == set()


def test_a_nonlocal_name_is_no_local_of_the_function_declaring_it() -> None:
    module = _scan(
        "def outer():\n"
        "    n = 0\n"
        "\n"
        "    def inner():\n"
        "        nonlocal n\n"
        "        n = 1\n"
        "        return n\n"
        "\n"
        "    return inner\n"
    )
    assert module.functions["outer.<locals>.inner"] == _here("n")
    assert module.functions["outer"] == set()


def test_a_comprehensions_own_names_are_not_locals_of_the_function() -> None:
    module = _scan("def f():\n    return [i for i in I]\n")
    assert module.functions["f"] == _here("i", "I")


def test_functions_are_named_as_the_recorded_map_names_them() -> None:
    module = _scan(
        "class A:\n"
        "    def m(self):\n"
        "        return X\n"
        "\n"
        "    class B:\n"
        "        async def n(self):\n"
        "            return Y\n"
        "\n"
        "\n"
        "if FLAG:\n"
        "    def cond():\n"
        "        def inner():\n"
        "            return Z\n"
        "        return inner\n"
        "\n"
        "\n"
        "async def top():\n"
        "    pass\n"
    )
    assert module.functions == {
        "A.m": _here("X"),
        "A.B.n": _here("Y"),
        # A function reads what its nested functions read.
        "cond": _here("Z"),
        "cond.<locals>.inner": _here("Z"),
        "top": set(),
    }
    assert module.defs == {"A", "top"}


def test_a_module_level_getattr_and_a_literal_all_are_found() -> None:
    module = _scan("def __getattr__(name):\n    return name\n__all__ = ['X', 'Y', 3]\n")
    assert module.getattr_hook is True
    assert module.public == {"X", "Y"}
    assert module.defs == {"__getattr__"}
    module = _scan("async def __getattr__(name):\n    return name\n__all__ = ('Z',)\n")
    assert module.getattr_hook is True
    assert module.public == {"Z"}
    module = _scan("class __getattr__:\n    pass\n")
    assert module.getattr_hook is True


def test_without_a_literal_all_every_public_name_is_exported() -> None:
    assert _scan("X = 1\n").public is None
    assert _scan("__all__ = NAMES + ['X']\n").public is None
    assert _scan("other = ['X']\n__all__: list[str] = ['Y']\n").public is None
    assert _scan("__all__ = other = ['X']\n").public == {"X"}
    assert _scan("def f():\n    __all__ = ['X']\n").public is None
    assert _scan("def f():\n    pass\n").getattr_hook is False


def test_a_star_import_inside_a_compound_statement_reads_the_whole_module() -> None:
    stmt = _stmt("if FLAG:\n    from pkg.consts import *\n")
    assert (stmt.kind, stmt.binds) == ("plain", set())
    assert stmt.value_refs == {(HERE, "FLAG"), ("pkg/consts.py", ALL)}


def test_a_definition_inside_a_compound_statement_binds_its_name_and_runs_nothing() -> None:
    stmt = _stmt("if FLAG:\n    def helper():\n        print(1)\n\n    class Box:\n        pass\n")
    # The function's body runs when it is called, not when the `if` runs.
    assert (stmt.kind, stmt.binds) == ("plain", {"helper", "Box"})


def test_relative_imports_in_a_function_and_module_aliases_resolve_from_the_package() -> None:
    module = _scan(
        "from . import consts as cc\n"
        "X = cc.LIMIT\n"
        "\n"
        "\n"
        "def f():\n"
        "    from . import calc\n"
        "    from .consts import SCALE\n"
        "    return calc, SCALE\n"
    )
    assert module.stmts[1].value_refs == {(HERE, "cc"), ("pkg/consts.py", "LIMIT")}
    # The names an import in a function binds are read as module names too (the
    # import does not make them locals); `calc` is this very module, used whole.
    assert module.functions["f"] == {
        ("pkg/__init__.py", "calc"),
        ("pkg/consts.py", "SCALE"),
        *_here("calc", "SCALE", ALL),
    }


def test_import_of_a_missing_submodule_still_binds_its_package() -> None:
    # `import pkg.gone` binds `pkg` (a generated or optional submodule): pkg's modules resolve.
    stmt = _stmt("import pkg.gone\nX = pkg.consts.LIMIT\n")
    assert stmt.value_refs == {(HERE, "pkg"), ("pkg/consts.py", "LIMIT")}


def test_three_dots_climb_two_packages() -> None:
    files = ["pkg/__init__.py", "pkg/a/__init__.py", "pkg/a/b/__init__.py", "pkg/a/b/c.py"]
    resolver = Resolver(files, ("",))
    assert resolver.absolute("pkg/a/b/c.py", 3, "x") == "pkg.x"
    assert resolver.absolute("pkg/a/b/__init__.py", 3, None) == "pkg"


def test_reads_through_an_alias_in_defaults_decorators_and_bases_resolve_to_that_module() -> None:
    stmt = _stmt(
        "import pkg.consts as c\n"
        "\n"
        "\n"
        "@c.register\n"
        "class Box(c.Base):\n"
        "    def size(self, n=c.SCALE):\n"
        "        return n\n"
        "\n"
        "    class Inner:\n"
        "        def m(self, a: IA) -> IR:\n"
        "            return a\n"
    )
    assert stmt.base_refs == {(HERE, "c"), ("pkg/consts.py", "Base")}
    assert stmt.value_refs == {
        (HERE, "c"),
        ("pkg/consts.py", "register"),
        ("pkg/consts.py", "SCALE"),
        # A nested class's methods' annotations are evaluated when it is defined.
        (HERE, "IA"),
        (HERE, "IR"),
    }
    assert stmt.decorated is True


def test_a_functions_locals_include_names_bound_after_a_nested_definition_or_comprehension() -> (
    None
):
    module = _scan(
        "def f(flag):\n"
        "    if flag:\n"
        "        def g():\n"
        "            pass\n"
        "        y = 1\n"
        "    for item in [j for j in J]:\n"
        "        total = item\n"
        "    return y + total\n"
    )
    assert module.functions["f"] == _here("J", "j")


def test_a_getattr_hook_is_found_wherever_it_is_defined_among_the_functions() -> None:
    module = _scan("def __getattr__(name):\n    return name\n\n\ndef after():\n    pass\n")
    assert module.getattr_hook is True


def test_a_decorator_of_any_expression_may_register_the_definition() -> None:
    assert _stmt("@HANDLERS['x']\ndef f():\n    pass\n").decorated is True
    assert _stmt("@(lambda g: g)\ndef f():\n    pass\n").decorated is True
