"""The Tensor (unitensor/_tensor.py): indexing, Python conversions and attributes,
``to()``'s arguments, its repr, and that it is made by ``asarray`` only."""

from __future__ import annotations

import numpy as np
import pytest
from owners import COMPUTING

import unitensor as ut

pytestmark = pytest.mark.usefixtures("x64_for_jax_framework")


@pytest.mark.parametrize("framework", COMPUTING)
def test_getitem_every_indexing_form(framework):
    x = ut.asarray(np.arange(12.0).reshape(3, 4)).to(framework, copy=True)
    assert x[1, 2].numpy().tolist() == 6.0
    assert x[:, 1:3].shape == (3, 2)
    assert x[..., ::2].shape == (3, 2)
    assert x[None, 0, :].shape == (1, 4)
    assert x[x > 9].numpy().tolist() == [10.0, 11.0]
    index = ut.asarray(np.array([2, 0])).to(framework, copy=True)
    assert x[index, 0].numpy().tolist() == [8.0, 0.0]
    assert x[1, ...].owner == framework


@pytest.mark.parametrize("framework", COMPUTING)
def test_setitem_every_indexing_form(framework):
    x = ut.asarray(np.zeros((2, 3))).to(framework, copy=True)
    x[0, 1] = 5.0
    x[1, :] = ut.asarray(np.array([1.0, 2.0, 3.0])).to(framework, copy=True)
    x[x > 2.5] = -1.0
    assert x.numpy().tolist() == [[0.0, -1.0, 0.0], [1.0, 2.0, -1.0]]
    assert x.owner == framework


@pytest.mark.parametrize("framework", COMPUTING)
def test_python_conversions_and_attributes(framework):
    x = ut.asarray(np.array([[1.5, 2.0], [3.0, 4.0]])).to(framework, copy=True)
    assert float(x[0, 0]) == 1.5
    assert int(x[1, 1]) == 4
    assert complex(x[0, 1]) == 2
    assert bool(x[0, 0]) is True
    i = ut.asarray(np.array(2)).to(framework, copy=True)
    assert [10, 20, 30][i] == 30  # __index__
    assert x.T.shape == (2, 2)
    assert x.mT.numpy().tolist() == [[1.5, 3.0], [2.0, 4.0]]
    assert x.ndim == 2
    assert x.size == 4
    assert len(x) == 2
    assert [row.shape for row in x] == [(2,), (2,)]
    assert x.__array_namespace__() is ut
    assert x.__array_namespace__(api_version="2023.12") is ut
    assert x.__array_namespace__(api_version="2025.12") is ut
    with pytest.raises(ValueError, match="api_version"):
        x.__array_namespace__(api_version="2099.01")
    assert x.to_device("cpu") is x


@pytest.mark.parametrize("framework", COMPUTING)
def test_to_device_stream_is_checked(framework):  # #16 item 4 (CUDA: test_cuda_streams)
    x = ut.asarray(np.arange(3.0)).to(framework, copy=True)
    with pytest.raises(ValueError, match=r"to_device\(\): stream: expected None for a "
                                         r"move between CPU devices, got 1"):
        x.to_device("cpu", stream=1)
    for stream in (0, -2):
        with pytest.raises(ValueError, match=r"stream: expected None, -1 .*legacy"):
            x.to_device("cpu", stream=stream)
    for stream in (True, 1.5, "1", object()):
        with pytest.raises(TypeError, match=r"stream: expected None, an int .* or a "
                                            r"torch or cupy CUDA stream"):
            x.to_device("cpu", stream=stream)
    assert x.to_device("cpu", stream=None) is x


def test_tensor_constructor_points_to_asarray():
    with pytest.raises(TypeError, match="asarray"):
        ut.Tensor([1])


def test_repr_names_owner_dtype_device():
    text = repr(ut.asarray(np.arange(2, dtype=np.int8)))
    assert "owner='numpy'" in text
    assert "int8" in text
    assert "cpu" in text


@pytest.mark.parametrize("name", ["pytorchh", ""])
def test_to_unknown_framework_lists_the_valid_names(name):
    t = ut.asarray([1.0])
    with pytest.raises(ValueError, match=r"numpy.*torch.*jax"):
        t.to(name)


@pytest.mark.parametrize("bad", [None, 42])
def test_to_non_string_is_type_error(bad):
    with pytest.raises(TypeError, match="framework"):
        ut.asarray([1.0]).to(bad)


