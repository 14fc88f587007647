"""The fft extension."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .harness import Case, array, dtypes, run

_NORMS = st.sampled_from(["backward", "ortho", "forward"])


def _one_axis(kind: str, name: str):
    def draw(data):
        x = array(data, data.draw(dtypes(kind)), min_dims=1, min_side=2, small=True)
        kwargs = {"axis": data.draw(st.integers(-x.ndim, x.ndim - 1)),
                  "norm": data.draw(_NORMS)}
        if data.draw(st.booleans()):
            kwargs["n"] = data.draw(st.integers(2, 5))
        return (x,), kwargs
    return Case(f"fft.{name}", draw)


def _many_axes(kind: str, name: str):
    def draw(data):
        x = array(data, data.draw(dtypes(kind)), min_dims=1, max_dims=2, min_side=2,
                  small=True)
        axes = tuple(range(x.ndim))
        kwargs = {"norm": data.draw(_NORMS)}
        if data.draw(st.booleans()):
            kwargs["axes"] = axes
            kwargs["s"] = tuple(data.draw(st.integers(2, 4)) for _ in axes)
        return (x,), kwargs
    return Case(f"fft.{name}", draw)


def _freq(name: str):
    def draw(data):
        return (data.draw(st.integers(1, 8)),), {
            "d": data.draw(st.sampled_from([1.0, 0.5, 2.0])),
            "dtype": data.draw(dtypes("real floating"))}
    return Case(f"fft.{name}", draw)


def _shift(name: str):
    def draw(data):
        x = array(data, data.draw(dtypes("floating")), min_dims=1)
        return (x,), {}
    return Case(f"fft.{name}", draw)


CASES = [
    _one_axis("complex floating", "fft"), _one_axis("complex floating", "ifft"),
    _many_axes("complex floating", "fftn"), _many_axes("complex floating", "ifftn"),
    _one_axis("real floating", "rfft"), _one_axis("complex floating", "irfft"),
    _many_axes("real floating", "rfftn"), _many_axes("complex floating", "irfftn"),
    _one_axis("complex floating", "hfft"), _one_axis("real floating", "ihfft"),
    _freq("fftfreq"), _freq("rfftfreq"), _shift("fftshift"), _shift("ifftshift"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_fft(case, data):
    run(case, data)
