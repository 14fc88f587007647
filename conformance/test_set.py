"""Set functions (values without NaN: NaN handling differs and is specified apart)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .harness import run, unary

CASES = [unary(name, "numeric", small=True) for name in
         ("unique_all", "unique_counts", "unique_inverse", "unique_values")]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_set(case, data):
    run(case, data)
