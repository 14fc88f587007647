"""Set functions (values without NaN: NaN handling differs and is specified apart)."""

from __future__ import annotations

import array_api_strict as xs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from .harness import Case, dtype_names, dtypes, run, unary, xps


def _isin(data):
    """isin (2025.12): integer arrays of dtypes that promote together, or one of
    them a Python int; values from a small range, so that some are found."""
    dtype = data.draw(dtypes("integral"))
    others = [n for n in dtype_names("integral")
              if _promotes(n, dtype)]
    other = getattr(xs, data.draw(st.sampled_from(others)))
    small = {"min_value": 0, "max_value": 5}
    x1 = data.draw(xps.arrays(dtype, xps.array_shapes(min_dims=0, max_dims=3,
                                                       max_side=4), elements=small))
    x2 = data.draw(xps.arrays(other, xps.array_shapes(min_dims=0, max_dims=2,
                                                       max_side=4), elements=small))
    scalar = data.draw(st.sampled_from(["none", "x1", "x2"]))
    if scalar == "x1":
        x1 = data.draw(st.integers(0, 5))
    elif scalar == "x2":
        x2 = data.draw(st.integers(0, 5))
    kwargs = {"invert": True} if data.draw(st.booleans()) else {}
    return (x1, x2), kwargs


def _promotes(name, dtype):
    try:
        xs.result_type(getattr(xs, name), dtype)
    except TypeError:
        return False
    return True


CASES = [Case("isin", _isin), *(
    unary(name, "numeric", small=True) for name in
    ("unique_all", "unique_counts", "unique_inverse", "unique_values"))]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_set(case, data):
    run(case, data)
