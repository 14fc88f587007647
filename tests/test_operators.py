"""The array object's operators (unitensor/_operators.py): arithmetic, reflected,
comparison and in-place, in every computing owner."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import COMPUTING

import unitensor as ut

pytestmark = pytest.mark.usefixtures("x64_for_jax_framework")


@pytest.mark.parametrize("framework", COMPUTING)
def test_operators_reflected_and_comparison(framework):
    x = ut.asarray(np.array([1, 2, 3], dtype=np.int32)).to(framework, copy=True)
    assert (x + 1).numpy().tolist() == [2, 3, 4]
    assert (10 - x).numpy().tolist() == [9, 8, 7]
    assert (2 ** x).numpy().tolist() == [2, 4, 8]
    assert (x // 2).numpy().tolist() == [0, 1, 1]
    assert (-x).numpy().tolist() == [-1, -2, -3]
    assert (~x).numpy().tolist() == [-2, -3, -4]
    assert (x << 1).numpy().tolist() == [2, 4, 6]
    assert (x == 2).numpy().tolist() == [False, True, False]
    assert (x >= 2).dtype == ut.bool
    assert (x + 1).dtype == ut.int32  # a Python scalar takes the array's dtype
    with pytest.raises(TypeError):
        hash(x)


@pytest.mark.parametrize("framework", COMPUTING)
def test_inplace_operators_mutate_or_rebind(framework):
    x = ut.asarray(np.arange(4.0)).to(framework, copy=True)
    alias = x
    x += 1
    x *= ut.asarray(np.full(4, 2.0)).to(framework, copy=True)
    assert alias is x
    assert x.numpy().tolist() == [2.0, 4.0, 6.0, 8.0]
