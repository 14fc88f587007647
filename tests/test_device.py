"""Devices (unitensor/_device.py): the ``Device`` type and device arguments."""

from __future__ import annotations

import numpy as np
import pytest

import unitensor as ut


def test_devices_print_and_compare():
    assert str(ut.asarray([1]).device) == "cpu"
    assert ut.Device("cuda", 1) == ut.Device("cuda", 1)
    assert str(ut.Device("cuda", 1)) == "cuda:1"
    with pytest.raises(ValueError, match="kind"):
        ut.Device("gpu")
    with pytest.raises(ValueError, match="device"):
        ut.asarray([1], device="tpu:0")


@pytest.mark.parametrize("owner", ["numpy", "torch", "jax", "tensorflow",
                                   "array_api_strict"])
def test_a_str_device_reaches_every_owner_as_its_own_device(owner):
    # jax takes no str device: 'cpu' is parsed once, for every owner alike
    pytest.importorskip(owner)
    from frameworks import make
    t = ut.asarray(make(owner, np.ones(3, np.float32)))
    for like in (ut.zeros_like, ut.ones_like, ut.empty_like):
        out = like(t, device="cpu")
        assert out.owner == owner
        assert out.device == t.device
    with ut.owner(owner):
        assert ut.zeros(2, device="cpu").owner == owner


def test_a_framework_s_device_object_is_read_by_its_adapter_through_the_registry():
    """_device knows no framework: it imports no backend, not even inside a
    function; the registry asks the framework's adapter (device_from_native)."""
    import ast
    from pathlib import Path

    from unitensor import _backends, _device
    tree = ast.parse(Path(_device.__file__).read_text())
    imports = [node for node in ast.walk(tree)
               if isinstance(node, (ast.Import, ast.ImportFrom))]
    imported = {alias.name for node in imports for alias in node.names} | {
        getattr(node, "module", None) or "" for node in imports}
    assert not any("_backends" in name for name in imported), imported

    torch = pytest.importorskip("torch")
    assert _backends.parse_device(torch.device("cpu"), "f") == ut.Device("cpu")
    assert _backends.parse_device("cuda:1", "f") == ut.Device("cuda", 1)
    moved = ut.asarray(np.ones(2)).to_device(torch.device("cpu"))
    assert moved.device == ut.Device("cpu")
    refusal = (r"^f\(\): device: expected a unitensor Device, 'cpu', 'cuda' or "
               r"'cuda:N', or a framework's device object, got an object of type "
               r"'torch\.")
    with pytest.raises(ValueError, match=refusal):  # not a torch device: refused
        _backends.parse_device(torch.float32, "f")
    with pytest.raises(ValueError, match=refusal):  # _device reads no framework's
        _device.parse(torch.device("cpu"), "f")
