"""The array API's layering, read from the source with ast: the chapters (the standard's
modules, npu_emu/array_api/_*.py, fft.py, linalg.py) sit over one engine
(npu_emu/array_api/_engine/), the engine never reaches up into a chapter, nothing forms an
import cycle, no module imports another's private names, and every public function and Array
method is defined by name (no globals().update / setattr at import time)."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import npu_emu.array_api as xp

PACKAGE = "npu_emu.array_api"
ROOT = Path(xp.__file__).parent
ENGINE = PACKAGE + "._engine"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}

# The only deferred imports the engine has: the Array's methods reach the operations that
# import the Array class (operators, [], interchange), and __array_namespace__ returns the
# namespace itself.
DEFERRED_OK = {(ENGINE + ".array", ENGINE + ".ufunc"), (ENGINE + ".array", ENGINE + ".indexing"),
               (ENGINE + ".array", ENGINE + ".interop"), (ENGINE + ".array", ENGINE + ".protocols"),
               (ENGINE + ".array", PACKAGE)}


def _resolve(module: str, node: ast.ImportFrom) -> str:
    base = module if MODULES[module].name == "__init__.py" else module.rsplit(".", 1)[0]
    for _ in range(node.level - 1):
        base = base.rsplit(".", 1)[0]
    return f"{base}.{node.module}" if node.module else base


def _imports(module: str) -> list[tuple[str, str | None, bool]]:
    """(imported module, imported name or None, deferred: inside a function) per import of
    something in this package."""
    tree = ast.parse(MODULES[module].read_text())
    out = []

    def visit(node: ast.AST, deferred: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = deferred or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.ImportFrom) and child.level:
                target = _resolve(module, child)
                for alias in child.names:
                    sub = f"{target}.{alias.name}"
                    if sub in MODULES:                # `from . import fft`: the module
                        out.append((sub, None, inner))
                    elif target in MODULES:
                        out.append((target, alias.name, inner))
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.startswith(PACKAGE):
                        out.append((alias.name, None, inner))
            visit(child, inner)
    visit(tree, False)
    return out


GRAPH = {m: _imports(m) for m in MODULES}


def _is_chapter(module: str) -> bool:
    return module != PACKAGE and not module.startswith(ENGINE)


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(edges.get(m, ())):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = walk(n)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state:
            found = walk(m)
            if found:
                return found
    return None


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_imports(module):
    importlib.import_module(module)


def test_no_import_cycles():
    top = {m: {t for t, _, deferred in imps if not deferred and t != m}
           for m, imps in GRAPH.items()}
    assert _cycle(top) is None, f"module-level import cycle: {' -> '.join(_cycle(top))}"
    every = {m: {t for t, _, _ in imps if t != m and (m, t) not in DEFERRED_OK}
             for m, imps in GRAPH.items()}
    assert _cycle(every) is None, f"import cycle: {' -> '.join(_cycle(every))}"


def test_the_engine_never_imports_a_chapter():
    bad = [(m, t) for m, imps in GRAPH.items() if m.startswith(ENGINE)
           for t, _, _ in imps if not t.startswith(ENGINE) and (m, t) not in DEFERRED_OK]
    assert not bad, f"engine modules import chapters: {bad}"


def test_no_module_imports_another_modules_private_names():
    bad = [(m, t, name) for m, imps in GRAPH.items() for t, name, _ in imps
           if name is not None and name.startswith("_") and not name.startswith("__")
           and t != m]
    assert not bad, f"private names imported across modules: {bad}"


def test_the_layering_check_sees_the_real_imports():
    # The checks above are only as good as the graph: it holds the edges we know exist.
    assert (ENGINE + ".ufunc", "binary", False) in GRAPH[PACKAGE + "._elementwise"]
    assert any(t == ENGINE + ".ufunc" and d for t, _, d in GRAPH[ENGINE + ".array"])
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]


def _dynamic_definitions(module: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Call) and \
                    isinstance(f.value.func, ast.Name) and f.value.func.id == "globals":
                found.append(f"globals().{f.attr} at line {node.lineno}")
            if isinstance(f, ast.Name) and f.id == "setattr":
                found.append(f"setattr at line {node.lineno}")
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_functions_and_methods_are_defined_by_name(module):
    assert _dynamic_definitions(module) == []


def test_every_public_name_and_operator_has_a_definition():
    """grep lands on `def name` for each public function, and on `def __op__` in the Array
    class for each operator."""
    defined = set()
    for m in MODULES:
        for node in ast.walk(ast.parse(MODULES[m].read_text())):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defined.add(node.name)
    public = [n for n in xp.__all__ if callable(getattr(xp, n)) and
              not isinstance(getattr(xp, n), type) and not n.startswith("__")
              and getattr(xp, n).__module__.startswith(PACKAGE)]    # not soc, set_soc
    assert [n for n in public if n not in defined] == []
    array_src = ast.parse(MODULES[ENGINE + ".array"].read_text())
    cls = next(n for n in array_src.body if isinstance(n, ast.ClassDef) and n.name == "Array")
    methods = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
               "lshift", "rshift", "matmul"):
        assert {f"__{op}__", f"__r{op}__", f"__i{op}__"} <= methods, op
    assert {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__abs__", "__neg__",
            "__pos__", "__invert__"} <= methods


def test_the_operator_answers_whether_it_takes_a_call():
    """Add / Mul say themselves which dtypes they take (OpDef.supports); the front end asks
    instead of reading their tables. Reference: the SoC dtype lists (npu_emu/arch.py) and
    Add's Axpy branch, which computes int32 x + alpha*y in float32 for alpha != 1."""
    from npu_emu.arch import current_soc
    from npu_emu.dtypes import aclDataType as DT
    from npu_emu.ops.add import ADD
    from npu_emu.ops.mul import MUL
    from npu_emu.array_api._engine import kernel
    ctx = kernel.context(xp.asarray(0.0)._st.backend)
    i32, f32, hif8 = DT.ACL_INT32, DT.ACL_FLOAT, DT.ACL_HIFLOAT8
    assert ADD.supports((f32, f32), ctx, {"alpha": -1})
    assert ADD.supports((i32, i32), ctx, {"alpha": 1})
    axpy_int32 = current_soc().name != "Ascend950"
    assert ADD.supports((i32, i32), ctx, {"alpha": -1}) is not axpy_int32
    assert not ADD.supports((hif8, hif8), ctx) and not MUL.supports((hif8, f32), ctx)
    assert MUL.supports((f32, i32), ctx)
    assert kernel.binary_operator("subtract", (f32, f32), f32, ctx.backend)[0] is ADD
    assert (kernel.binary_operator("subtract", (i32, i32), i32, ctx.backend) is None) \
        is axpy_int32


def test_the_elementwise_chapter_matches_its_tables():
    """_elementwise.py was written from the engine's tables: one `def name` per row, each
    calling the entry of its kind with its own name (binary rows two operands, unary one)."""
    from npu_emu.array_api._engine.ufunc import BINARY, UNARY
    tree = ast.parse(MODULES[PACKAGE + "._elementwise"].read_text())
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert sorted(defs) == sorted([*BINARY, *UNARY])
    for name, node in defs.items():
        call = node.body[-1].value
        entry, arity = ("binary", 2) if name in BINARY else ("unary", 1)
        assert isinstance(call, ast.Call) and call.func.id == entry, name
        assert call.args[0].value == name and len(call.args) == arity + 1, name
        assert len(node.args.posonlyargs) == arity, name
