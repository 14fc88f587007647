"""No import cycle among unitensor's modules.

Each module's module-level imports (read with ``ast``: not those inside functions,
nor under ``if TYPE_CHECKING:``) must form an acyclic graph, so that no module
works only because of the order in which the others happen to be imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def import_graph() -> dict[str, set[str]]:
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
        for node in module_level_imports(ast.parse(path.read_text(), str(path))):
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
