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
