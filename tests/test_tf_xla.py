"""The namespace on TensorFlow-owned data inside ``tf.function(jit_compile=True)``:
XLA compiles the whole graph, so every op the TF backend emits must have an XLA
kernel and a static (or bounded) shape. The results match numpy's and the eager
call's type; what XLA cannot compile (data-dependent output shapes) is refused
with the standard's error type, not a crash or a wrong value.
"""

from __future__ import annotations

import numpy as np
import pytest

import unitensor as ut

tf = pytest.importorskip("tensorflow")

DATA = np.array([[1.0, 5.0, 2.0], [3.0, -1.0, 4.0], [6.0, 2.0, 0.5],
                 [2.5, 3.5, 1.0]])
INTS = np.array([[3, 1, 2], [0, 7, 5], [4, 4, 6], [9, 8, 1]], np.int64)


def _softmax(a):
    """Framework-agnostic code: written with the namespace and operators only."""
    x = ut.asarray(a)
    xp = x.__array_namespace__()
    shifted = x - xp.max(x, axis=-1, keepdims=True)
    e = xp.exp(shifted)
    return e / xp.sum(e, axis=-1, keepdims=True)


def _np_softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _standardise(a):
    x = ut.asarray(a)
    xp = x.__array_namespace__()
    z = (x - xp.mean(x, axis=0)) / xp.std(x, axis=0, correction=1)
    return xp.where(xp.abs(z) > 1.0, xp.clip(z, -1.0, 1.0), z) @ xp.ones(
        (3, 2), dtype=x.dtype, device=x.device)


def _np_standardise(a):
    z = (a - a.mean(axis=0)) / a.std(axis=0, ddof=1)
    return np.where(np.abs(z) > 1.0, np.clip(z, -1.0, 1.0), z) @ np.ones((3, 2))


def _dev(a):
    return ut.asarray(a).device


