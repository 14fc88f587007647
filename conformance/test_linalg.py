"""The linalg extension. Decompositions are compared by what they determine
(values, reconstructions), not by the signs a framework picks for vectors."""

from __future__ import annotations

import array_api_strict as xs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import unitensor as ut

from .harness import (
    RESULT_OWNER,
    Case,
    array,
    as_numpy,
    assert_close,
    assert_same,
    dtypes,
    run,
    tolerance,
)


def _matrix(data, kind="floating", square=True, batch=True):
    n = data.draw(st.integers(1, 4))
    m = n if square else data.draw(st.integers(1, 4))
    prefix = data.draw(st.sampled_from([(), (2,)])) if batch else ()
    return array(data, data.draw(dtypes(kind)), (*prefix, n, m), small=True)


def _well_conditioned(data, kind="floating"):
    """A + n·I with |A| small: invertible, far from singular."""
    x = _matrix(data, kind)
    n = x.shape[-1]
    return x + xs.asarray(10.0 * n, dtype=x.dtype) * xs.eye(n, dtype=x.dtype)


def _positive_definite(data):
    x = _matrix(data, "real floating")
    n = x.shape[-1]
    return x @ xs.matrix_transpose(x) + xs.asarray(float(n), dtype=x.dtype) * xs.eye(
        n, dtype=x.dtype)


def _symmetric(data):
    x = _matrix(data, "real floating")
    return x + xs.matrix_transpose(x)


def _one(make, **extra):
    def draw(data):
        return (make(data),), {k: data.draw(v) for k, v in extra.items()}
    return draw


def _scaled(scale):
    """Compare with tolerances scaled for ill-conditioned, iterative results."""
    def compare(got, expected, args):
        assert_same_scaled(got, expected, scale)
    return compare


def assert_same_scaled(got, expected, scale):
    assert got.dtype.name == str(expected.dtype).rpartition(".")[2]
    assert got.shape == tuple(expected.shape)
    assert_close(as_numpy(got), as_numpy(expected), got.dtype.name, "result",
                 scale=scale)


def _reconstructs(*fields):
    """Decompositions: the factors multiply back to the input."""
    def compare(got, expected, args):
        assert got._fields == expected._fields
        x = as_numpy(args[0])
        if fields == ("Q", "R"):
            product = as_numpy(got.Q) @ as_numpy(got.R)
        elif fields == ("U", "S", "Vh"):
            u, s, vh = (as_numpy(got[i]) for i in range(3))
            k = s.shape[-1]
            product = (u[..., :k] * s[..., None, :]) @ vh[..., :k, :]
            assert_same_scaled(got.S, expected.S, 100)
        else:  # eigh
            w, v = as_numpy(got.eigenvalues), as_numpy(got.eigenvectors)
            product = (v * w[..., None, :]) @ np.swapaxes(v, -1, -2).conj()
            assert_same_scaled(got.eigenvalues, expected.eigenvalues, 100)
        assert_close(product, x, got[0].dtype.name, "reconstruction", scale=100)
    return compare


def _same_eigenvalues(got, expected):
    """Eigenvalues in any order (unspecified): each of one set has its match in
    the other, within the tolerance. Complex, of x's precision (2025.12)."""
    assert type(got) is ut.Tensor
    assert got.owner == RESULT_OWNER
    assert got.dtype.name == str(expected.dtype).rpartition(".")[2]
    assert got.shape == tuple(expected.shape)
    g, e = as_numpy(got), as_numpy(expected)
    rtol, atol = tolerance(got.dtype.name)
    scale = 100 * max(1.0, float(np.max(np.abs(e), initial=1.0)))
    distance = np.abs(g[..., :, None] - e[..., None, :])
    assert np.all(distance.min(axis=-1) <= atol * scale + rtol * 100 * np.abs(g)), (
        f"eigenvalues {g} != {e}")
    assert np.all(distance.min(axis=-2) <= atol * scale + rtol * 100 * np.abs(e)), (
        f"eigenvalues {g} != {e}")


def _eig(got, expected, args):
    """linalg.eig: the standard's named tuple, its eigenvalues, and x v = v w."""
    assert got._fields == expected._fields == ("eigenvalues", "eigenvectors")
    _same_eigenvalues(got.eigenvalues, expected.eigenvalues)
    assert got.eigenvectors.dtype.name == got.eigenvalues.dtype.name
    assert got.eigenvectors.owner == got.eigenvalues.owner
    x, w, v = as_numpy(args[0]), as_numpy(got.eigenvalues), as_numpy(got.eigenvectors)
    assert_close(x @ v, v * w[..., None, :], got[0].dtype.name, "x v = v w",
                 scale=100)


def _cross(data):
    dtype = data.draw(dtypes("numeric"))
    shape = data.draw(st.sampled_from([(3,), (2, 3), (3, 2)]))
    axis = -1 if shape[-1] == 3 else 0
    return (array(data, dtype, shape, small=True),
            array(data, dtype, shape, small=True)), {"axis": axis}


