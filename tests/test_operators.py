"""The array object's operators (unitensor/_operators.py): arithmetic, reflected,
comparison and in-place, in every computing owner."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from frameworks import aligned_empty
from owners import COMPUTING, LAZY

import unitensor as ut

pytestmark = pytest.mark.usefixtures("x64_for_jax_framework")


@pytest.mark.parametrize("framework", COMPUTING)
def test_operators_reflected_and_comparison(framework):
    x = ut.asarray(np.array([1, 2, 3], dtype=np.int32)).to(framework, copy=True)
    assert (x + 1).numpy().tolist() == [2, 3, 4]
    assert (10 - x).numpy().tolist() == [9, 8, 7]
    assert (2 ** x).numpy().tolist() == [2, 4, 8]
    assert (x // 2).numpy().tolist() == [0, 1, 1]
    assert (-x).numpy().tolist() == [-1, -2, -3]
    assert (~x).numpy().tolist() == [-2, -3, -4]
    assert (x << 1).numpy().tolist() == [2, 4, 6]
    assert (x == 2).numpy().tolist() == [False, True, False]
    assert (x >= 2).dtype == ut.bool
    assert (x + 1).dtype == ut.int32  # a Python scalar takes the array's dtype
    with pytest.raises(TypeError):
        hash(x)


@pytest.mark.parametrize("framework", COMPUTING)
def test_inplace_operators_mutate_or_rebind(framework):
    x = ut.asarray(np.arange(4.0)).to(framework, copy=True)
    alias = x
    x += 1
    x *= ut.asarray(np.full(4, 2.0)).to(framework, copy=True)
    assert alias is x
    assert x.numpy().tolist() == [2.0, 4.0, 6.0, 8.0]


# -- the in-place rule (issue #12, item 1 and 5) ------------------------------------
MUTABLE = [f for f in COMPUTING if f not in ("jax", "tensorflow")]  # immutable: rebinds


@pytest.mark.parametrize("data_owner", MUTABLE)
@pytest.mark.parametrize("forced", COMPUTING)
def test_inplace_inside_another_owner_writes_the_memory(data_owner, forced):
    from frameworks import make, pointer, to_numpy

    data = aligned_empty((3,), np.float32)  # jax: x64 may be off, 64-byte aligned
    data[:] = 0
    native = make(data_owner, data)
    if data_owner == "torch":  # make() copies into numpy's memory: 16-byte aligned
        import torch
        native = torch.zeros(3)
    twos = aligned_empty((3,), np.float32)
    twos[:] = 2.0
    t = ut.asarray(native)
    with ut.owner(forced):
        t += 1
        t *= ut.asarray(twos)
    assert t.owner == data_owner
    assert t.native is native  # the same array, written in place
    assert pointer(t.native) == pointer(native)
    assert to_numpy(native).tolist() == [2.0, 2.0, 2.0]


def test_inplace_on_an_immutable_owner_inside_another_owner_rebinds():
    jnp = pytest.importorskip("jax.numpy")
    pytest.importorskip("torch")
    t = ut.asarray(jnp.zeros(3, dtype=jnp.float32))
    with ut.owner("torch"):
        t += 1
    assert t.owner == "jax"
    assert np.asarray(t.native).tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("forced", [None, *COMPUTING])
def test_inplace_and_setitem_refuse_read_only_memory(forced):
    import contextlib

    x = np.zeros(3)
    x.flags.writeable = False
    t = ut.asarray(x)
    block = ut.owner(forced) if forced else contextlib.nullcontext()
    with block:
        with pytest.raises(ValueError, match=r"__iadd__\(\): self: expected an "
                                             "array whose memory can be written"):
            t += 1
        with pytest.raises(ValueError, match=r"__setitem__\(\): self: .* read-only"):
            t[0] = 1.0
    assert t.native is x
    assert x.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("framework", COMPUTING)
def test_inplace_keeps_dtype_by_the_standards_promotion(framework):
    from frameworks import make, to_numpy

    ints = ut.asarray(make(framework, np.arange(3, dtype=np.int32)))
    with pytest.raises(TypeError, match=r"__iadd__\(\): other: expected an operand "
                                        "that keeps the array's dtype int32, "
                                        "got float"):
        ints += 1.5
    floats = ut.asarray(make(framework, np.ones(3, dtype=np.float32)))
    wider = ut.asarray(make(framework, np.full(3, 2.0)))
    with pytest.raises(TypeError, match="keeps the array's dtype float32, got float64"):
        floats /= wider  # numpy and torch would cast silently
    assert to_numpy(floats.native).tolist() == [1.0, 1.0, 1.0]
    assert to_numpy(ints.native).tolist() == [0, 1, 2]


@pytest.mark.parametrize("framework", COMPUTING)
def test_inplace_never_grows_the_left_operand(framework):
    from frameworks import make

    x = ut.asarray(make(framework, np.zeros(3)))
    with pytest.raises(ValueError, match=r"__iadd__\(\): other: expected a shape that "
                                         r"broadcasts to the array's shape \(3,\), "
                                         r"got shape \(2, 3\)"):
        x += ut.asarray(make(framework, np.ones((2, 3))))
    x += ut.asarray(make(framework, np.ones(1)))  # broadcasting into x is fine
    assert x.shape == (3,)


def test_operators_stay_the_tensors_beside_torchs_functions():
    # torch hands `a + t` to Tensor.__torch_function__ as TensorBase.add, which it
    # also passes for `a.add(t)`: both are handed back, so the operator is the
    # Tensor's reflected one; torch's function torch.add(a, t) is torch's
    torch = pytest.importorskip("torch")
    a = torch.tensor([1.0, 2.0])
    t = ut.asarray(np.array([3.0, 4.0], dtype=np.float32))
    for op in ("+", "-", "*", "/", "//", "%", "**", "<", "<=", ">", ">=", "==", "!="):
        result = eval(f"a {op} t")
        assert isinstance(result, ut.Tensor), op
        expected = eval(f"a {op} torch.from_numpy(t.numpy())")
        assert result.numpy().tolist() == expected.tolist()
    assert isinstance(a.reshape(1, 2) @ t, ut.Tensor)
    added = torch.add(a, t)
    assert type(added) is torch.Tensor
    assert added.tolist() == [4.0, 6.0]
    with pytest.raises(TypeError):
        a.add(t)  # the method form cannot be told from the operator


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_a_boolean_mask_dimension_of_size_0_selects_nothing_on_every_owner(framework):
    """numpy's and the standard's reading: a mask dimension of size 0 matches any
    size (each other one must match), and nothing is read or written. torch and
    TensorFlow refused the mismatch (IndexError, ValueError) in reads and writes;
    a mask that does not fit is an IndexError on every owner (TensorFlow: a
    ValueError, which the official suite's test_getitem_masking refuses)."""
    base = np.arange(24.0).reshape(2, 3, 4)
    for mask_shape in ((2, 0), (0, 3), (0, 0), (0,), (2, 3, 0)):
        x = ut.asarray(base.copy()).to(framework, copy=True)
        mask = ut.asarray(np.zeros(mask_shape, dtype=bool)).to(framework, copy=True)
        expected = base[np.zeros(mask_shape, dtype=bool)]
        read = x[mask]
        assert read.shape == expected.shape
        assert read.dtype is ut.float64
        assert read.device == x.device
        x[mask] = -1.0
        x[mask] = ut.asarray(np.ones(1)).to(framework, copy=True)  # broadcasts
        np.testing.assert_array_equal(x.numpy(), base)
        with pytest.raises(ValueError, match="broadcasts to x\\[key\\]'s shape"):
            x[mask] = ut.asarray(np.ones(5)).to(framework, copy=True)
    x = ut.asarray(base.copy()).to(framework, copy=True)
    for mask_shape in ((2, 1), (3,), (0, 1), (2, 3, 4, 1)):  # IndexError, as numpy
        mismatched = ut.asarray(np.zeros(mask_shape, dtype=bool)).to(framework,
                                                                     copy=True)
        with pytest.raises(IndexError, match="a boolean mask of shape"):
            x[mismatched]
        with pytest.raises(IndexError, match="a boolean mask of shape"):
            x[mismatched] = 0.0


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_matmul_of_vectors_of_different_lengths_is_refused_on_every_owner(framework):
    """TensorFlow's product of two vectors was a sum of their elementwise product,
    which broadcasts: [1.0] @ [1.0, 2.0] was 3.0 and [2.0] @ [] 0.0, where numpy
    refuses both."""
    for m, n in ((1, 2), (2, 1), (1, 0), (3, 4)):
        x = ut.asarray(np.ones(m)).to(framework, copy=True)
        y = ut.asarray(np.arange(float(n))).to(framework, copy=True)
        with pytest.raises(ValueError, match=r"^matmul"):  # (dask: when computed)
            ut.asarray(ut.matmul(x, y).numpy())
        with pytest.raises(ValueError, match=r"^matmul"):
            ut.asarray((x @ y).numpy())
    x = ut.asarray(np.arange(3.0)).to(framework, copy=True)
    assert float(x @ x) == 5.0
    assert float(ut.matmul(ut.astype(x, ut.int64), ut.astype(x, ut.int64))) == 5


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_cross_and_outer_take_the_standard_s_shapes_on_every_owner(framework):
    """linalg.cross of vectors of 3 and linalg.outer of vectors, refused otherwise
    on every owner: numpy's and dask's namespaces (np.cross, np.outer) took
    2-vectors, a 3 with a 2, and flattened matrices; TensorFlow's outer broadcast
    a matrix to (2, 1, 2)."""
    def on(shape):
        return ut.asarray(np.ones(shape)).to(framework, copy=True)
    for shapes, arg in ((((3,), (2,)), "x2"), (((2,), (2,)), "x1"),
                        (((2, 2), (3,)), "x1")):
        with pytest.raises(ValueError, match=rf"linalg.cross\(\): {arg}: "
                           "expected an array whose axis -1 has size 3"):
            ut.linalg.cross(on(shapes[0]), on(shapes[1]))
    assert ut.linalg.cross(on((2, 3)), on((3,))).shape == (2, 3)  # broadcast
    assert ut.linalg.cross(on((3, 2)), on((3, 2)), axis=-2).shape == (3, 2)
    for shapes in (((2, 2), (2,)), ((), (2,)), ((3,), (1, 3))):
        with pytest.raises(ValueError, match=r"linalg.outer\(\): .*(one-dim|1-D|"
                           r"1-dim)"):  # (torch's, jax's own words where they refuse)
            ut.linalg.outer(on(shapes[0]), on(shapes[1]))
    assert ut.linalg.outer(on((2,)), on((3,))).shape == (2, 3)


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_too_few_dimensions_get_numpy_s_answer_on_every_owner(framework):
    """sort and argsort of a 0-d array and tril and triu of a vector are refused
    (torch and TensorFlow sorted the 0-d array; numpy made the vector a matrix);
    a 0-d array's cumulative sum and product are numpy's, a vector of one element
    (torch gave a 0-d array, jax, TensorFlow and dask refused). Each is asked after
    an array of enough dimensions, so the C fast path has the owner's function."""
    def on(value):
        return ut.asarray(np.asarray(value, dtype=np.float64)).to(framework,
                                                                 copy=True)
    for name, least in (("sort", 1), ("argsort", 1), ("tril", 2), ("triu", 2)):
        func = getattr(ut, name)
        func(on(np.ones((2,) * least)))  # (the fast path learns the owner's)
        for ndim in range(least):
            with pytest.raises(ValueError, match=rf"^{name}\(\): x: expected an "
                               rf"array of at least {least} dimension"):
                ut.asarray(func(on(np.ones((3,) * ndim))).numpy())
    assert ut.tril(on([[1.0, 2.0], [3.0, 4.0]]), k=0).numpy().tolist() == [
        [1.0, 0.0], [3.0, 4.0]]
    for name, initial in (("cumulative_sum", 0.0), ("cumulative_prod", 1.0)):
        func = getattr(ut, name)
        func(on([2.0, 3.0]))
        for kwargs, expected in (({}, [5.0]), ({"axis": 0}, [5.0]),
                                 ({"axis": -1}, [5.0]),
                                 ({"include_initial": True}, [initial, 5.0])):
            result = func(on(5.0), **kwargs)
            assert result.shape == (len(expected),)
            assert result.numpy().tolist() == expected
        with pytest.raises(ValueError, match=rf"^{name}\(\): "):
            ut.asarray(func(on(5.0), axis=1).numpy())


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_a_matrix_norm_s_ord_in_vector_norm_is_a_type_error_on_every_owner(
        framework):
    """numpy, jax and dask said ValueError, torch and TensorFlow TypeError."""
    x = ut.asarray(np.ones(3)).to(framework, copy=True)
    float(ut.linalg.vector_norm(x, ord=2).numpy())  # (the fast path learns it)
    for ord_ in ("fro", "nuc"):
        with pytest.raises(TypeError, match=r"^linalg.vector_norm\(\): ord: "
                           "expected an int, a float, inf or -inf"):
            ut.linalg.vector_norm(x, ord=ord_)


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_index_writes_are_numpy_s_on_every_owner(framework):
    """A uint8 index array is indices (torch read it as a boolean mask); an index
    out of bounds is an IndexError before anything is written (torch wrote the
    indices in bounds first, jax dropped the write silently); a value reading
    the memory written is read first (torch refused it)."""
    def on(value, dtype=np.float64):
        return ut.asarray(np.asarray(value, dtype=dtype)).to(framework, copy=True)
    x = on([0.0, 1.0, 2.0])
    for dtype in (np.int8, np.int16, np.uint16):  # (torch refused these)
        assert x[on([2, 0], dtype)].numpy().tolist() == [2.0, 0.0]
    i = on([1, 0, 1], np.uint8)
    assert x[i].numpy().tolist() == [1.0, 0.0, 1.0]
    assert ut.take(x, i).numpy().tolist() == [1.0, 0.0, 1.0]
    arrays = framework != "array_api_strict"  # (it writes through no index array)
    if arrays:
        x[i] = 9.0
        assert x.numpy().tolist() == [9.0, 9.0, 2.0]
    def write(y, key):
        if type(key) is tuple:
            y[key[0]][3] = 7.0  # (a view, then an index of it)
        else:
            y[on(key, np.int64) if type(key) is list else key] = 7.0
        y.numpy()  # (dask: refused once computed)
    keys = [4, -5, (slice(1, None), 0)] + ([[9], [1, 9], [-5, 0]] if arrays else [])
    for key in keys:
        y = on([0.0, 1.0, 2.0, 3.0])
        with pytest.raises(IndexError, match=r"^__setitem__\(\): "):
            write(y, key)
        assert y.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    if arrays:  # no index at all, on an axis of length 0: nothing to check
        e, none = on(np.zeros(0)), on(np.zeros(0), np.int64)
        assert e[none].shape == (0,)
        e[none] = 1.0
        m0 = on(np.zeros((2, 0)))
        m0[:, none] = 1.0
        assert m0.shape == (2, 0)
    for mask in ([True], [False, True]):  # (a mask is no index array: 1 is True)
        w = on(np.zeros(len(mask)))
        w[on(mask, np.bool_)] = 7.0
        assert w.numpy().tolist()[-1] == 7.0
        assert w[on(mask, np.bool_)].numpy().tolist()[-1] == 7.0
    z = on(np.arange(6.0))
    z[1:] = z[:-1]
    assert z.numpy().tolist() == [0.0, 0.0, 1.0, 2.0, 3.0, 4.0]
    m = on(np.arange(4.0).reshape(2, 2))
    m[...] = m.mT
    assert m.numpy().tolist() == [[0.0, 2.0], [1.0, 3.0]]


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_an_array_with_a_python_scalar_gives_one_answer_on_every_call(framework):
    """The C path's shortcut for an array and a Python scalar repeats the general
    path's answer: jax's own bool * nan gave 0 for False, bool // 0 jax's -1 and
    bool ** 200 int32 from the second call on; copysign(int8_x, 1.5) was float64
    on the first call and numpy's float16 loop after it, and so were the
    floating-point functions of a bool array with a Python int (copysign(b, 2))."""
    def on(value, dtype):
        return ut.asarray(np.asarray(value, dtype=dtype)).to(framework, copy=True)
    b, i8 = on([False, True], np.bool_), on([-3, 2], np.int8)
    calls = [lambda: b * float("nan"), lambda: b * -0.0, lambda: b // 0,
             lambda: b ** 200, lambda: b + 1, lambda: b - 1.5, lambda: b * 2j,
             lambda: ut.copysign(i8, 1.5), lambda: ut.copysign(b, -1.5),
             lambda: ut.atan2(i8, 2.0), lambda: b & True, lambda: i8 * 0.5,
             lambda: ut.copysign(b, 2), lambda: ut.atan2(b, 0),
             lambda: ut.hypot(b, 3), lambda: ut.logaddexp(b, 0),
             lambda: ut.nextafter(b, 0)]
    expected = [("float64", [np.nan, np.nan]), ("float64", [-0.0, -0.0]),
                ("int64", [0, 0]), ("int64", [0, 1]), ("int64", [1, 2]),
                ("float64", [-1.5, -0.5]), ("complex128", [0j, 2j]),
                ("float64", [3.0, 2.0]), ("float64", [-0.0, -1.0]),
                ("float64", np.arctan2([-3.0, 2.0], 2.0)), ("bool", [False, True]),
                ("float64", [-1.5, 1.0]), ("float64", [0.0, 1.0]),
                ("float64", np.arctan2([0.0, 1.0], 0.0)),
                ("float64", np.hypot([0.0, 1.0], 3.0)),
                ("float64", np.logaddexp([0.0, 1.0], 0.0)),
                ("float64", np.nextafter([0.0, 1.0], 0.0))]
    with np.errstate(divide="ignore"):
        for _ in range(3):  # the first call takes the general path, later ones C
            for call, (dtype, values) in zip(calls, expected, strict=True):
                result = call()
                assert result.dtype == getattr(ut, dtype)
                got = result.numpy()
                np.testing.assert_array_equal(got, values)
                np.testing.assert_array_equal(np.signbit(got.real),
                                              np.signbit(np.real(values)))


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_python_scalars_and_dtype_pairs_follow_one_rule_on_every_owner(framework):
    """where's Python int must fit the array's dtype (numpy, jax and dask wrapped
    300 to 44 in int8) and one of x1, x2 is an array (torch made float32 of two
    scalars, numpy float64); clip keeps an integer x's dtype, so a float bound is
    refused (torch and jax gave floats); int64 with uint64 has no promotion
    (numpy, jax and dask gave float64); a bool array meets an int as int64 (torch
    wrapped 2**63); an int beyond 64 bits beside a float array is the float it
    rounds to (jax and torch refused it)."""
    def on(value, dtype):
        return ut.asarray(np.asarray(value, dtype=dtype)).to(framework, copy=True)
    c, i8 = on([True, False], np.bool_), on([1, 2], np.int8)
    for _ in range(2):  # (the second call through C)
        with pytest.raises(OverflowError, match=r"^where\(\): x2: expected a Python "
                           "int within int8's range"):
            ut.where(c, i8, 300)
        with pytest.raises(OverflowError, match=r"^where\(\): x1: "):
            ut.where(c, -300, i8)
        with pytest.raises(TypeError, match=r"^where\(\): x1, x2: expected at least "
                           "one array"):
            ut.where(c, 1, 2.5)
        assert ut.where(c, i8, 100).numpy().tolist() == [1, 100]
        with pytest.raises(TypeError, match=r"^clip\(\): min: expected None or a "
                           "Python int for an array of int64"):
            ut.clip(on([1, 5, 9], np.int64), 2.5, 7)
        assert ut.clip(on([1.0, 9.0], np.float64), 2.5, 7.5).numpy().tolist() == [
            2.5, 7.5]
        with pytest.raises(TypeError, match=r"^clip\(\): max: expected None, a Python "
                           "int or an array of a kind int64 holds"):
            ut.clip(on([1, 5, 9], np.int64), max=on([2.5], np.float64))
        with pytest.raises(TypeError, match=r"^add\(\): arrays_and_dtypes: expected "
                           "dtypes the Array API standard promotes together"):
            ut.asarray(on([-1], np.int64) + on([2], np.uint64)).numpy()
        with pytest.raises(OverflowError, match=r"^add\(\): x2: expected a Python int "
                           "within int64's range"):
            on([False, True], np.bool_) + 2**63
        f = on([1.0, 2.0], np.float64)
        f // 2.0  # (the C path learns floor_divide with a scalar)
        for name, args in (("floor_divide", (f, 1j)), ("remainder", (f, 1j)),
                           ("floor_divide", (1j, f))):
            with pytest.raises(TypeError, match=rf"^{name}\(\): x[12]: expected "
                               "a real number"):  # (dask: NotImplemented)
                getattr(ut, name)(*args)
        big = on([1.0], np.float32) + 2**63
        assert big.dtype == ut.float32
        assert big.numpy().tolist() == [2.0**63]
        assert (2**70 * on([1.0], np.float64)).numpy().tolist() == [2.0**70]


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_no_degrees_of_freedom_and_an_empty_complex_mean_are_nan(framework):
    """var and std where N - correction <= 0 are NaN, as the standard says
    (numpy, torch, TensorFlow and dask gave inf); TensorFlow's complex mean of
    no element was 0."""
    def on(value, dtype=np.float64):
        return ut.asarray(np.asarray(value, dtype=dtype)).to(framework, copy=True)
    x, m = on([1.0, 2.0, 4.0]), on(np.arange(6.0).reshape(2, 3))
    for _ in range(2):
        np.testing.assert_allclose([float(ut.var(x, correction=k).numpy())
                                    for k in (1, 2)], [7 / 3, 14 / 3])
        for k in (3, 4):
            assert np.isnan(ut.var(x, correction=k).numpy())
            assert np.isnan(ut.std(x, correction=k).numpy())
        assert np.isnan(ut.std(m, axis=0, correction=2).numpy()).all()
        assert ut.var(m, axis=-1, correction=2).numpy().tolist() == [2.0, 2.0]
        empty = on(np.zeros((0, 3)), np.complex128)
        with warnings.catch_warnings():  # (numpy's "Mean of empty slice")
            warnings.simplefilter("ignore", RuntimeWarning)
            assert np.isnan(ut.mean(empty).numpy())
            assert np.isnan(ut.mean(empty, axis=0).numpy()).all()


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_division_and_means_are_numpy_s_on_every_owner(framework):
    """The standard asks division correctly rounded. XLA divided by a divisor
    broadcast along any axis as a product with its reciprocal: on the jax owner
    x / 3.0 was 1 ulp off for a third of the elements, and so was a mean (sum /
    count) whose sum is exact."""
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):  # (complex: each owner's own algorithm)
        x = np.linspace(-10, 10, 1001).astype(dtype)
        rows = np.linspace(-10, 10, 700).astype(dtype).reshape(100, 7)
        row = (np.arange(1, 8) * 3.1).astype(dtype)
        divisor = np.asarray(3.0, dtype)
        xs = [ut.asarray(v).to(framework, copy=True) for v in (x, rows, row, divisor)]
        sums = [(rng.integers(-1000, 1000, n) / 8).astype(dtype) for n in range(3, 40)]
        for _ in range(2):  # (the second call through C)
            for got, expected in ((xs[0] / 3.0, x / dtype(3.0)),
                                  (ut.divide(xs[0], xs[3]), x / divisor),
                                  (xs[1] / xs[2], rows / row)):
                np.testing.assert_array_equal(got.numpy(), expected)
            for values in sums:
                mean = ut.mean(ut.asarray(values).to(framework, copy=True))
                assert float(mean.numpy()) == float(np.mean(values))


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_complex_sums_are_taken_part_by_part_on_every_owner(framework):
    """torch added x1 + 1 * x2, a complex product that made NaN of a part beside
    an infinite one: 0j + (0+infj) gave nan+infj, in place too."""
    inf = float("inf")

    def on(value):
        return ut.asarray(np.asarray(value, dtype=np.complex128)).to(framework,
                                                                     copy=True)
    x, y = on([complex(0, inf), complex(inf, 0)]), on([0j, -0j])
    for _ in range(2):  # (the second call through C)
        for got, expected in (((y + x), [complex(0, inf), complex(inf, 0)]),
                              ((y - x), [complex(0, -inf), complex(-inf, -0.0)]),
                              ((200 + x), [complex(200, inf), complex(inf, 0)]),
                              ((1.5 - x), [complex(1.5, -inf), complex(-inf, 0)])):
            np.testing.assert_array_equal(got.numpy(), expected)
    z = on([0j, 0j])
    z += x
    np.testing.assert_array_equal(z.numpy(), [complex(0, inf), complex(inf, 0)])
    nan = float("nan")  # abs: +inf beside a NaN part, as the standard says (jax: NaN)
    w = on([complex(inf, nan), complex(nan, -inf), complex(nan, 1.0), 3 + 4j])
    for _ in range(2):
        np.testing.assert_array_equal(ut.abs(w).numpy(), [inf, inf, nan, 5.0])
    for dtype in (np.int8, np.float32):  # (the fix keeps other dtypes as they are)
        r = ut.asarray(np.array(-3, dtype)).to(framework, copy=True)
        assert abs(r).dtype == ut.abs(r).dtype == getattr(ut, np.dtype(dtype).name)


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_a_matrix_a_factorization_fails_on_is_refused_on_every_owner(framework):
    """jax answered NaN for cholesky of a matrix not positive definite and inf for
    inv of a singular one; TensorFlow's cholesky was NaN over memory it never
    wrote (its upper triangle changed from call to call)."""
    def on(value):
        return ut.asarray(np.asarray(value, dtype=np.float64)).to(framework,
                                                                 copy=True)
    # (and matrix_power of a negative power: jax answered inf)
    for func, matrix in ((ut.linalg.cholesky, [[1.0, 2.0], [2.0, 1.0]]),
                         (ut.linalg.inv, [[1.0, 2.0], [2.0, 4.0]]),
                         (lambda a: ut.linalg.solve(a, on([1.0, 1.0])),
                          [[1.0, 2.0], [2.0, 4.0]]),
                         (lambda a: ut.linalg.matrix_power(a, -1),
                          [[1.0, 2.0], [2.0, 4.0]]),
                         (lambda a: ut.linalg.matrix_power(a, -2), [[0.0, 0.0],
                                                                    [0.0, 0.0]])):
        with pytest.raises(ValueError, match=r"^linalg\.(cholesky|inv|solve|"
                           r"matrix_power)\(\): "):
            ut.asarray(func(on(matrix)).numpy())  # (dask: once computed)
    np.testing.assert_allclose(ut.linalg.cholesky(on([[4.0, 2.0], [2.0, 3.0]])).numpy(),
                               [[2.0, 0.0], [1.0, np.sqrt(2.0)]])
    z = ut.asarray(np.array([[2 + 0j, 1j], [-1j, 2 + 0j]])).to(framework, copy=True)
    np.testing.assert_allclose(ut.linalg.cholesky(z).numpy(),  # (complex: TF's check)
                               np.linalg.cholesky(z.numpy()), atol=1e-12)


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_transforms_of_integers_are_computed_in_float64_on_every_owner(framework):
    """numpy's answer (torch's fft.fft of int64 was complex64)."""
    if framework == "array_api_strict":
        pytest.skip("array_api_strict refuses a real array in fft.fft")
    x = ut.asarray(np.array([1, 2, 3])).to(framework, copy=True)
    for _ in range(2):  # (the second call through C)
        for got, expected in ((ut.fft.fft(x), np.fft.fft([1.0, 2.0, 3.0])),
                              (ut.fft.rfft(x, n=4), np.fft.rfft([1.0, 2.0, 3.0], 4))):
            assert got.dtype == ut.complex128
            np.testing.assert_allclose(got.numpy(), expected, atol=1e-12)


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_an_index_out_of_bounds_is_an_index_error_in_reads_on_every_owner(framework):
    """jax clamped it: x[6] of 6 elements read x[5] (also through C, after a
    first read made x the base of its views)."""
    x = ut.asarray(np.arange(6.0)).to(framework, copy=True)
    m = ut.asarray(np.arange(6.0).reshape(2, 3)).to(framework, copy=True)
    for _ in range(3):
        assert float(x[5].numpy()) == 5.0
        assert float(x[..., -6].numpy()) == 0.0
        assert m[1, ...].numpy().tolist() == [3.0, 4.0, 5.0]
        for array, key in ((x, 6), (x, -7), (x, (Ellipsis, 6)), (m, (1, 3)),
                           (m, (2, 0)), (m, (0, Ellipsis, 3))):
            with pytest.raises(IndexError):
                ut.asarray(array[key].numpy())
    if framework != "array_api_strict":  # (it reads no index array of ints)
        with pytest.raises(IndexError, match=r"^__getitem__\(\): "):
            ut.asarray(x[ut.asarray(np.array([6])).to(framework, copy=True)].numpy())


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_shapes_that_do_not_fit_together_are_a_value_error_on_every_owner(framework):
    """jax checks shapes as part of an array's abstract type and raised TypeError
    for these (dot_general, concatenate, reshape), where the other owners raise
    ValueError; a dtype a function does not take stays a TypeError."""
    def on(shape):
        return ut.asarray(np.ones(shape)).to(framework, copy=True)
    refusals = {
        "matmul": lambda: ut.matmul(on((2, 3)), on((2, 3))),
        "tensordot": lambda: ut.tensordot(on(2), on(3), axes=1),
        "concat": lambda: ut.concat([on((2, 2)), on((3, 3))]),
        "reshape": lambda: ut.reshape(on(4), (3,)),
        "clip": lambda: ut.clip(on(3), on(2)),
        "permute_dims": lambda: ut.permute_dims(on((2, 3)), (0, 0)),
        "linalg.qr": lambda: ut.linalg.qr(on(3))[0],
        "linalg.matrix_power": lambda: ut.linalg.matrix_power(on((2, 3)), 2),
    }
    for name, refused in refusals.items():
        with pytest.raises(ValueError, match=rf"^{name}\(\): "):
            ut.asarray(refused().numpy())  # (dask: refused once computed)
    with pytest.raises(TypeError):
        ut.bitwise_and(on(2), on(2))


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_take_of_a_matrix_of_indices_and_diff_of_a_negative_n_are_refused(framework):
    """The standard's take takes one-dimensional indices (numpy, jax and
    TensorFlow gave results of a matrix's shape, torch, dask and array_api_strict
    refused it); diff a non-negative n (TensorFlow's gave x back for n=-1)."""
    x = ut.asarray(np.arange(3.0)).to(framework, copy=True)
    indices = ut.asarray(np.array([[0, 1]])).to(framework, copy=True)
    with pytest.raises(ValueError, match=r"take\(\): indices: expected a "
                       "one-dimensional array of indices, got a 2-d array"):
        ut.take(x, indices)
    assert ut.take(x, ut.asarray(np.array([2, 0])).to(framework, copy=True)
                   ).numpy().tolist() == [2.0, 0.0]
    with pytest.raises(ValueError, match=r"diff\(\): n: expected a non-negative"):
        ut.diff(x, n=-1)
    assert ut.diff(x, n=0).numpy().tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("framework", [f for f in COMPUTING + LAZY
                                       if f != "array_api_strict"])  # (no float16)
