"""No import cycle among unitensor's modules, and imports only go down the layers.

Each module's imports (read with ``ast``; not those under ``if TYPE_CHECKING:``)
must form an acyclic graph, so that no module works only because of the order in
which the others happen to be imported: once counting only the imports run at
import time, once counting those inside functions too (a loop closed there works
only by the order of calls). The layers are those docs/architecture.md lists,
bottom up, read from that page: a module imports only its own layer and those
below. A framework is imported only by its own backend package or wrap part,
or where ``FRAMEWORK_IMPORTS`` says why.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "unitensor"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def known_modules() -> dict[str, Path | None]:
    """unitensor's modules: its Python files, and its C extensions (built or not)."""
    modules: dict[str, Path | None] = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    for built in (*PACKAGE.rglob("*.so"), *PACKAGE.rglob("*.pyd")):
        modules.setdefault(module_name(built.with_name(built.name.split(".")[0])), None)
    for source in (ROOT / "ext").glob("*.c"):  # setup.py: ext/NAME.c -> unitensor.NAME
        modules.setdefault(f"unitensor.{source.stem}", None)
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def module_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The imports run when the module is imported: at its top level, in class
    bodies and in if/try/with blocks, but not in functions or TYPE_CHECKING."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.append(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            elif isinstance(node, ast.If):
                if not _is_type_checking(node.test):
                    visit(node.body)
                visit(node.orelse)
            else:
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    for child in getattr(node, field, None) or ():
                        visit(child.body if isinstance(
                            child, (ast.ExceptHandler, ast.match_case)) else [child])
    visit(tree.body)
    return found


