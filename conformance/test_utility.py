"""Utility functions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .harness import Case, array, dtypes, reduction, run


def _diff(data):
    dtype = data.draw(dtypes("real"))
    x = array(data, dtype, min_dims=1, min_side=1, small=True)
    kwargs = {"axis": data.draw(st.integers(-x.ndim, x.ndim - 1)),
              "n": data.draw(st.integers(0, 2))}
    if data.draw(st.booleans()):
        shape = list(x.shape)
        shape[kwargs["axis"]] = 1
        kwargs["prepend"] = array(data, dtype, tuple(shape), small=True)
    return (x,), kwargs


CASES = [reduction("all", "any"), reduction("any", "any"), Case("diff", _diff)]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_utility(case, data):
    run(case, data)
