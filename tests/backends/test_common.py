"""The special-case fixes that adapters share (unitensor/_backends/_common.py),
checked in each owner that uses them."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import COMPUTING

import unitensor as ut

pytestmark = pytest.mark.usefixtures("x64_for_jax_framework")


@pytest.mark.parametrize("framework", COMPUTING)
def test_floor_divide_special_cases(framework):
    x = ut.asarray(np.array([np.inf, -np.inf, 1.0, -1.0])).to(framework, copy=True)
    y = ut.asarray(np.array([2.0, 2.0, -np.inf, np.inf])).to(framework, copy=True)
    out = (x // y).numpy()
    assert out[:2].tolist() == [np.inf, -np.inf]
    assert out[2] == 0
    assert np.signbit(out[2])
    assert np.signbit(out[3])


@pytest.mark.parametrize("framework", ["numpy", "array_api_strict"])
def test_complex_expm1_special_cases(framework):
    x = ut.asarray(np.array([complex(np.inf, 0.0), complex(-np.inf, np.inf)])).to(
        framework, copy=True)
    with np.errstate(invalid="ignore"):
        out = ut.expm1(x).numpy()
    assert out[0] == complex(np.inf, 0.0)
    assert out[1] == complex(-1.0, 0.0)