@pytest.mark.parametrize("framework", [*COMPUTING, "tensorflow"])
def test_pickle_restores_owner_dtype_device_values(framework):
    import pickle
    x = ut.asarray(np.arange(6.0).reshape(2, 3)).to(framework, copy=True)
    back = pickle.loads(pickle.dumps(x))
    assert type(back) is ut.Tensor
    assert back.owner == framework
    assert back.dtype == x.dtype
    assert back.device == x.device
    assert back.readonly == x.readonly
    np.testing.assert_array_equal(back.numpy(), x.numpy())


def test_pickle_keeps_read_only_memory_read_only():
    import pickle
    a = np.arange(3.0)
    a.flags.writeable = False
    back = pickle.loads(pickle.dumps(ut.asarray(a)))
    assert back.readonly
    with pytest.raises(ValueError, match=r"^__setitem__\(\): self: expected an array "
                       "whose memory can be written"):
        back[0] = 1.0


def test_pickle_marks_memory_only_unitensor_knew_read_only():
    # a torch tensor lent read-only memory: torch cannot mark it, the Buffer does
    import pickle

    import torch

    from unitensor._tensor import _restore
    t = _restore("torch", torch.arange(3.0), True)
    assert t.readonly
    assert pickle.loads(pickle.dumps(t)).readonly
    assert not pickle.loads(pickle.dumps(ut.asarray(torch.arange(3.0)))).readonly


@pytest.mark.parametrize("framework", COMPUTING)
def test_copy_shares_memory_and_deepcopy_copies_it(framework):
    import copy
    x = ut.asarray(np.arange(3.0)).to(framework, copy=True)
    shallow, deep = copy.copy(x), copy.deepcopy(x)
    if framework not in ("jax", "tensorflow"):  # (immutable: a view of x)
        assert shallow.native is x.native
    assert deep.owner == framework
    assert not np.shares_memory(deep.numpy(), x.numpy())
    np.testing.assert_array_equal(deep.numpy(), x.numpy())
    x[0] = 7.0  # a write through either reaches the other, on every owner
    shallow[1] = 8.0
    assert shallow.numpy().tolist() == x.numpy().tolist() == [7.0, 8.0, 2.0]
    assert deep.numpy().tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("framework", ["tensorflow", *COMPUTING])
def test_copy_then_write_works_on_every_owner(framework):
    # scikit-learn's Binarizer, scipy's logsumexp: a copy, then a write into it
    x = ut.asarray(np.arange(3.0)).to(framework, copy=True)
    c = ut.asarray(x, copy=True)
    c[0] = 5.0
    c += 1.0
    assert c.numpy().tolist() == [6.0, 2.0, 3.0]
    assert x.numpy().tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("leaf", [True, False])
def test_deepcopy_over_a_tensor_requiring_grad_is_a_new_independent_leaf(leaf):
    # a clone would stay in the original's graph: backward through the copy
    # would write the original's .grad (issue 30)
    import copy
    torch = pytest.importorskip("torch")
    w = torch.arange(3.0, requires_grad=True)
    x = ut.asarray(w if leaf else w * 1.0)
    deep = copy.deepcopy(x)
    assert deep.native.is_leaf
    assert deep.native.requires_grad
    (deep.native * 2).sum().backward()
    assert w.grad is None
    assert deep.native.grad.tolist() == [2.0, 2.0, 2.0]
    # (numpy() of memory in a graph is refused, as torch refuses it: detach)
    assert deep.native.data_ptr() != x.native.data_ptr()
    assert deep.native.detach().tolist() == [0.0, 1.0, 2.0]


def test_deepcopy_of_a_leaf_is_torchs_own_deepcopy():
    # a Parameter stays one; a plain leaf's .grad is copied with it
    import copy
    torch = pytest.importorskip("torch")
    p = torch.nn.Parameter(torch.ones(2))
    deep = copy.deepcopy(ut.asarray(p)).native
    assert type(deep) is torch.nn.Parameter
    assert deep.data_ptr() != p.data_ptr()
    w = torch.ones(2, requires_grad=True)
    w.grad = torch.full((2,), 3.0)
    copied = copy.deepcopy(ut.asarray(w)).native
    assert copied.grad.tolist() == [3.0, 3.0]
    assert copied.grad.data_ptr() != w.grad.data_ptr()
