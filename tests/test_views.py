"""Views on every owner (unitensor/_views.py): a write through a view reaches its
base and every other view, whoever owns the data, as in numpy.

The differential test builds random chains of view operations and writes, runs
the same program on every owner, and compares every Tensor of it with the
numpy owner's. ``UNITENSOR_VIEWS_EXAMPLES`` draws more programs (a slow run).
"""

from __future__ import annotations

import copy
import os
import threading
import warnings

import numpy as np
import pytest
from frameworks import make
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import unitensor as ut

OWNERS = ["numpy", "torch", "jax", "tensorflow", "dask", "array_api_strict"]
IMMUTABLE = ["jax", "tensorflow", "dask"]
DEFAULT_EXAMPLES = 6
EXAMPLES = int(os.environ.get("UNITENSOR_VIEWS_EXAMPLES", str(DEFAULT_EXAMPLES)))


def tensor(owner: str, base: np.ndarray) -> ut.Tensor:
    try:
        return ut.asarray(make(owner, base))
    except ImportError:
        pytest.skip(f"{owner} is not installed")


def values(t: ut.Tensor) -> np.ndarray:
    return np.asarray(t.numpy())


# -- the examples ----------------------------------------------------------
@pytest.mark.parametrize("owner", OWNERS)
def test_a_write_through_a_reshape_reaches_the_base(owner):
    x = tensor(owner, np.zeros(6))
    v = ut.reshape(x, (2, 3))
    v[0, 0] = 1.0
    assert float(x[0]) == 1.0
    np.testing.assert_array_equal(values(v), [[1, 0, 0], [0, 0, 0]])


@pytest.mark.parametrize("owner", OWNERS)
def test_an_in_place_operator_on_a_slice_reaches_the_base(owner):
    y = tensor(owner, np.zeros(6))
    s = y[2:]
    s += 1.0
    np.testing.assert_array_equal(values(y), [0, 0, 1, 1, 1, 1])
    np.testing.assert_array_equal(values(s), [1, 1, 1, 1])


@pytest.mark.parametrize("owner", OWNERS)
def test_a_write_through_a_chain_reaches_the_base_and_its_siblings(owner):
    z = tensor(owner, np.zeros(6))
    r = ut.reshape(z, (2, 3))
    t = ut.matrix_transpose(r)
    sibling = z[1:3]
    t[1, 0] = 5.0
    np.testing.assert_array_equal(values(z), [0, 5, 0, 0, 0, 0])
    np.testing.assert_array_equal(values(r), [[0, 5, 0], [0, 0, 0]])
    np.testing.assert_array_equal(values(sibling), [5, 0])
    z[2] = 7.0  # a write to the base reaches its views
    np.testing.assert_array_equal(values(t), [[0, 0], [5, 0], [7, 0]])
    np.testing.assert_array_equal(values(sibling), [5, 7])


@pytest.mark.parametrize("owner", OWNERS)
def test_a_write_through_flip_reaches_the_base(owner):
    # torch has no negative strides: its flip is a copy, kept a view of its base
    x = tensor(owner, np.zeros(4))
    f = ut.flip(x)
    f[0] = 3.0
    np.testing.assert_array_equal(values(x), [0, 0, 0, 3])
    x[1] = 7.0  # and a write to the base reaches the flipped view
    np.testing.assert_array_equal(values(f), [3, 0, 7, 0])
    r = x[::-1]
    r[1:3] += 1.0
    np.testing.assert_array_equal(values(x), [0, 8, 1, 3])


