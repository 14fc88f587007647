"""Every framework's part of ``ut.wrap`` against its contract (_wrap/_parts.py).

Each installed framework's part must provide every member its row's contracts
declare (``_parts.contracts``), with the contract's signature, parameter by
parameter; a part that leaves one out is refused when it loads; the table is the
one place the parts are found; and the wing keeps its place in the house:
nothing below the Tensor (``_backends/``) imports it, and torch.compile is
shown a bridged call as an op once the user imports its tracer.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import subprocess
import sys
import types
from pathlib import Path

import pytest

from unitensor import _backends
from unitensor._wrap import _bridge, _parts

ROOT = Path(__file__).resolve().parents[2]
INSTALLED = [name for name in _parts.PARTS if name != "cupy"
             and importlib.util.find_spec(name) is not None]


def _parameters(func) -> list[inspect.Parameter]:
    return [p for p in inspect.signature(func).parameters.values() if p.name != "self"]


def check_signature(declared, got, where) -> None:
    """``got`` takes what ``declared`` (a contract's method) passes, as it passes
    it: the same parameters in order, positionally, the same ones optional.
    """
    expected, found = _parameters(declared), _parameters(got)
    assert [p.name for p in found] == [p.name for p in expected], where
    for e, f in zip(expected, found, strict=True):
        assert f.kind in (f.POSITIONAL_ONLY, f.POSITIONAL_OR_KEYWORD), (where, f)
        assert (f.default is f.empty) == (e.default is e.empty), (where, f)


@pytest.mark.parametrize("name", INSTALLED)
def test_part_fulfils_its_contracts_member_by_member(name):
    module = _parts.part(name)
    assert module.__name__ == _parts.PARTS[name].module
    contracts = _parts.contracts(name)
    assert contracts, name
    for contract in contracts:
        assert isinstance(module, contract), (name, contract.__name__)
        for member in _parts.members(contract):
            declared = getattr(contract, member)
            assert inspect.isfunction(declared), (contract.__name__, member)
            check_signature(declared, getattr(module, member),
                            (name, contract.__name__, member))


def test_contracts_follow_the_table():
    """What a part provides is read from its row: a differentiable framework
    is a caller, and a body for every other caller's asks."""
    assert set(_parts.contracts("torch")) == {
        _parts.Caller, _parts.Body, _parts.BodyForJax, _parts.Mutable,
        _parts.Guarded}  # (BodyForTorch: torch never calls a torch body)
    assert set(_parts.contracts("jax")) == {
        _parts.Caller, _parts.Body, _parts.BodyForTorch}  # immutable: no Mutable
    assert set(_parts.contracts("tensorflow")) == {
        _parts.Caller, _parts.Body, _parts.BodyForTorch, _parts.BodyForJax,
        _parts.Unconverted}
    assert set(_parts.contracts("numpy")) == {_parts.Mutable, _parts.NumpyMemory}
    assert _parts.contracts("cupy") == (_parts.Mutable,)
    # every protocol's members are declared functions, with their bases' own
    assert set(_parts.members(_parts.BodyForJax)) >= set(_parts.members(_parts.Body))
    assert "jvp" in _parts.members(_parts.BodyForTorch)


def test_the_table_is_the_one_place_parts_are_found():
    package = ROOT / "unitensor" / "_wrap"
    for name, row in _parts.PARTS.items():
        assert name in _backends.NAMES
        assert row.module == f"unitensor._wrap.{name}"
        assert (package / f"{name}.py").is_file(), row.module
        assert row.asks is None or issubclass(row.asks, _parts.Body)
    # IMMUTABLE is the backends' own fact, for wrap's frameworks
    assert _parts.IMMUTABLE == tuple(n for n in _parts.PARTS if getattr(
        _backends._facts[n], "IMMUTABLE", False))
    # the pairs follow the rows: differentiable where both sides have a caller
    for (source, target), differentiable in _bridge.PAIRS.items():
        assert differentiable == (_parts.PARTS[source].asks is not None
                                  and _parts.PARTS[target].asks is not None)
    assert len(_bridge.PAIRS) == len(_parts.PARTS) * (len(_parts.PARTS) - 1)
    for pair, module in _parts.COMPILED.items():
        assert pair in _bridge.PAIRS
        assert (ROOT / Path(*module.split("."))).with_suffix(".py").is_file()


def test_a_compiled_call_fulfils_its_contract():
    pytest.importorskip("torch")
    pytest.importorskip("jax")
    for module in _parts.COMPILED.values():
        loaded = importlib.import_module(module)
        assert isinstance(loaded, _parts.Compiled)
        check_signature(_parts.Compiled.bridged_call, loaded.bridged_call, module)


def test_a_part_missing_a_member_is_refused(monkeypatch):
    numpy_part = importlib.import_module("unitensor._wrap.numpy")
    incomplete = types.ModuleType("unitensor._wrap.incomplete")
    incomplete.__dict__.update({k: v for k, v in vars(numpy_part).items()
                                if k != "unshared" and not k.startswith("__")})
    monkeypatch.setitem(sys.modules, incomplete.__name__, incomplete)
    monkeypatch.setitem(_parts.PARTS, "incomplete",
                        _parts.Part(incomplete.__name__, None))
    with pytest.raises(TypeError, match=r"does not define 'unshared', which "
                       r"Mutable requires"):
        _parts.part("incomplete")
    # a caller's row: its part must be a Caller and every other caller's body
    monkeypatch.setitem(_parts.PARTS, "incomplete",
                        _parts.Part(incomplete.__name__, _parts.Body))
    with pytest.raises(TypeError, match=r"which (Caller|Body\w*) requires"):
        _parts.part("incomplete")


def _imports(path: Path, package: str) -> set[str]:
    """Every module ``path`` imports, at module level or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            found.add(source)
            found.update(f"{source}.{alias.name}" for alias in node.names)
    return found


def test_nothing_below_the_tensor_imports_the_wing_or_what_lies_above():
    above = ("unitensor._convert", "unitensor._tensor", "unitensor._fastpath",
             "unitensor._wrap", "unitensor._compile", "unitensor._dispatch")
    backends = ROOT / "unitensor" / "_backends"
    offenders = []
    for path in sorted(backends.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        package = ".".join(parts if path.name == "__init__.py" else parts[:-1])
        offenders += [(str(path.relative_to(ROOT)), name) for name in _imports(
            path, package.removesuffix(".__init__"))
            if any(name == a or name.startswith(f"{a}.") for a in above)]
    assert offenders == []


def test_the_checker_reads_imports_inside_functions():
    found = _imports(ROOT / "unitensor" / "_wrap" / "torch.py", "unitensor._wrap")
    assert "unitensor._wrap.torch_ops" in found  # inside _op()
    assert "unitensor._backends.torch.interop" in found


@pytest.mark.parametrize("order", [
    "unitensor first", "the bridge op first",
    pytest.param("torch._dynamo first", marks=pytest.mark.slow)])  # (~20 s each)
@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_torch_compile_is_shown_the_bridge_once_its_tracer_is_imported(order):
    """The registration happens when torch._dynamo is imported, before or after
    unitensor, and not before (importing unitensor imports no torch); also where
    the import of the bridge op (make_fx's path: the torch part's ``_op``)
    imports it, whose module is then not yet run to its end (the old
    ``_backends/torch/compile.py`` lost the bridge there, with a warning)."""
    pytest.importorskip("torch")
    pytest.importorskip("jax")
    trigger = ("import unitensor._wrap.torch_ops\n" if order == "the bridge op first"
               else "import torch._dynamo\n")
    code = (
        "import sys\n"
        + ("import torch._dynamo\n" if order == "torch._dynamo first" else "")
        + "import unitensor\n"
        "from unitensor import _compile\n"
        "from unitensor._wrap import _parts\n"
        "before = (_compile._registered, dict(_parts.COMPILED_PARTS),\n"
        "          'torch' in sys.modules)\n"
        + trigger
        + "print(before, _compile._registered, sorted(_parts.COMPILED_PARTS))\n"
        "print(_parts.COMPILED_PARTS[('torch', 'jax')].bridged_call.__module__)\n")
    out = subprocess.run([sys.executable, "-W", "error", "-c", code],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    first, second = out.stdout.splitlines()
    registered = f"True {sorted(_parts.COMPILED)}"  # every pair of the table
    if order == "torch._dynamo first":
        assert first.startswith("(True, {('torch', 'jax'): <module ")
        assert first.endswith(registered)
    else:
        assert first == f"(False, {{}}, False) {registered}"
    assert second == "unitensor._wrap.torch_ops"