# name: (unitensor function of one TF tensor, numpy reference of one ndarray)
CASES = {
    # elementwise
    "add": (lambda a: ut.add(a, 1.5), lambda a: a + 1.5),
    "multiply": (lambda a: ut.multiply(a, ut.asarray(a)), lambda a: a * a),
    "exp": (lambda a: ut.exp(a), np.exp),
    "where": (lambda a: ut.where(ut.asarray(a) > 2.0, a, -1.0),
              lambda a: np.where(a > 2.0, a, -1.0)),
    "clip": (lambda a: ut.clip(a, 0.0, 3.0), lambda a: np.clip(a, 0.0, 3.0)),
    "clip int": (lambda a: ut.clip(ut.astype(a, ut.int32), 1, 4),
                 lambda a: np.clip(a.astype(np.int32), 1, 4)),
    # operators and indexing
    "operators": (lambda a: (ut.asarray(a) + 1) * 2 - ut.asarray(a) / 4,
                  lambda a: (a + 1) * 2 - a / 4),
    "matmul operator": (lambda a: ut.asarray(a) @ ut.asarray(a).mT,
                        lambda a: a @ a.T),
    "comparisons": (lambda a: (ut.asarray(a) > 2.0) & (ut.asarray(a) <= 5.0)
                    | (ut.asarray(a) == -1.0),
                    lambda a: (a > 2.0) & (a <= 5.0) | (a == -1.0)),
    "slices": (lambda a: ut.asarray(a)[1:, ::-1][..., :2],
               lambda a: a[1:, ::-1][..., :2]),
    "integer index": (lambda a: ut.asarray(a)[2, -1] + ut.asarray(a)[-1],
                      lambda a: a[2, -1] + a[-1]),
    "new axis": (lambda a: ut.asarray(a)[None, 1, :], lambda a: a[None, 1, :]),
    "integer array index": (lambda a: ut.asarray(a)[ut.argsort(ut.asarray(a)[:, 1])],
                            lambda a: a[np.argsort(a[:, 1], kind="stable")]),
    "take": (lambda a: ut.take(a, ut.asarray([2, 0, -1], device=_dev(a)), axis=1),
             lambda a: np.take(a, [2, 0, -1], axis=1)),
    "setitem": (lambda a: _write(ut.asarray(a)), lambda a: _write(a.copy())),
    # reductions
    "sum": (lambda a: ut.sum(a, axis=0), lambda a: a.sum(axis=0)),
    "sum all": (lambda a: ut.sum(a), np.sum),
    "mean": (lambda a: ut.mean(a, axis=1, keepdims=True),
             lambda a: a.mean(axis=1, keepdims=True)),
    "max": (lambda a: ut.max(a, axis=-1), lambda a: a.max(axis=-1)),
    "std": (lambda a: ut.std(a, axis=0, correction=1),
            lambda a: a.std(axis=0, ddof=1)),
    "var": (lambda a: ut.var(a, correction=0.5), lambda a: a.var(ddof=0.5)),
    "argmax": (lambda a: ut.argmax(a, axis=0), lambda a: a.argmax(axis=0)),
    "any": (lambda a: ut.any(ut.asarray(a) > 5.0, axis=1),
            lambda a: (a > 5.0).any(axis=1)),
    # manipulation
    "reshape": (lambda a: ut.reshape(a, (2, -1)), lambda a: a.reshape(2, -1)),
    "concat": (lambda a: ut.concat([a, ut.asarray(a) * 2], axis=1),
               lambda a: np.concatenate([a, a * 2], axis=1)),
    "stack": (lambda a: ut.stack([a, a], axis=-1), lambda a: np.stack([a, a], -1)),
    "permute_dims": (lambda a: ut.permute_dims(ut.reshape(a, (2, 2, 3)), (2, 0, 1)),
                     lambda a: a.reshape(2, 2, 3).transpose(2, 0, 1)),
    "expand_dims": (lambda a: ut.expand_dims(a, axis=1),
                    lambda a: np.expand_dims(a, 1)),
    "flip": (lambda a: ut.flip(a, axis=0), lambda a: np.flip(a, 0)),
    "flip all": (lambda a: ut.flip(a), np.flip),
    "roll": (lambda a: ut.roll(a, 2, axis=1), lambda a: np.roll(a, 2, axis=1)),
    "roll flat": (lambda a: ut.roll(a, -5), lambda a: np.roll(a, -5)),
    "squeeze": (lambda a: ut.squeeze(ut.asarray(a)[:1], axis=0), lambda a: a[0]),
    "broadcast_to": (lambda a: ut.broadcast_to(ut.asarray(a)[0], (2, 3)),
                     lambda a: np.broadcast_to(a[0], (2, 3))),
    "tile": (lambda a: ut.tile(a, (1, 2)), lambda a: np.tile(a, (1, 2))),
    "repeat": (lambda a: ut.repeat(a, 2, axis=0), lambda a: np.repeat(a, 2, axis=0)),
    # creation on the operand's device
    "zeros": (lambda a: ut.asarray(a) + ut.zeros((4, 3), device=_dev(a)),
              lambda a: a + np.zeros((4, 3))),
    "ones": (lambda a: ut.ones(3, dtype=ut.float64, device=_dev(a)) * ut.asarray(a),
             lambda a: np.ones(3) * a),
    "full": (lambda a: ut.full((4, 3), 2.5, device=_dev(a)) - ut.asarray(a),
             lambda a: np.full((4, 3), 2.5) - a),
    "arange": (lambda a: ut.arange(3, dtype=ut.float64, device=_dev(a))
               + ut.asarray(a), lambda a: np.arange(3.0) + a),
    "arange int": (lambda a: ut.arange(1, 10, 3, device=_dev(a)),
                   lambda a: np.arange(1, 10, 3)),
    "arange float step": (lambda a: ut.arange(0.0, 1.0, 0.25, device=_dev(a)),
                          lambda a: np.arange(0.0, 1.0, 0.25)),
    "zeros_like": (lambda a: ut.zeros_like(a) + 1, lambda a: np.zeros_like(a) + 1),
    "full_like": (lambda a: ut.full_like(a, 7.0), lambda a: np.full_like(a, 7.0)),
    "eye": (lambda a: ut.eye(4, 3, k=1, dtype=ut.float64, device=_dev(a))
            * ut.asarray(a), lambda a: np.eye(4, 3, k=1) * a),
    "linspace": (lambda a: ut.linspace(0.0, 1.0, 5, device=_dev(a)),
                 lambda a: np.linspace(0.0, 1.0, 5)),
    "tril": (lambda a: ut.tril(a, k=-1), lambda a: np.tril(a, k=-1)),
    # linear algebra
    "matmul": (lambda a: ut.matmul(ut.matrix_transpose(a), a), lambda a: a.T @ a),
    "vecdot": (lambda a: ut.vecdot(a, a), lambda a: (a * a).sum(-1)),
    "tensordot": (lambda a: ut.tensordot(a, a, axes=([0], [0])),
                  lambda a: np.tensordot(a, a, axes=([0], [0]))),
    "tensordot int axes": (lambda a: ut.tensordot(a, a, axes=2),
                           lambda a: np.tensordot(a, a, axes=2)),
    "norm": (lambda a: ut.linalg.vector_norm(a, axis=1),
             lambda a: np.linalg.norm(a, axis=1)),
    "norm ord 1": (lambda a: ut.linalg.vector_norm(a, ord=1),
                   lambda a: np.linalg.norm(a.ravel(), ord=1)),
    "norm inf": (lambda a: ut.linalg.vector_norm(a, axis=0, ord=float("inf")),
                 lambda a: np.linalg.norm(a, axis=0, ord=np.inf)),
    "matrix_norm": (lambda a: ut.linalg.matrix_norm(a), np.linalg.norm),
    "outer": (lambda a: ut.linalg.outer(ut.asarray(a)[0], ut.asarray(a)[1]),
              lambda a: np.outer(a[0], a[1])),
    "solve": (lambda a: ut.linalg.solve(ut.asarray(a)[:3] + 3 * ut.eye(
        3, dtype=ut.float64, device=_dev(a)), ut.asarray(a)[3]),
              lambda a: np.linalg.solve(a[:3] + 3 * np.eye(3), a[3])),
    # sorting and searching
    "sort": (lambda a: ut.sort(a, axis=0), lambda a: np.sort(a, axis=0)),
    "sort descending": (lambda a: ut.sort(a, descending=True),
                        lambda a: -np.sort(-a)),
    "argsort": (lambda a: ut.argsort(a, axis=1), lambda a: np.argsort(a, axis=1)),
    "argsort descending": (lambda a: ut.argsort(ut.asarray(a)[:, 0], descending=True),
                           lambda a: np.argsort(-a[:, 0], kind="stable")),
    "searchsorted": (lambda a: ut.searchsorted(ut.sort(ut.asarray(a)[0]),
                                               ut.asarray(a)[1]),
                     lambda a: np.searchsorted(np.sort(a[0]), a[1])),
    "cumulative_sum": (lambda a: ut.cumulative_sum(a, axis=1),
                       lambda a: np.cumsum(a, axis=1)),
    "cumulative_sum include_initial": (
        lambda a: ut.cumulative_sum(a, axis=0, include_initial=True),
        lambda a: np.concatenate([np.zeros((1, 3)), np.cumsum(a, axis=0)])),
    # dtypes
    "astype": (lambda a: ut.astype(a, ut.int32), lambda a: a.astype(np.int32)),
    "astype float32": (lambda a: ut.astype(a, ut.float32) * 2,
                       lambda a: a.astype(np.float32) * 2),
    "promotion": (lambda a: ut.astype(a, ut.float32) + a,
                  lambda a: a.astype(np.float32) + a),
    # framework-agnostic computations
    "softmax": (_softmax, _np_softmax),
    "standardise": (_standardise, _np_standardise),
}

