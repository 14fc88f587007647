"""Devices (unitensor/_device.py): the ``Device`` type and device arguments."""

from __future__ import annotations

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
