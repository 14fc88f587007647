"""The special-case fixes that adapters share (unitensor/_backends/_fixes.py),
checked in each owner that uses them."""

from __future__ import annotations

import numpy as np
import pytest
from owners import COMPUTING

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


@pytest.mark.parametrize("framework", COMPUTING)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_expm1_of_zero_is_an_unsigned_zero(framework, dtype):
    """expm1(±0 + 0j) is +0 + 0j (numpy gives -0 for a real part of -0; torch and
    jax take their special elements from numpy's fixed function)."""
    values = [complex(-0.0, 0.0), complex(0.0, 0.0), complex(-0.0, -0.0), 1 + 1j]
    x = ut.asarray(np.array(values, dtype=dtype)).to(framework, copy=True)
    for _ in range(2):  # the general path, then the C fast path it taught
        out = ut.expm1(x).numpy(copy=True)
        assert not np.signbit(out[:3].real).any()
        assert np.signbit(out[:3].imag).tolist() == [False, False, True]
        assert out[3] == pytest.approx(np.expm1(1 + 1j), rel=1e-5)
    assert ut.expm1(ut.asarray(np.array([-0.0])).to(framework, copy=True)).dtype \
        is ut.float64  # real inputs take the framework's own expm1


@pytest.mark.parametrize("framework", COMPUTING)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_tanh_at_infinity_has_the_sign_of_the_imaginary_part(framework, dtype):
    """tanh(±inf + yj), y finite, is ±1 + 0j with the sign of y (numpy follows
    C99's 0 * sin(2y): tanh(inf + 2j) was 1 - 0j)."""
    values = [complex(np.inf, 2.0), complex(np.inf, 1.0), complex(np.inf, -2.0),
              complex(-np.inf, 2.0), complex(np.inf, 0.0)]
    x = ut.asarray(np.array(values, dtype=dtype)).to(framework, copy=True)
    for _ in range(2):
        out = ut.tanh(x).numpy(copy=True)
        assert out.real.tolist() == [1.0, 1.0, 1.0, -1.0, 1.0]
        assert (out.imag == 0).all()
        assert np.signbit(out.imag).tolist() == [False, False, True, False, False]


@pytest.mark.parametrize("framework", COMPUTING)
def test_complex_sqrt_special_cases_of_2025_12(framework):
    """sqrt's complex special cases as 2025.12 corrected them (gh-987); the official
    suite cannot parse the -infinity case (its text lacks an 'is'), so it is here."""
    inf, nan = np.inf, np.nan
    x = ut.asarray(np.array([complex(-inf, 3.0), complex(inf, 3.0), complex(nan, inf),
                             complex(-inf, inf), complex(-0.0, 0.0), complex(inf, nan),
                             complex(2.0, nan)])).to(framework, copy=True)
    for _ in range(2):  # the general path, then the C fast path it taught
        out = ut.sqrt(x).numpy(copy=True)
        assert out[0] == complex(0.0, inf)
        assert not np.signbit(out[0].real)
        assert out[1] == complex(inf, 0.0)
        assert not np.signbit(out[1].imag)
        assert out[2] == complex(inf, inf)
        assert out[3] == complex(inf, inf)
        assert out[4] == 0
        assert not np.signbit(out[4].real)
        assert not np.signbit(out[4].imag)
        assert out[5].real == inf
        assert np.isnan(out[5].imag)
        assert np.isnan(out[6].real)
        assert np.isnan(out[6].imag)