def all_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import of a module, inside functions too (not TYPE_CHECKING)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for other in child.orelse:
                    visit_statement(other)
                continue
            visit_statement(child)

    def visit_statement(child: ast.AST) -> None:
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            found.append(child)
        visit(child)
    visit(tree)
    return found


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def import_graph(reader: Callable[[ast.Module], list[ast.Import | ast.ImportFrom]]
                 | None = None) -> dict[str, set[str]]:
    """module -> the unitensor modules its module-level imports run.

    Importing ``a.b.c`` runs ``a.b`` first, so that counts as an import of
    ``a.b`` too, except where ``a.b`` is a package the importer is itself in
    (it is being imported already).
    """
    modules = known_modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        if path is None:
            continue
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: list[str] = []
        for node in (reader or module_level_imports)(ast.parse(path.read_text(),
                                                                str(path))):
            if isinstance(node, ast.Import):
                targets += [alias.name for alias in node.names]
                continue
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:  # a submodule, or a name in ``source``
                full = f"{source}.{alias.name}"
                targets.append(full if full in modules else source)
        for target in targets:
            while target and target not in modules:  # ``import a.b.attr``
                target = target.rpartition(".")[0]
            if not target:
                continue  # not one of unitensor's modules
            inside = set(_ancestors(name))
            for implied in (*_ancestors(target), target):
                if implied != name and implied not in inside and implied in modules:
                    graph[name].add(implied)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (its modules in order, the first repeated at the
    end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_no_import_cycle_among_unitensor_modules():
    graph = import_graph()
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_the_graph_sees_the_imports():
    """The checker reads what it should (or the test above proves nothing)."""
    graph = import_graph()
    assert {"unitensor._tensor", "unitensor._convert", "unitensor._fastpath"} <= graph[
        "unitensor._dispatch"]
    assert "unitensor._fast" in graph["unitensor._fastpath"]  # a C extension
    assert "unitensor._backends" in graph["unitensor._convert"]  # via _backends._dlpack
    assert "unitensor._backends._dlpack" in graph["unitensor._backends.torch.interop"]
    assert "unitensor._backends.numpy.namespace" in graph[
        "unitensor._backends.torch.namespace"]
    assert "unitensor._fastpath" in graph["unitensor._tensor"]
    # the registry imports the adapter contract only for type checking
    assert "unitensor._backends._adapter" not in graph["unitensor._backends"]


def test_the_checker_finds_a_cycle_and_ignores_lazy_and_type_checking_imports():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a"}}) is None
    tree = ast.parse(
        "import os\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from . import hidden\nelse:\n    from . import shown\n"
        "try:\n    from . import tried\n"
        "except ImportError:\n    from . import fallback\n"
        "def f():\n    from . import lazy\n"
        "class C:\n    from . import in_class\n")
    names = [alias.name for node in module_level_imports(tree) for alias in node.names]
    assert names == ["os", "TYPE_CHECKING", "shown", "tried", "fallback", "in_class"]


def test_no_import_cycle_counting_imports_inside_functions():
    cycle = find_cycle(import_graph(all_imports))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def layers() -> list[list[str]]:
    """The layer order docs/architecture.md states: its numbered list under
    'Layer order', each item's module patterns in backquotes."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.partition("**Layer order**")[2].partition("\n\n")[2]
    found = []
    for line in section.splitlines():
        if not re.match(r"\d+\. ", line):
            break
        found.append(re.findall(r"`([\w.*]+)`", line))
    return found


def _layer(name: str, order: list[list[str]]) -> int | None:
    for i, patterns in enumerate(order):
        if any(fnmatch.fnmatchcase(name, p if p == "unitensor" else f"unitensor.{p}")
               for p in patterns):
            return i
    return None


def test_every_module_has_a_layer_and_imports_only_down():
    order = layers()
    assert len(order) >= 10, order
    graph = import_graph(all_imports)
    unplaced = sorted(m for m in graph if _layer(m, order) is None)
    assert not unplaced, f"not in docs/architecture.md's layer order: {unplaced}"
    upward = sorted(f"{m} -> {t}" for m, targets in graph.items() for t in targets
                    if _layer(t, order) > _layer(m, order))  # type: ignore[operator]
    assert not upward, f"imports up the layers: {upward}"


# Frameworks (top-level modules) and the backend package that owns each.
OWNERS = {"torch": "torch", "jax": "jax", "jaxlib": "jax", "tensorflow": "tensorflow",
          "cupy": "cupy", "cupyx": "cupy", "dask": "dask", "distributed": "dask",
          "array_api_strict": "array_api_strict", "numpy": "numpy",
          "warp": "warp", "drjit": "drjit",
          "ml_dtypes": None, "array_api_compat": None, "triton": None, "numba": None}
# (module, framework) imported outside its owner's rooms, and why.
FRAMEWORK_IMPORTS = {
    ("unitensor.__main__", "jax"): "the main job turns on x64 (float64 stays so)",
    ("unitensor._compile", "torch"): "Dynamo's twins, once torch._dynamo is imported",
    ("unitensor._backends._dtype_tables", "ml_dtypes"): "bfloat16, where installed",
    ("unitensor._backends._dtype_tables", "numpy"): "every table maps numpy's dtypes",
    ("unitensor._backends._fixes", "numpy"): "numpy's reference results for fixes",
    ("unitensor._data_type_functions", "ml_dtypes"): "finfo of bfloat16",
    ("unitensor._data_type_functions", "numpy"): "finfo/iinfo through numpy's",
    ("unitensor._convert", "numpy"): "__array__ objects, read as numpy reads them",
    ("unitensor._views", "numpy"): "numpy decides whether a view's reshape is a view",
    ("unitensor.__main__", "numpy"): "the main job's data",
    ("unitensor._numba", "numba"): "numba's extension, which numba loads (entry point)",
    ("unitensor._numba", "numpy"): "numba reads a Tensor as its numpy view",
    ("unitensor.dask", "dask"): "ut.dask, the public dask extras (loaded on use)",
    ("unitensor.dask", "numpy"): "ut.dask.chunked splits numpy arrays",
    ("unitensor._backends._triton", "triton"): "before TensorFlow, where installed "
    "(after it, torch._dynamo's import of triton aborts the process)",
    ("unitensor._backends._triton", "drjit"): "before TensorFlow, where installed "
    "(after it, Dr.Jit's LLVM backend crashes the process)",
}


def _framework_imports() -> set[tuple[str, str]]:
    found = set()
    for name, path in known_modules().items():
        if path is None:
            continue
        for node in all_imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level:
                continue
            heads = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""])
            found |= {(name, h.partition(".")[0]) for h in heads
                      if h.partition(".")[0] in OWNERS}
    return found


def _own_room(module: str, framework: str) -> bool:
    owner = OWNERS[framework]
    parts = module.split(".")
    in_backends = parts[1:3] == ["_backends", owner]
    in_wrap = len(parts) > 2 and parts[1] == "_wrap" and parts[2].startswith(
        f"{owner}")
    shared = framework in ("ml_dtypes", "array_api_compat", "numpy") and (
        (parts[1] == "_backends" and len(parts) > 3)  # within a backend package
        or (parts[1] == "_wrap" and len(parts) > 2))  # or a wrap part
    return (owner is not None and (in_backends or in_wrap)) or shared


@pytest.mark.slow  # parses every module and follows its imports: ~9 s
def test_frameworks_are_imported_only_in_their_rooms():
    stray = sorted(f"{m} imports {f}" for m, f in _framework_imports()
                   if not _own_room(m, f) and (m, f) not in FRAMEWORK_IMPORTS)
    assert not stray, stray
    stale = sorted(k for k in FRAMEWORK_IMPORTS if k not in _framework_imports())
    assert not stale, f"FRAMEWORK_IMPORTS names imports that are gone: {stale}"


def test_the_checkers_read_what_they_should():
    tree = ast.parse("import os\nif TYPE_CHECKING:\n    import hidden\n"
                     "def f():\n    import lazy\n    if x:\n        import deep\n")
    assert [a.name for n in all_imports(tree) for a in n.names] == [
        "os", "lazy", "deep"]
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    order = layers()
    assert _layer("unitensor._errors", order) == 0
    assert _layer("unitensor", order) == len(order) - 1
    assert ("unitensor._backends.torch.interop", "torch") in _framework_imports()
    assert not _own_room("unitensor._convert", "torch")
    assert _own_room("unitensor._wrap.torch_ops", "torch")
