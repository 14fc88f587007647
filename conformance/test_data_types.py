"""Data type functions: the standard's promotion rules, on every owner."""

from __future__ import annotations

import array_api_strict as xs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import unitensor as ut

from .harness import Case, array, dtypes, name_of, run

_KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
          "complex floating", "numeric"]


def _astype(data):
    x = array(data, data.draw(dtypes("real")), small=True)
    target = data.draw(dtypes("real"))
    if name_of(target).startswith("uint"):  # negative to unsigned: undefined
        x = xs.abs(x)
    return (x, target), {}


def _pair(data):
    return (data.draw(dtypes("any")), data.draw(dtypes("any"))), {}


def _info(kind: str):
    def draw(data):
        return (data.draw(dtypes(kind)),), {}
    return draw


def _same_info(got, expected, args):
    for field in ("bits", "max", "min", "eps", "smallest_normal"):
        if hasattr(expected, field):
            assert getattr(got, field) == getattr(expected, field), field
    assert got.dtype.name == name_of(expected.dtype)


def _isdtype(data):
    kind = data.draw(st.sampled_from(_KINDS) | dtypes("any")
                     | st.tuples(st.sampled_from(_KINDS), dtypes("any")))
    return (data.draw(dtypes("any")), kind), {}


def _result_type(data):
    values = data.draw(st.lists(dtypes("any"), min_size=1, max_size=3))
    if data.draw(st.booleans()):  # an array among them
        values[0] = array(data, values[0])
    return tuple(values), {}


CASES = [
    Case("astype", _astype), Case("can_cast", _pair),
    Case("finfo", _info("floating"), _same_info),
    Case("iinfo", _info("integral"), _same_info), Case("isdtype", _isdtype),
    Case("result_type", _result_type),
]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_data_types(case, data):
    run(case, data)


def test_python_scalars_in_result_type():
    assert ut.result_type(ut.int8, 1) is ut.int8
    assert ut.result_type(ut.float32, 1.5, 2) is ut.float32
    assert ut.result_type(ut.float64, 1j) is ut.complex128
