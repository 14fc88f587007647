"""The torch adapter (unitensor/_backends/torch.py): lazy conjugate and negative
bits, tensors that require grad, the unsigned dtypes torch computes badly or not at
all, its special-case fixes, and its fallbacks without the DLPack C exchange API.
The exchange API itself (ext/_core.c) and the routes built on it are tested in
tests/ext/test_routes.py."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import unitensor as ut
from unitensor import _backends
from unitensor._backends.torch import interop as torch_interop

torch = pytest.importorskip("torch")

TORCH = _backends.get("torch")
NUMPY = _backends.get("numpy")


def test_torch_tensors_that_require_grad_are_shared_detached():
    pytest.importorskip("jax")
    w = torch.ones(3, requires_grad=True)
    a = ut.asarray(w).jax()  # what a jax function reads: the same memory
    assert a.unsafe_buffer_pointer() == w.data_ptr()
    assert w.requires_grad  # the user's tensor keeps its graph


def test_numpy_of_a_tensor_that_requires_grad_is_refused_as_torch_refuses_it():
    # torch's own .numpy() refuses (numpy would drop the graph): so do
    # .numpy(), np.asarray() and .to("numpy"), with torch's advice
    w = torch.ones(3, requires_grad=True)
    t = ut.asarray(w)
    for convert in (lambda: t.numpy(), lambda: np.asarray(t), lambda: t.to("numpy"),
                    lambda: ut.asarray(w * 2).numpy(copy=True)):
        with pytest.raises(ValueError, match=r"self: expected an array outside any "
                           r"autodiff graph .*x\.detach\(\) first.*got a torch "
                           r"tensor that requires grad"):
            convert()
    a = ut.asarray(w.detach()).numpy()  # said so: shared
    assert a.ctypes.data == w.data_ptr()


def _iadd(t):
    t += 1


def _setitem(t):
    t[0] = 2.0


def _imul(t):
    t *= 2.0


@pytest.mark.parametrize("write", [_iadd, _setitem, _imul])
def test_a_write_into_a_leaf_that_requires_grad_names_the_leaf_and_detach(write):
    w = torch.ones(3, requires_grad=True)
    t = ut.asarray(w)
    with pytest.raises(ValueError, match=r"self: expected an array its framework "
                       r"lets be written in place \(torch refuses writes into a "
                       r"leaf .*x\.detach\(\).*got a torch tensor that requires "
                       r"grad \(a leaf of torch's graph\)") as info:
        write(t)
    assert isinstance(info.value.__cause__, RuntimeError)  # torch's own, as cause
    assert w.tolist() == [1.0, 1.0, 1.0]
    u = ut.asarray(w.detach())
    u += 1  # the way the message gives
    assert w.tolist() == [2.0, 2.0, 2.0]


def test_memory_lent_read_only_stays_read_only_when_it_comes_back():
    jnp = pytest.importorskip("jax.numpy")
    import gc
    j = ut.asarray(jnp.arange(4.0))
    with warnings.catch_warnings():  # once per process: whichever test is first
        warnings.simplefilter("ignore", ut.AliasWarning)
        lent = j.torch()
    back = ut.asarray(lent)
    assert back.owner == "torch"
    assert back.readonly
    assert ut.asarray(lent[1:]).readonly  # a view of it: the same storage
    with pytest.raises(ValueError, match="read-only memory"):
        back[0] = 1.0
    with pytest.raises(ValueError, match="read-only memory"):
        back += 1.0
    assert not back.numpy().flags.writeable
    assert float(j[0]) == 0.0
    # unrelated memory is never taken for it, even where the lent memory is gone
    del j, lent, back
    gc.collect()
    for _ in range(200):
        assert not ut.asarray(torch.zeros(4, dtype=torch.float32)).readonly
        assert not ut.asarray(torch.ones(4)).readonly


def test_torch_lazy_conjugates_are_resolved_by_a_reported_copy():
    torch = pytest.importorskip("torch")
    z = torch.tensor([1 + 2j, 3 - 1j]).conj()
    assert z.is_conj()
    with pytest.warns(ut.CopyWarning, match="conjugate"):
        a = ut.asarray(z).numpy()
    np.testing.assert_array_equal(a, [1 - 2j, 3 + 1j])


def test_torch_unsigned_sums_are_uint64():
    torch = pytest.importorskip("torch")
    x = ut.asarray(torch.tensor([200, 100], dtype=torch.uint8))
    assert ut.sum(x).dtype is ut.uint64
    assert int(ut.sum(x)) == 300
    assert ut.cumulative_prod(x).dtype is ut.uint64
    y = ut.asarray(torch.tensor([1, 2], dtype=torch.uint16))
    assert int(ut.sum(y)) == 3  # torch has no uint16 sum: computed in int64


def test_torch_plain_sum_agrees_with_the_general_sum_for_every_dtype():
    """ut.sum(x) on torch skips array-api-compat's wrapper unless x is unsigned
    or arguments are given: the same answer either way."""
    torch = pytest.importorskip("torch")
    from unitensor import _backends
    fixed = _backends.get("torch").FIXES["sum"]
    for dtype in (torch.bool, torch.int8, torch.int32, torch.int64, torch.uint8,
                  torch.uint16, torch.float16, torch.float32, torch.complex64):
        x = torch.tensor([1, 0, 1], dtype=dtype)
        plain, general = fixed(x), fixed(x, keepdims=False)
        assert plain.dtype == general.dtype
        assert plain.tolist() == general.tolist()
        assert fixed(x, keepdims=True).shape == (1,)


def test_asarray_reads_nested_zero_d_tensors():
    torch = pytest.importorskip("torch")
    x = ut.asarray(torch.tensor([7, 9], dtype=torch.uint16))
    ut.set_default_owner("torch")
    try:
        y = ut.asarray([[x[0], x[1]]], dtype=ut.uint16)
    finally:
        ut.set_default_owner("numpy")
    assert y.owner == "torch"
    assert y.dtype is ut.uint16
    assert y.shape == (1, 2)
    assert ut.asarray([x[0], x[1]]).numpy().tolist() == [7, 9]


def test_torch_special_functions_fixed():
    torch = pytest.importorskip("torch")
    z = ut.asarray(torch.zeros(2, dtype=torch.complex64))
    assert (z ** z).numpy().tolist() == [1 + 0j, 1 + 0j]  # x ** 0 is 1, even 0 ** 0
    x = ut.asarray(torch.tensor([-0.0, 1.0]))
    assert np.signbit((x % -1.0).numpy()[0])  # a zero remainder has x2's sign
    m = ut.asarray(torch.arange(6.0).reshape(2, 3))
    assert m[:, ::-2].numpy().tolist() == [[2.0, 0.0], [5.0, 3.0]]  # negative steps
    assert float(ut.std(m, correction=0.5)) == pytest.approx(
        float(np.std(np.arange(6.0), ddof=0.5)), rel=1e-6)
    assert ut.count_nonzero(m, axis=()).shape == (2, 3)
    assert ut.unique_all(ut.asarray(torch.tensor([3, 1, 3]))).indices.numpy(
        ).tolist() == [1, 0]
    c = ut.conj(ut.asarray(torch.tensor([1 + 2j])))
    assert c.numpy().tolist() == [1 - 2j]  # no lazy conjugate bit, so no copy


def test_torch_unsigned_fallback_keeps_the_standard_dtypes():
    torch = pytest.importorskip("torch")
    u = ut.asarray(torch.tensor([1, 2, 3], dtype=torch.uint16))
    u += ut.asarray(torch.tensor([1, 1, 1], dtype=torch.uint16))  # in place
    assert u.numpy().tolist() == [2, 3, 4]
    assert u.dtype is ut.uint16
    assert ut.take(u, ut.asarray(torch.tensor([0, 2]))).dtype is ut.uint16
    assert ut.repeat(u, 2).dtype is ut.uint16
    limit = ut.asarray(torch.tensor(3, dtype=torch.uint16))
    assert ut.clip(u, max=limit).numpy().tolist() == [2, 3, 3]


def test_torch_unsigned_mixed_dtypes_and_masked_writes():
    torch = pytest.importorskip("torch")
    a = ut.asarray(torch.tensor([1, 257], dtype=torch.uint16))
    b = ut.asarray(torch.tensor([1, 1], dtype=torch.uint8))
    assert (a != b).numpy().tolist() == [False, True]  # torch alone says 257 == 1
    assert ut.bitwise_left_shift(a, b).dtype is ut.uint16  # torch alone: uint8
    a[a > 1] = 65535
    assert a.numpy().tolist() == [1, 65535]


def test_torch_unique_of_complex_numbers():
    torch = pytest.importorskip("torch")
    x = ut.asarray(torch.tensor([1 + 1j, 2j, 1 + 1j]))
    result = ut.unique_counts(x)
    assert result.values.owner == "torch"
    assert result.values.numpy().tolist() == [2j, 1 + 1j]
    assert result.counts.numpy().tolist() == [1, 2]


def test_conj_and_neg_views_keep_their_values():
    """torch's exchange export ignores the lazy conj/neg bits; export() resolves
    them first (reported as a copy)."""
    c = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex64)
    for lazy in (c.conj(), c.conj().imag):
        with pytest.warns(ut.CopyWarning):
            np.testing.assert_array_equal(ut.asarray(lazy).numpy(), lazy.resolve_conj()
                                          .resolve_neg().numpy())


def test_torch_wrap_falls_back_for_read_only_memory():
    readonly = np.arange(3.0)
    readonly.flags.writeable = False
    t = TORCH.alias(NUMPY.export(readonly))  # for an operand that is only read
    assert t.data_ptr() == readonly.ctypes.data


def test_without_the_exchange_api_the_python_protocol_is_used(monkeypatch):
    monkeypatch.setattr(torch_interop, "_EXCHANGE", False)
    t = torch.arange(4.0)
    assert TORCH.export(t).source == "dlpack_versioned"
    back = TORCH.alias(NUMPY.export(np.arange(3.0)))
    assert back.tolist() == [0.0, 1.0, 2.0]
    assert ut.asarray(np.arange(2.0)).to("torch").native.tolist() == [0.0, 1.0]


def test_torch_uint64_elements_beyond_int64_convert_to_python():
    """int(), bool() and operator.index() of a uint64 element of 2**63 or more:
    torch's conversions stop at int64 (the official suite's ~uint64(1))."""
    import operator
    big = 2**64 - 2
    x = ut.asarray(np.array([big], dtype=np.uint64)).to("torch", copy=True)
    assert int(x) == big
    assert bool(x) is True
    assert operator.index(x[0]) == big
    assert int(~ut.asarray(np.array(1, dtype=np.uint64)).to("torch")) == big
    with pytest.raises(ValueError, match=r"^__int__\(\): self: expected an array of "
                                         "one element"):
        int(ut.asarray(np.array([1, 2], dtype=np.uint64)).to("torch"))


@pytest.mark.parametrize("dtype", ["int32", "uint16", "uint64", "bool", "float32"])
def test_torch_writes_through_slices_with_negative_steps(dtype):
    """x[::-1] = v: torch refuses negative steps in writes too; the key becomes
    positive steps and the value is flipped along those axes (uint16/32/64 as their
    signed bits, which torch can flip)."""
    base = np.arange(24).reshape(2, 3, 4)
    base = base % 2 == 0 if dtype == "bool" else base.astype(dtype)
    keys = [(slice(None), slice(None, None, -1)), (Ellipsis, slice(3, 0, -2)),
            (1, None, slice(None, None, -1), 2), (0, slice(0, 3, -1))]
    for key in keys:
        shape = base[key].shape
        value = np.arange(int(np.prod(shape))).reshape(shape) + 5
        value = value % 3 == 0 if dtype == "bool" else value.astype(dtype)
        expected = base.copy()
        expected[key] = value
        x = ut.asarray(base).to("torch", copy=True)
        x[key] = ut.asarray(value).to("torch", copy=True)
        np.testing.assert_array_equal(x.numpy(), expected)
        x[key] = 1  # a scalar needs no flip
        expected[key] = 1
        np.testing.assert_array_equal(x.numpy(), expected)


def test_a_mask_of_the_tensor_s_own_empty_sizes_stays_torch_s_and_keeps_autograd():
    """The one mask rule (_dispatch) answers only masks whose size-0 dimension
    torch would refuse; a mask of x's own sizes, empty or not, is torch's read,
    whose result stays in the autograd graph."""
    x = torch.ones((0, 3), requires_grad=True)
    read = ut.asarray(x)[ut.asarray(torch.zeros((0, 3), dtype=torch.bool))]
    assert read.shape == (0,)
    assert read.torch().grad_fn is not None


def test_a_value_of_one_element_and_more_axes_is_written_as_numpy_writes_it():
    """torch wrote an array of shape (1,) into one element (``x[0] = a``), where
    numpy refuses a sequence there; and refused a value with leading 1s into a
    negative-step slice (``x[::-1] = row``), which numpy takes (it drops them).
    """
    for make in (np.asarray, torch.from_numpy):
        x = ut.asarray(make(np.array([1, 2, 3], np.int32)))
        with pytest.raises(ValueError, match="sequence"):
            x[0] = ut.asarray(make(np.array([9], np.int32)))
        y = ut.asarray(make(np.arange(6.0).reshape(2, 3)))
        with pytest.raises(ValueError, match="sequence"):
            y[1, 2] = ut.asarray(make(np.array([9.0])))
        y[..., 1] = ut.asarray(make(np.array([5.0])))  # a 0-d view's slot: fine
        y[:, ::-1] = ut.asarray(make(np.array([[[7.0, 8.0, 9.0]]])))
        np.testing.assert_array_equal(y.numpy(), [[9.0, 8.0, 7.0]] * 2)
        assert x.numpy().tolist() == [1, 2, 3]


@pytest.mark.parametrize(("name", "arg"), [("reshape", (4, 4)),
                                           ("broadcast_to", (2, 16)),
                                           ("permute_dims", (1, 0))])
def test_a_shape_call_goes_to_torch_s_own_function_past_array_api_compat(name, arg):
    """array-api-compat's reshape, broadcast_to and permute_dims pass x and one
    more argument on to torch's own function as they are: such a call is made to
    torch's function directly (no frame of compat's), with compat's answer."""
    import sys

    import array_api_compat.torch as compat_torch
    import torch
    x = ut.asarray(torch.arange(16.0).reshape(4, 4) if name == "permute_dims"
                   else torch.arange(16.0))
    func = getattr(ut, name)
    expected = getattr(compat_torch, name)(x._native, arg)
    func(x, arg)  # (the first call learns the fast path)
    frames = []
    sys.setprofile(lambda frame, event, _: frames.append(frame.f_code.co_filename)
                   if event == "call" else None)
    try:
        result = func(x, arg)
    finally:
        sys.setprofile(None)
    assert not [f for f in frames if "array_api_compat" in f]
    assert torch.equal(result._native, expected)
    assert result._native.data_ptr() == x._native.data_ptr()  # a view, as compat's