# cases on int64 data: integer kernels (TF's CPU kernels lack some)
INT_CASES = {
    "int add": (lambda a: ut.asarray(a) + 3, lambda a: a + 3),
    "int floor_divide": (lambda a: ut.asarray(a) // 2, lambda a: a // 2),
    "int remainder": (lambda a: ut.asarray(a) % 3, lambda a: a % 3),
    "int sum": (lambda a: ut.sum(a, axis=1), lambda a: a.sum(axis=1)),
    "int cumulative_sum": (lambda a: ut.cumulative_sum(ut.reshape(a, (-1,))),
                           lambda a: np.cumsum(a.ravel())),
    "int matmul": (lambda a: ut.asarray(a) @ ut.asarray(a).mT, lambda a: a @ a.T),
    "int sort": (lambda a: ut.sort(a, axis=1), lambda a: np.sort(a, axis=1)),
    "int max": (lambda a: ut.max(a), np.max),
    "int pow": (lambda a: ut.asarray(a) ** 2, lambda a: a ** 2),
    "int32 matmul": (lambda a: ut.astype(a, ut.int32) @ ut.astype(a, ut.int32).mT,
                     lambda a: a.astype(np.int32) @ a.astype(np.int32).T),
    "bool all": (lambda a: ut.all(ut.asarray(a) > 0, axis=0),
                 lambda a: (a > 0).all(axis=0)),
}


def _write(x):
    x[0, :] = -1.0
    x[1:3, 0] = 9.0
    return x


def _xla(func):
    """``func`` inside ``tf.function(jit_compile=True)``, with the owner it saw."""
    seen = []

    def body(a):
        result = ut.asarray(func(a))
        seen.append(result.owner)
        return result.tf()
    return tf.function(body, jit_compile=True), seen


def _check(func, reference, data):
    compiled, seen = _xla(func)
    out = compiled(tf.constant(data))
    assert seen == ["tensorflow"]
    assert isinstance(out, tf.Tensor)
    eager = ut.asarray(func(tf.constant(data)))
    assert eager.owner == "tensorflow"
    result = ut.asarray(out)
    assert (result.owner, result.dtype, result.shape) == \
        (eager.owner, eager.dtype, eager.shape)
    expected = np.asarray(reference(data.copy()))
    assert result.dtype == ut.asarray(expected).dtype or expected.dtype.kind == "b"
    # XLA may round differently (a reciprocal for a division, another summation
    # order): to the last bits of float64, not more
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out.numpy(), eager.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", CASES)
def test_namespace_under_xla_matches_numpy(name):
    func, reference = CASES[name]
    _check(func, reference, DATA)


@pytest.mark.parametrize("name", INT_CASES)
def test_integer_namespace_under_xla_matches_numpy(name):
    func, reference = INT_CASES[name]
    _check(func, reference, INTS)


def test_float32_under_xla():
    data = DATA.astype(np.float32)
    compiled, seen = _xla(_softmax)
    out = compiled(tf.constant(data))
    assert seen == ["tensorflow"]
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), _np_softmax(data), rtol=1e-6)