def test_a_float16_mean_sums_in_float32_as_numpy_s(framework):
    """numpy (and jax, torch) sum float16 in float32 for a mean; TensorFlow's and
    dask's float16 sums overflowed: the mean of 60000, 60000 and 50000 was inf."""
    values = np.array([[60000, 60000, 50000], [1, 2, 3]], np.float16)
    x = ut.asarray(values).to(framework, copy=True)
    for kwargs in ({}, {"axis": 1}, {"axis": 0, "keepdims": True}):
        got = ut.mean(x, **kwargs)
        expected = np.mean(values, **kwargs)
        assert got.dtype == ut.float16
        np.testing.assert_array_equal(np.asarray(got.numpy()), expected)


@pytest.mark.parametrize("framework", COMPUTING + LAZY)
def test_an_in_place_operator_whose_bool_result_is_int8_is_refused(framework):
    """``mask // mask``, ``%`` and ``**`` are int8 by the bool rule (numpy's
    loops), which a bool array cannot keep in place: numpy refused ``**=`` and
    the other owners wrote bools; every owner refuses all three now, twice."""
    for op in ("__ifloordiv__", "__imod__", "__ipow__"):
        for other in (True, "mask"):
            for _ in range(2):
                x = ut.asarray(np.array([True, False, True])).to(framework, copy=True)
                with pytest.raises(TypeError, match=r"keeps the array's dtype bool"):
                    getattr(x, op)(x if other == "mask" else other)
                np.testing.assert_array_equal(x.numpy(), [True, False, True])
    x = ut.asarray(np.array([True, False])).to(framework, copy=True)
    x += True  # (or: bool by the rule, kept)
    np.testing.assert_array_equal(x.numpy(), [True, True])
