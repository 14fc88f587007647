"""The Tensor (unitensor/_tensor.py): indexing, Python conversions and attributes,
``to()``'s arguments, its repr, and that it is made by ``asarray`` only."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import COMPUTING

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
    with pytest.raises(ValueError, match="api_version"):
        x.__array_namespace__(api_version="2099.01")
    assert x.to_device("cpu") is x


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
