"""Statistical functions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .harness import Case, array, dtypes, reduction, run

_CORRECTION = {"correction": st.none() | st.sampled_from([0, 1, 0.5])}


def _cumulative(name: str):
    def draw(data):
        x = array(data, data.draw(dtypes("numeric")), min_dims=1, max_dims=1,
                  small=True)
        kwargs = {"include_initial": data.draw(st.booleans())}
        if x.ndim:
            kwargs["axis"] = 0
        return (x,), kwargs
    return Case(name, draw)


CASES = [
    _cumulative("cumulative_sum"), _cumulative("cumulative_prod"),
    reduction("max", "real", min_side=1), reduction("mean", "floating", min_side=1),
    reduction("min", "real", min_side=1),
    # at most 8 factors of |x| <= 100: no float32 overflow, where the order of
    # the products decides between inf * 0 (nan: torch) and 0 * inf (numpy: 0)
    reduction("prod", "numeric", max_side=2),
    reduction("std", "real floating", extra=_CORRECTION, min_side=3),
    reduction("sum", "numeric"),
    reduction("var", "real floating", extra=_CORRECTION, min_side=3),
]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_statistical(case, data):
    run(case, data)
