"""Every framework package against the adapter contract (_backends/_adapter.py).

Each installed framework's assembled adapter must provide every member the
contract declares, with call signatures that accept what the contract passes;
each concern comes from its own module (interop or namespace) or from a shared
default; and a package that leaves out a member with no default is refused
when it loads.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import types

import pytest

from unitensor import _backends
from unitensor._backends import _adapter, _memory

INSTALLED = [name for name in _backends.NAMES if name != "cupy"
             and importlib.util.find_spec(name) is not None]


def _positional(func) -> list[inspect.Parameter]:
    params = list(inspect.signature(func).parameters.values())
    return [p for p in params if p.name != "self"]


@pytest.mark.parametrize("name", INSTALLED)
def test_adapter_fulfils_the_contract(name):
    adapter = _backends.get(name)
    assert isinstance(adapter, _adapter.Adapter)
    assert adapter.NAME == name == _backends._facts[name].NAME
    for member in _adapter.members(_adapter.Adapter):
        declared = getattr(_adapter.Adapter, member, None)
        value = getattr(adapter, member)
        if not inspect.isfunction(declared):
            continue
        expected = _positional(declared)
        got = _positional(value)
        required = [p for p in got if p.default is p.empty
                    and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        accepts = [p for p in got if p.kind in (p.POSITIONAL_ONLY,
                                                p.POSITIONAL_OR_KEYWORD)]
        has_star = any(p.kind is p.VAR_POSITIONAL for p in got)
        assert len(required) <= len(expected), (name, member, "asks for more")
        assert has_star or len(accepts) >= len(expected), (name, member,
                                                           "takes fewer")


@pytest.mark.parametrize("name", INSTALLED)
def test_each_member_comes_from_its_concern(name):
    adapter = _backends.get(name)
    package = f"unitensor._backends.{name}"
    modules = {_adapter.Interop: sys.modules[f"{package}.interop"],
               _adapter.Namespace: sys.modules[f"{package}.namespace"]}
    for contract, module in modules.items():
        for member in _adapter.members(contract):
            value = getattr(adapter, member)
            own = getattr(module, member, None)
            if own is not None:
                assert value is own, (name, member)
            elif member == "NAME":
                assert value == name
            elif hasattr(_backends._facts[name], member):  # a fact: IMMUTABLE
                assert value is getattr(_backends._facts[name], member)
            elif member == "AUTODIFF":  # whether it has an autodiff_state of its own
                assert value is (adapter.autodiff_state
                                 is not _adapter.DEFAULTS["autodiff_state"])
            elif member in _adapter.DERIVED:  # read from the adapter's own table
                assert callable(value)
            else:
                assert value is _adapter.DEFAULTS[member], (name, member)


@pytest.mark.parametrize("name", INSTALLED)
def test_framework_packages_hold_facts_without_the_framework(name):
    facts = _backends._facts[name]
    assert facts.NAME == name
    assert facts.MODULES
    assert facts.INSTALL
    assert not [v for v in vars(facts).values() if isinstance(v, types.ModuleType)
                and v.__name__.partition(".")[0] in facts.MODULES]


def test_a_package_missing_a_member_is_refused(monkeypatch):
    facts = types.ModuleType("unitensor._backends.incomplete")
    facts.NAME, facts.MODULES, facts.INSTALL = "incomplete", ("incomplete",), "x"
    facts.__path__ = []  # a package
    numpy_interop = importlib.import_module("unitensor._backends.numpy.interop")
    interop = types.ModuleType("unitensor._backends.incomplete.interop")
    interop.__dict__.update({k: v for k, v in vars(numpy_interop).items()
                             if k != "alias" and not k.startswith("__")})
    namespace = importlib.import_module("unitensor._backends.numpy.namespace")
    monkeypatch.setitem(sys.modules, facts.__name__, facts)
    monkeypatch.setitem(sys.modules, interop.__name__, interop)
    monkeypatch.setitem(sys.modules, f"{facts.__name__}.namespace", namespace)
    with pytest.raises(TypeError, match="does not define 'alias'"):
        _adapter.load(facts)


def test_framework_objects_that_are_not_arrays_are_not_operands():
    torch = pytest.importorskip("torch")
    import unitensor as ut
    assert _backends.for_type(torch.device) is None
    assert _backends.for_type(type(torch.float32)) is None
    assert _backends.for_type(torch.Tensor) is _backends.get("torch")
    assert ut.zeros(2, dtype=ut.float32).owner == "numpy"
    with pytest.raises(TypeError, match=r"torch\.device"):
        ut.asarray(torch.device("cpu"))


@pytest.mark.parametrize("name", _memory.FRAMEWORKS)
def test_memory_module_fulfils_the_memory_contract(name):
    """Every framework with a cache has a memory module (cupy too: it imports no
    framework, so it loads without cupy), each member with the contract's arity."""
    module = importlib.import_module(f"unitensor._backends.{name}.memory")
    assert isinstance(module, _adapter.Memory)
    assert module.NAME == name == _backends._facts[name].NAME
    for member in _adapter.members(_adapter.Memory):
        declared = getattr(_adapter.Memory, member, None)
        if inspect.isfunction(declared):
            assert len(_positional(getattr(module, member))) == len(
                _positional(declared)), (name, member)
    assert not [v for v in vars(module).values() if isinstance(v, types.ModuleType)
                and v.__name__.partition(".")[0] in _backends._facts[name].MODULES]


@pytest.mark.parametrize("name", INSTALLED)
def test_autodiff_state_is_reported_by_the_frameworks_that_carry_it(name):
    """``autodiff_state``: None for a plain array of every framework; words for a
    torch tensor that requires grad, a jax tracer, a TF tensor a tape watches."""
    import numpy as np

    import unitensor as ut
    adapter = _backends.get(name)
    plain = ut.asarray(np.ones(3, np.float32)).to(name, copy=True).native
    assert adapter.autodiff_state(plain) is None
    states = []
    if name == "torch":
        import torch
        states.append(adapter.autodiff_state(torch.ones(2, requires_grad=True)))
        states.append(adapter.autodiff_state(torch.ones(2, requires_grad=True) * 2))
    elif name == "jax":
        import jax
        jax.grad(lambda a: states.append(adapter.autodiff_state(a)) or a.sum())(
            jax.numpy.ones(2))
    elif name == "tensorflow":
        import tensorflow as tf
        with tf.GradientTape() as tape:
            tape.watch(plain)
            states.append(adapter.autodiff_state(plain))
            states.append(adapter.autodiff_state(plain * 2))
    else:  # numpy, dask, array_api_strict: no autodiff of their own
        assert adapter.autodiff_state is _adapter.DEFAULTS["autodiff_state"]
    assert all(isinstance(s, str) and s for s in states)