def test_unknown_batch_dimension_under_xla():
    """A ``None`` dimension in the signature: XLA compiles per concrete shape."""
    spec = tf.TensorSpec((None, 3), tf.float64)
    compiled = tf.function(lambda a: _standardise(a).tf(), jit_compile=True,
                           input_signature=[spec])
    for rows in (4, 2):
        out = compiled(tf.constant(DATA[:rows]))
        np.testing.assert_allclose(out.numpy(), _np_standardise(DATA[:rows]),
                                   rtol=1e-12)


# -- what TF's CPU kernels lack and XLA's have: computed in TF under XLA -------------
MATRICES = np.array([[[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, -1.0, 2.0]],  # pivots
                     [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 5.0]],  # singular
                     [[2.0, 0.0, 0.0], [0.0, -3.0, 0.0], [0.0, 0.0, 0.5]],
                     [[1e-3, 4.0, 2.0], [5.0, 1e-3, -1.0], [2.0, 7.0, 3.0]]])


def _in_xla(func, *arrays):
    return tf.function(lambda *a: ut.asarray(func(*a)).tf(), jit_compile=True)(
        *[tf.constant(a) for a in arrays]).numpy()


@pytest.mark.slow  # an XLA compile per dtype (~3 s): the whole suite runs it
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_det_and_slogdet_under_xla(dtype):
    """TF's MatrixDeterminant and LogMatrixDeterminant have no XLA kernel: an LU
    with partial pivoting in TF ops instead, batched, singular matrices included."""
    data = MATRICES.astype(dtype)
    if dtype == "complex128":
        data = data + 1j * MATRICES[::-1]
    rtol = 1e-5 if dtype == "float32" else 1e-12
    det = _in_xla(ut.linalg.det, data)
    np.testing.assert_allclose(det, np.linalg.det(data), rtol=rtol, atol=rtol)
    assert det.dtype == data.dtype
    sign = _in_xla(lambda a: ut.linalg.slogdet(a).sign, data)
    logabsdet = _in_xla(lambda a: ut.linalg.slogdet(a).logabsdet, data)
    ref_sign, ref_log = np.linalg.slogdet(data)
    np.testing.assert_allclose(sign, ref_sign, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(logabsdet, ref_log, rtol=rtol, atol=rtol)
    assert logabsdet.dtype == ref_log.dtype
    one = _in_xla(ut.linalg.det, data[0])  # no batch
    np.testing.assert_allclose(one, np.linalg.det(data[0]), rtol=rtol)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64", "int8",
                                   "int16"])