@pytest.mark.parametrize("owner", OWNERS)
def test_copies_stay_copies(owner):
    """Where numpy copies (advanced indexing, astype, a reshape its strides allow no
    view of, an integer key giving a scalar, copy=True), a write reaches nothing.
    """
    x = tensor(owner, np.arange(6.0).reshape(2, 3))
    copies = [ut.astype(x, ut.float32),
              ut.reshape(ut.matrix_transpose(x), (6,)),
              ut.reshape(x, (3, 2), copy=True)]
    copies += [x[0, 1], x[0, 1], x[-1, -1]]  # (the second read through C)
    copies += [ut.flip(x[1, 1]), ut.flip(ut.flip(x[1, 1]))]  # numpy's are scalars
    # (torch read a 0-d index array as an int, a view; numpy's: advanced, a copy)
    copies.append(x[tensor(owner, np.array(1)), 1])
    if owner != "dask":  # (dask writes no array of unknown size)
        copies.append(x[x > 2.0])
    for c in copies:
        c[...] = -1
    np.testing.assert_array_equal(values(x), np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("owner", OWNERS)
def test_functions_giving_their_input_as_it_is_give_a_new_array(owner):
    """numpy's positive, conj of a real array, floor/ceil/trunc of integers and
    unstack of a 1-d array make new arrays: torch's positive and conj returned
    the tensor itself, its unstack items were 0-d views, and so were
    array_api_strict's floor of integers and unstack items."""
    x = tensor(owner, np.arange(4.0))
    n = tensor(owner, np.arange(4))
    for _ in range(2):  # (the second call through C)
        results = [+x, ut.positive(x), ut.conj(x), ut.unstack(x)[2], ut.floor(n),
                   ut.ceil(n), ut.trunc(n), ut.unstack(n)[1]]
        for r in results:
            r[...] = 100
    np.testing.assert_array_equal(values(x), np.arange(4.0))
    np.testing.assert_array_equal(values(n), np.arange(4))


@pytest.mark.parametrize("owner", ["numpy", "torch"])
def test_a_write_through_a_flip_keeps_writes_made_to_the_base_s_memory(owner):
    """torch's flip view is its own copy: a write through it took that copy back
    into the base whole, undoing what a numpy array of the base's memory had
    written since (numpy's flip view is of the memory itself)."""
    x = tensor(owner, np.arange(6.0))
    f = ut.flip(x)
    values(f)
    x.numpy()[0] = 50.0  # the base's memory, written around unitensor
    f[0] = 9.0
    s = x[::-2]
    values(s)
    np.asarray(x)[3] = 30.0
    s[0] += 1.0
    np.testing.assert_array_equal(values(x), [50, 1, 2, 30, 4, 10])


def test_a_torch_flip_view_hands_out_no_alias_a_write_would_leave_its_base():
    """torch's flip view holds its own copy: its numpy arrays (.numpy(),
    np.asarray, np.from_dlpack) were writable aliases of that copy, whose writes
    changed the view and not its base (until the next write threw them away);
    they are read-only now, and its torch tensor a copy (as the numpy owner's)."""
    x = tensor("torch", np.arange(6.0))
    f = ut.flip(x)
    for exported in (f.numpy(), np.asarray(f), np.from_dlpack(f)):
        assert not exported.flags.writeable
        np.testing.assert_array_equal(exported, [5, 4, 3, 2, 1, 0])
    t = f.torch()
    t[0] = 100.0
    np.testing.assert_array_equal(values(x), np.arange(6.0))
    np.testing.assert_array_equal(values(f), [5, 4, 3, 2, 1, 0])
    f[0] = 9.0  # and the view itself stays writable
    np.testing.assert_array_equal(values(x), [0, 1, 2, 3, 4, 9])


def test_a_torch_tensor_s_views_share_one_base_and_see_each_other_s_writes():
    """A torch Tensor's tied views (flip: a copy in torch; broadcast_to: numpy's
    read-only view) share the Base the Tensor keeps while its array is the same
    (it was made anew at every tie, ~1 µs of each ``broadcast_to``)."""
    x = tensor("torch", np.arange(4.0))
    f = ut.flip(x)
    b = ut.broadcast_to(x, (2, 4))
    assert f._view.base is b._view.base is x._base
    f[0] = 9.0
    np.testing.assert_array_equal(values(b), [[0, 1, 2, 9]] * 2)
    x[1] = 7.0
    np.testing.assert_array_equal(values(f), [9, 2, 7, 0])
    with pytest.raises(ValueError, match="read-only"):
        b[0, 0] = 1.0
    x._native = x._native.clone()  # another array: another Base
    assert ut.flip(x)._view.base is not f._view.base
    np.testing.assert_array_equal(values(f), [9, 2, 7, 0])


@pytest.mark.parametrize("owner", OWNERS)
def test_a_reshape_of_a_flip_that_numpy_copies_reaches_nothing(owner):
    """torch's reshape of a flip view's own (compact) copy was a view of that
    copy: a write into it changed the flip view, and not its base."""
    x = tensor(owner, np.arange(24.0).reshape(4, 3, 2))
    f = ut.flip(x, axis=-2)
    r = ut.reshape(f, (-1,))
    r += 8.0
    np.testing.assert_array_equal(values(x), np.arange(24.0).reshape(4, 3, 2))
    np.testing.assert_array_equal(values(f), np.flip(np.arange(24.0).reshape(
        4, 3, 2), axis=-2))


@pytest.mark.parametrize("owner", OWNERS)
def test_what_numpy_shares_is_shared_and_a_needed_copy_is_refused(owner):
    """astype(x, x.dtype, copy=False) is x itself (the standard's), copy.copy a
    Tensor sharing the memory: a write through either reaches x, also on an
    immutable owner (where they were Tensors of their own); a reshape with
    copy=False that numpy would copy is refused (jax and TensorFlow copied, and
    torch for a flip view)."""
    x = tensor(owner, np.arange(4.0))
    assert ut.astype(x, x.dtype, copy=False) is x
    c = copy.copy(x)
    c[1] = 200.0
    cf = copy.copy(ut.flip(x))
    cf[0] = 300.0
    np.testing.assert_array_equal(values(x), [0, 200, 2, 300])
    m = tensor(owner, np.arange(6.0).reshape(2, 3))
    for needs_a_copy in (m.mT, ut.flip(m, axis=0)):
        with pytest.raises(ValueError, match=r"^reshape\(\): copy: expected True or "
                           "None, since this reshape needs a copy"):
            ut.reshape(needs_a_copy, (-1,), copy=False)
    assert ut.reshape(m, (3, 2), copy=False).shape == (3, 2)


_READ_ONLY_VIEWS = {
    "broadcast_to": lambda x: ut.broadcast_to(x, (2, 2, 3)),
    "broadcast_arrays": lambda x: ut.broadcast_arrays(
        x, ut.zeros((2, 1, 1), dtype=x.dtype, device=x.device))[0],
    "linalg.diagonal": lambda x: ut.linalg.diagonal(x, offset=1)}


@pytest.mark.parametrize("owner", OWNERS)
@pytest.mark.parametrize("name", list(_READ_ONLY_VIEWS))
def test_numpy_s_read_only_views_are_read_only_views_on_every_owner(owner, name):
    """broadcast_to, broadcast_arrays and linalg.diagonal are numpy's read-only
    views: a write into x shows in them, and one into them (or into a view of
    them) is refused, on every owner. torch wrote into its views (into every
    element a broadcast repeats), jax, TensorFlow and dask into copies, which
    also missed later writes to x; numpy's broadcast_arrays were writable with
    a FutureWarning."""
    x = tensor(owner, np.arange(6.0).reshape(2, 3))
    for _ in range(2):  # (the second call through C, where one is learned)
        v = _READ_ONLY_VIEWS[name](x)
        x[0, 1] = 100.0
        expected = values(v).copy()
        assert v.readonly
        for writes in (v, v[0, ...]):
            with pytest.raises(ValueError, match=r"expected an array whose memory "
                               "can be written, got read-only memory"):
                writes[0, ...] = -1.0
            with pytest.raises(ValueError, match="read-only memory"):
                writes += 1.0
        np.testing.assert_array_equal(values(v), expected)
        x[0, 1] = 1.0
    np.testing.assert_array_equal(values(x), np.arange(6.0).reshape(2, 3))
    reference = {"broadcast_to": [[0, 1, 2], [3, 4, 5]], "broadcast_arrays":
                 [[0, 1, 2], [3, 4, 5]], "linalg.diagonal": [1, 5]}[name]
    np.testing.assert_array_equal(values(v)[0] if v.ndim == 3 else values(v),
                                  reference)


@pytest.mark.parametrize("owner", OWNERS)
def test_elementwise_functions_of_views_read_their_current_values(owner):
    """``x[1:] - x[:-1]``: views as the operands of an elementwise function,
    read by C as they are while no write has moved their base (the differences
    of an immutable owner's slices cost 7.2 µs, native 4.8, on the general
    path), and re-derived once one has."""
    x = tensor(owner, np.arange(8.0))
    ahead, behind = x[1:], x[:-1]
    for _ in range(2):  # (the second time by the fast path the first taught)
        np.testing.assert_array_equal(values(ahead - behind), np.ones(7))
        np.testing.assert_array_equal(values(ut.multiply(ahead, 2.0)),
                                      2.0 * np.arange(1.0, 8.0))
        np.testing.assert_array_equal(values(3.0 - behind), 3.0 - np.arange(7.0))
    x[3] = 100.0  # the base moves: both views are stale until read again
    expected = np.diff(np.array([0, 1, 2, 100, 4, 5, 6, 7], dtype=float))
    np.testing.assert_array_equal(values(ahead - behind), expected)
    np.testing.assert_array_equal(values(ahead - behind), expected)
    behind[0] = -1.0  # a write through a view moves the base too
    expected[0] = 2.0
    np.testing.assert_array_equal(values(ahead - behind), expected)
    np.testing.assert_array_equal(values(x)[:2], [-1.0, 1.0])


@pytest.mark.parametrize("name", list(_READ_ONLY_VIEWS))
def test_a_read_only_view_of_memory_lent_to_torch_teaches_no_untied_fast_path(name):
    """torch's read-only view of memory lent to it read-only (numpy's, here)
    needs no tie: it is read-only already. A fast path learned from it must not
    then give the views of writable torch tensors untied: their writes reached
    x (x[0, 0] became 9)."""
    fresh = ut.asarray(np.arange(6.0).reshape(2, 3))
    fresh._native.flags.writeable = False
    with warnings.catch_warnings():  # (aliased: warned once per process)
        warnings.simplefilter("ignore", ut.AliasWarning)
        lent = ut.asarray(fresh.torch())
    assert lent.owner == "torch"
    assert lent.readonly
    assert _READ_ONLY_VIEWS[name](lent).readonly
    x = tensor("torch", np.arange(6.0).reshape(2, 3))
    for _ in range(2):
        v = _READ_ONLY_VIEWS[name](x)
        assert v.readonly
        with pytest.raises(ValueError, match="read-only memory"):
            v[0, ...] = 9.0
    np.testing.assert_array_equal(values(x), np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("owner", OWNERS)
@pytest.mark.parametrize("part", ["real", "imag"])
def test_a_write_through_a_part_of_a_complex_array_reaches_it(owner, part):
    """real and imag of a complex array are numpy's views: a write into one
    reaches x, which keeps its other part exactly (an infinite part, a signed
    zero), and a write into x shows in them. jax, TensorFlow and dask gave
    copies."""
    x = tensor(owner, np.array([1 + 2j, complex(3, np.inf), complex(-np.inf, 4)]))
    for _ in range(2):  # (the second call through C, where one is learned)
        v = getattr(ut, part)(x)
        x[2] = complex(-np.inf, 4.0)
        assert float(v[2]) == (-np.inf if part == "real" else 4.0)
        v[1] = -0.0
        v[0] += 10.0
    got = values(x)
    if part == "real":
        np.testing.assert_array_equal(got.imag, [2, np.inf, 4])
        np.testing.assert_array_equal(got.real, [21, 0, -np.inf])
        assert np.signbit(got[1].real)
        assert not np.signbit(got[1].imag)
    else:
        np.testing.assert_array_equal(got.real, [1, 3, -np.inf])
        np.testing.assert_array_equal(got.imag, [22, 0, 4])
        assert np.signbit(got[1].imag)
        assert not np.signbit(got[1].real)


@pytest.mark.parametrize("owner", [o for o in OWNERS if o != "array_api_strict"])
def test_imag_of_a_real_array_is_read_only_on_every_call(owner):
    """numpy's imag of a real array is a new read-only array of zeros; jax,
    TensorFlow and dask gave writable copies, and torch's was writable on the
    general path and, once a complex array taught its C row, on the fast path
    (array_api_strict refuses a real array: outside the standard)."""
    z = tensor(owner, np.array([1 + 2j]))
    x = tensor(owner, np.arange(3.0))
    for _ in range(3):  # after a complex array: the C row
        ut.imag(z)
        v = ut.imag(x)
        assert v.readonly
        with pytest.raises(ValueError, match="read-only"):
            v[0] = 1.0
        np.testing.assert_array_equal(values(v), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("owner", OWNERS)
def test_real_of_a_real_array_is_a_view_of_it(owner):
    x = tensor(owner, np.arange(3.0))
    for _ in range(2):  # (the second call through C, where one is learned)
        v = ut.real(x)
        v[0] += 1.0
    np.testing.assert_array_equal(values(x), [2, 1, 2])


@pytest.mark.parametrize("owner", IMMUTABLE)
def test_asarray_of_a_framework_array_is_a_new_base(owner):
    native = make(owner, np.zeros(3))
    x = ut.asarray(native)
    x[0] = 1.0
    v = x[1:]
    v[0] = 2.0
    np.testing.assert_array_equal(values(x), [1, 2, 0])
    np.testing.assert_array_equal(np.asarray(native), [0, 0, 0])  # as JAX promises
    y = ut.asarray(native)  # a new base: none of x's writes
    np.testing.assert_array_equal(values(y), [0, 0, 0])


@pytest.mark.parametrize("owner", OWNERS)
def test_a_base_that_is_no_view_reads_through_the_fast_path(owner):
    """The base itself is kept current at each write and is no view: it is a
    plain Tensor to the C fast paths; its views are not (they re-derive).
    """
    x = tensor(owner, np.zeros(4))
    v = x[1:]
    v[0] = 1.0
    assert x._view is None
    assert (v._view is not None) == (owner in IMMUTABLE)
    written = np.array([0.0, 1.0, 0.0, 0.0])
    np.testing.assert_allclose(values(ut.sin(x) + x), np.sin(written) + written,
                               rtol=1e-6)


@pytest.mark.parametrize("owner", ["jax", "tensorflow"])
def test_threads_writing_disjoint_slices_lose_no_write(owner):
    for _ in range(10):
        r = tensor(owner, np.zeros((6, 4)))
        barrier = threading.Barrier(3)

        def fill(i, r=r, barrier=barrier):
            barrier.wait()
            for _ in range(5):
                r[2 * i:2 * i + 2, :] = float(i + 1)

        threads = [threading.Thread(target=fill, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        np.testing.assert_array_equal(values(r), np.repeat([1.0, 2.0, 3.0], 8)
                                      .reshape(6, 4))


@pytest.mark.parametrize("owner", ["jax", "tensorflow"])
def test_threads_writing_through_views_lose_no_write(owner):
    for _ in range(5):
        r = tensor(owner, np.zeros((6, 4)))
        rows = [r[2 * i:2 * i + 2] for i in range(3)]
        barrier = threading.Barrier(3)

        def fill(i, rows=rows, barrier=barrier):
            barrier.wait()
            for j in range(4):
                rows[i][:, j] = float(i + 1)

        threads = [threading.Thread(target=fill, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        np.testing.assert_array_equal(values(r), np.repeat([1.0, 2.0, 3.0], 8)
                                      .reshape(6, 4))


# -- the differential test ----------------------------------------------------------
SHAPE = (4, 3, 2)


@st.composite
def _key(draw, shape, new_axes=True):
    """A basic key over a prefix of ``shape``'s axes, ending in ``...``, or an int
    for each axis: numpy's scalar, a copy (torch's own read is a 0-d view)."""
    if 0 not in shape and draw(st.integers(0, 4)) == 0:
        return tuple(draw(st.integers(-n, n - 1)) for n in shape)
    parts = []
    for n in shape[:draw(st.integers(0, min(2, len(shape))))]:
        if new_axes and draw(st.booleans()):  # (a new axis before this one)
            parts.append(None)
        kind = draw(st.sampled_from(["int", "slice"]))
        if kind == "int" and n > 0:
            parts.append(draw(st.integers(-n, n - 1)))
        else:
            start = draw(st.one_of(st.none(), st.integers(-n, n)))
            stop = draw(st.one_of(st.none(), st.integers(-n, n)))
            step = draw(st.sampled_from([None, 1, 2, -1, -2]))
            parts.append(slice(start, stop, step))
    return (*parts, Ellipsis)


@st.composite
def _program(draw):
    """Operations on a list of handles (handle 0 the base, complex or not: the
    first op says): ('view', i, op, arg) makes a new handle, ('write', i, key,
    value) and ('add', i, value) write (or are refused on every owner: numpy's
    read-only views).
    """
    shapes = [SHAPE]
    ops = [("base", draw(st.sampled_from(["float64", "complex128"])))]
    parts = ops[0][1] == "complex128"  # (imag of a real array: strict refuses)
    for _ in range(draw(st.integers(2, 7))):
        i = draw(st.integers(0, len(shapes) - 1))
        shape = shapes[i]
        ndim = len(shape)
        choice = draw(st.sampled_from(["view", "view", "write", "add"]))
        if choice == "write":
            # (array_api_strict writes through no None)
            ops.append(("write", i, draw(_key(shape, False)),
                        float(draw(st.integers(1, 9)))))
            continue
        if choice == "add":
            ops.append(("add", i, float(draw(st.integers(1, 9)))))
            continue
        names = ["index", "reshape", "flip", "expand_dims"]
        if ndim >= 1:
            # (unstack of 1-d: numpy's scalars, copies)
            names += ["squeeze", "moveaxis", "permute_dims", "unstack"]
        if ndim >= 2:
            names += ["matrix_transpose", "diagonal"]
        names += ["broadcast_to", "real"] + (["imag"] if parts else [])
        name = draw(st.sampled_from(names))
        if name in ("real", "imag"):
            parts = False  # (a view of a part is real)
        if name == "index":
            arg = draw(_key(shape))
        elif name == "reshape":
            # merges and splits of axes (all dask's reshape does)
            arg = draw(st.sampled_from([(-1,), (1, *shape)] +
                                       ([(shape[0], -1)] if ndim >= 2 and shape[0]
                                        else [])))  # (-1 of size 0: unknown)
        elif name == "flip":
            arg = draw(st.one_of(st.none(), st.integers(-max(ndim, 1), max(ndim, 1) - 1)
                                 if ndim else st.none()))
        elif name == "expand_dims":
            arg = draw(st.integers(-ndim - 1, ndim))
        elif name == "squeeze":
            ones = [a for a, n in enumerate(shape) if n == 1]
            if not ones:
                name, arg = "expand_dims", 0
            else:
                arg = draw(st.sampled_from(ones))
        elif name == "unstack":
            axis = draw(st.integers(0, ndim - 1))
            if shape[axis] == 0:
                name, arg = "flip", None
            else:
                arg = (axis, draw(st.integers(0, shape[axis] - 1)))
        elif name == "moveaxis":
            arg = (draw(st.integers(0, ndim - 1)), draw(st.integers(0, ndim - 1)))
        elif name == "permute_dims":
            arg = tuple(draw(st.permutations(range(ndim))))
        elif name == "diagonal":
            arg = draw(st.integers(-2, 2))
        elif name == "broadcast_to":
            arg = (2, *shape)
        else:
            arg = None
        ops.append(("view", i, name, arg))
        shapes.append(_apply(np.empty(shape), name, arg).shape)
    return ops


def _apply(x, name, arg):
    """View operation ``name`` on a numpy array or a Tensor."""
    xp = np if isinstance(x, np.ndarray) else ut
    if name == "index":
        return x[arg]
    if name == "reshape":
        return xp.reshape(x, arg)
    if name == "flip":
        return xp.flip(x, axis=arg)
    if name == "expand_dims":
        return xp.expand_dims(x, axis=arg)
    if name == "squeeze":
        return xp.squeeze(x, axis=arg)
    if name == "unstack":
        axis, i = arg
        return (np.moveaxis(x, axis, 0)[i] if xp is np else
                ut.unstack(x, axis=axis)[i])
    if name == "moveaxis":
        return xp.moveaxis(x, *arg)
    if name == "permute_dims":
        return np.transpose(x, arg) if xp is np else ut.permute_dims(x, arg)
    if name == "diagonal":
        return xp.linalg.diagonal(x, offset=arg)
    if name == "broadcast_to":
        return xp.broadcast_to(x, arg)
    if name in ("real", "imag"):
        return getattr(xp, name)(x)
    return np.swapaxes(x, -1, -2) if xp is np else ut.matrix_transpose(x)


def _run(owner, ops):
    """The handles' values, and which writes were refused."""
    base = np.arange(24.0).reshape(SHAPE).astype(ops[0][1])
    handles = [tensor(owner, base * (1 - 2j) if ops[0][1] == "complex128" else base)]
    refused = []
    for n, op in enumerate(ops[1:]):
        if op[0] == "view":
            _, i, name, arg = op
            handles.append(_apply(handles[i], name, arg))
            continue
        try:
            if op[0] == "write":
                _, i, key, value = op
                handles[op[1]][key] = value
            else:
                handles[op[1]] += op[2]
        except ValueError as exc:
            refused.append((n, "read-only" in str(exc)))
    # each handle read as it is, and as the operand of an elementwise function
    # (which the binary fast path reads as it is while its base has not moved)
    return [values(h) for h in handles] + [values(h + h) for h in handles], refused


@pytest.mark.parametrize("owner", OWNERS[1:])
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          derandomize=EXAMPLES <= DEFAULT_EXAMPLES,
          phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ops=_program())
def test_views_and_writes_give_numpy_owner_values(owner, ops):
    """The same program of views and writes on every owner: numpy-owner's values,
    for the base and every view of it.
    """
    expected, refused = _run("numpy", ops)
    got, refused_here = _run(owner, ops)
    assert refused_here == refused, ops
    for i, (e, g) in enumerate(zip(expected, got, strict=True)):
        np.testing.assert_array_equal(g, e, err_msg=f"handle {i} of {ops}")