def _diagonal(data):
    return (_matrix(data, "numeric", square=False),), {
        "offset": data.draw(st.integers(-2, 2))}


def _matrix_norm(data):
    return (_matrix(data, "floating", square=False),), {
        "ord": data.draw(st.sampled_from(["fro", "nuc", 1, -1, np.inf, -np.inf, 2])),
        "keepdims": data.draw(st.booleans())}


def _matrix_power(data):
    return (_well_conditioned(data), data.draw(st.integers(-2, 3))), {}


def _outer(data):
    dtype = data.draw(dtypes("numeric"))
    return (array(data, dtype, (data.draw(st.integers(0, 3)),), small=True),
            array(data, dtype, (data.draw(st.integers(0, 3)),), small=True)), {}


def _solve(data):
    a = _well_conditioned(data)
    return (a, array(data, a.dtype, a.shape, small=True)), {}


def _trace(data):
    return (_matrix(data, "numeric", square=False),), {
        "offset": data.draw(st.integers(-2, 2))}


def _vector_norm(data):
    # not empty: the inf norms of nothing (a max of nothing) are undefined
    x = array(data, data.draw(dtypes("floating")), small=True, min_side=1)
    return (x,), {"ord": data.draw(st.sampled_from([1, 2, np.inf, -np.inf, 3])),
                  "keepdims": data.draw(st.booleans())}


def _pair(shape_kind):
    def draw(data):
        dtype = data.draw(dtypes("numeric"))
        n = data.draw(st.integers(1, 3))
        return (array(data, dtype, (2, n), small=True),
                array(data, dtype, (n, 2) if shape_kind == "matmul" else (2, n),
                      small=True)), {}
    return draw


CASES = [
    Case("linalg.cholesky", _one(_positive_definite, upper=st.booleans()),
         _scaled(100)),
    Case("linalg.cross", _cross),
    Case("linalg.det", _one(_well_conditioned), _scaled(100)),
    Case("linalg.diagonal", _diagonal),
    Case("linalg.eig", _one(_well_conditioned), _eig),
    Case("linalg.eigh", _one(_symmetric), _reconstructs("eigenvalues")),
    Case("linalg.eigvals", _one(_well_conditioned),
         lambda got, expected, args: _same_eigenvalues(got, expected)),
    Case("linalg.eigvalsh", _one(_symmetric), _scaled(100)),
    Case("linalg.inv", _one(_well_conditioned), _scaled(100)),
    Case("linalg.matmul", _pair("matmul")),
    Case("linalg.matrix_norm", _matrix_norm, _scaled(100)),
    Case("linalg.matrix_power", _matrix_power, _scaled(100)),
    Case("linalg.matrix_rank", _one(_well_conditioned)),
    Case("linalg.matrix_transpose", _one(_matrix)),
    Case("linalg.outer", _outer),
    Case("linalg.pinv", _one(_well_conditioned), _scaled(100)),
    Case("linalg.qr", _one(_well_conditioned), _reconstructs("Q", "R")),
    Case("linalg.slogdet", _one(_well_conditioned),
         lambda got, expected, args: [assert_same_scaled(g, e, 100)
                                      for g, e in zip(got, expected, strict=True)]),
    Case("linalg.solve", _solve, _scaled(100)),
    Case("linalg.svd", _one(_well_conditioned, full_matrices=st.just(False)),
         _reconstructs("U", "S", "Vh")),
    Case("linalg.svdvals", _one(_well_conditioned), _scaled(100)),
    Case("linalg.tensordot", _pair("matmul")),
    Case("linalg.trace", _trace),
    Case("linalg.vecdot", _pair("vecdot")),
    Case("linalg.vector_norm", _vector_norm, _scaled(100)),
]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_linalg(case, data):
    run(case, data)


def test_results_are_the_standards_named_tuples():
    x = ut.asarray(np.eye(2))
    assert_same(ut.linalg.slogdet(x)._fields, ("sign", "logabsdet"))
    result = ut.linalg.eig(x)
    assert type(result).__name__ == "EigResult"
    assert result._fields == ("eigenvalues", "eigenvectors")


def test_eig_of_a_real_matrix_is_complex():
    """A rotation's eigenvalues are ±i: complex of x's precision, whose owner ran
    it (jax's eig runs on its CPU)."""
    for dtype, complex_dtype in (("float32", "complex64"), ("float64", "complex128")):
        if dtype not in ut.__array_namespace_info__().dtypes():
            continue
        x = ut.asarray([[0.0, -1.0], [1.0, 0.0]], dtype=getattr(ut, dtype))
        w = ut.linalg.eigvals(x)
        assert w.dtype is getattr(ut, complex_dtype)
        assert sorted(complex(v).imag for v in w) == pytest.approx([-1.0, 1.0])
        assert ut.linalg.eig(x).eigenvectors.dtype is w.dtype