def test_small_and_unsigned_integer_pow_under_xla(dtype):
    """TF's CPU Pow lacks these dtypes (eager computes in numpy); XLA's takes the
    signed ones, and unsigned ones square: numpy's wrapping results."""
    base = np.array([0, 1, 2, 3, 7, 100, 127], dtype)
    exponent = np.array([5, 0, 7, 3, 2, 4, 1], dtype)
    if dtype == "uint64":
        base = np.append(base, np.uint64(2**63 + 3))
        exponent = np.append(exponent, np.uint64(2**63 + 1))
    out = _in_xla(lambda a, b: ut.asarray(a) ** b, base, exponent)
    assert out.dtype == base.dtype
    np.testing.assert_array_equal(out, base ** exponent)
    eager = ut.asarray(tf.constant(base)) ** ut.asarray(tf.constant(exponent))
    np.testing.assert_array_equal(out, eager.numpy())


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint8", "uint16", "uint32",
                                   "uint64", "bool"])
def test_small_integer_products_under_xla(dtype):
    """XLA's MatMul takes none of these: computed in int32/int64 and wrapped
    back, as numpy's (eager's) results wrap."""
    a = (np.arange(24).reshape(2, 3, 4) * 37 % 251).astype(dtype)
    b = (np.arange(20).reshape(4, 5) * 53 % 241).astype(dtype)
    with np.errstate(over="ignore"):
        expected = np.matmul(a, b)
        expected_dot = np.tensordot(a, b, axes=1)
    out = _in_xla(ut.matmul, a, b)
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out, expected)
    eager = ut.matmul(tf.constant(a), tf.constant(b))
    np.testing.assert_array_equal(out, eager.numpy())
    dot = _in_xla(lambda u, v: ut.tensordot(u, v, axes=1), a, b)
    np.testing.assert_array_equal(dot, expected_dot)
    if dtype != "bool":  # not a numeric dtype: vecdot refuses it
        np.testing.assert_array_equal(_in_xla(ut.vecdot, a[0, 0], b[:, 0]),
                                      np.vecdot(a[0, 0], b[:, 0]))


def test_integer_tensordot_under_xla():
    np.testing.assert_array_equal(
        _in_xla(lambda u: ut.tensordot(u, u, axes=([0], [0])), INTS),
        np.tensordot(INTS, INTS, axes=([0], [0])))


