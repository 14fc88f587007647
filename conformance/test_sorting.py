"""Sorting functions (stable, so ties give one answer)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .harness import Case, array, dtypes, run


def _sort(name: str):
    def draw(data):
        x = array(data, data.draw(dtypes("real")), min_dims=1, small=True)
        kwargs = {"axis": data.draw(st.integers(-x.ndim, x.ndim - 1)),
                  "descending": data.draw(st.booleans())}
        return (x,), kwargs
    return Case(name, draw)


CASES = [_sort("argsort"), _sort("sort")]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_sorting(case, data):
    run(case, data)