# -- data-dependent shapes: XLA's bounded dynamic shapes compute them ---------------
DYNAMIC = {
    "nonzero": (lambda a: ut.stack(ut.nonzero(ut.asarray(a) > 2)),
                lambda a: np.stack(np.nonzero(a > 2))),
    "unique_values": (lambda a: ut.unique_values(ut.round(a)), lambda a: np.unique(
        np.round(a))),
    "unique_counts": (lambda a: ut.unique_counts(ut.round(a)).counts,
                      lambda a: np.unique(np.round(a), return_counts=True)[1]),
    "unique_inverse": (lambda a: ut.unique_inverse(ut.round(a)).inverse_indices,
                       lambda a: np.unique(np.round(a), return_inverse=True)[1]),
    "unique_all": (lambda a: ut.unique_all(ut.round(a)).indices,
                   lambda a: np.unique(np.round(a), return_index=True)[1]),
    "boolean mask": (lambda a: ut.asarray(a)[ut.asarray(a) > 2],
                     lambda a: a[a > 2]),
    "boolean mask rows": (lambda a: ut.asarray(a)[ut.asarray(a)[:, 0] > 2.0],
                          lambda a: a[a[:, 0] > 2.0]),
    "masked sum": (lambda a: ut.sum(ut.asarray(a)[ut.asarray(a) > 2] * 2),
                   lambda a: np.sum(a[a > 2] * 2)),
    "masked setitem": (lambda a: _mask_write(ut.asarray(a)),
                       lambda a: np.where(a > 2, 0.0, a)),
    "repeat by array": (lambda a: ut.repeat(a, ut.asarray([1, 0, 2, 1],
                                                          device=_dev(a)), axis=0),
                        lambda a: np.repeat(a, [1, 0, 2, 1], axis=0)),
}


def _mask_write(x):
    x[x > 2] = 0.0
    return x


@pytest.mark.parametrize("name", DYNAMIC)
def test_data_dependent_shapes_under_xla(name):
    """Output shapes that depend on the values: TF's XLA bridge compiles them with
    a bound (the input's size) and the true size at run time; values and shapes
    are numpy's."""
    func, reference = DYNAMIC[name]
    out = _in_xla(func, DATA)
    expected = reference(DATA)
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out, expected)


# -- what XLA cannot compile: refused when traced, with the standard's TypeError ----
REFUSED = {
    "linalg.eig": lambda a: ut.linalg.eig(ut.asarray(a)[:3]).eigenvalues,
    "linalg.eigvals": lambda a: ut.linalg.eigvals(ut.asarray(a)[:3]),
    "log": lambda a: ut.log(ut.astype(a, ut.complex128)),
    "sqrt": lambda a: ut.sqrt(ut.astype(a, ut.complex64)),
    "exp": lambda a: ut.exp(ut.astype(a, ut.complex128)),
    "pow": lambda a: ut.astype(a, ut.complex128) ** 2,
}


@pytest.mark.parametrize("name", REFUSED)
def test_what_xla_cannot_compile_is_refused_when_traced(name):
    """No XLA kernel (Eig), or the standard's complex special cases and complex
    pow, which TF computes through numpy (``tf.numpy_function``): a TypeError
    naming the function and XLA when traced, not XLA's compile error naming an
    op. Outside XLA, plain ``tf.function`` still computes them."""
    func = REFUSED[name]
    compiled = tf.function(lambda a: ut.asarray(func(a)).tf(), jit_compile=True)
    with pytest.raises(TypeError, match=rf"{name}\(\): x: expected a tensor outside "
                       r"XLA \(.*\), got a symbolic tf\.Tensor traced for XLA"):
        compiled(tf.constant(DATA))
    graph = tf.function(lambda a: ut.asarray(func(a)).tf())(tf.constant(DATA))
    np.testing.assert_allclose(graph.numpy(), ut.asarray(func(tf.constant(DATA)))
                               .numpy(), rtol=1e-6)
