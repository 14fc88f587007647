"""``__array_namespace_info__`` (unitensor/_inspection.py) describes the owner."""

from __future__ import annotations

import pytest
from owners import COMPUTING

import unitensor as ut

pytestmark = pytest.mark.usefixtures("x64_for_jax_framework")


@pytest.mark.parametrize("framework", COMPUTING)
def test_inspection_describes_the_owner(framework):
    with ut.owner(framework):
        info = ut.__array_namespace_info__()
        dtypes = info.dtypes()
        assert all(isinstance(d, ut.DType) for d in dtypes.values())
        assert dtypes["float32"] is ut.float32
        assert set(info.dtypes(kind="integral")) <= set(dtypes)
        assert info.default_device() == ut.Device("cpu")
        assert ut.Device("cpu") in info.devices()
        assert set(info.default_dtypes()) == {"real floating", "complex floating",
                                              "integral", "indexing"}
        assert {"boolean indexing", "data-dependent shapes"} <= set(info.capabilities())
        assert ut.zeros((2,)).dtype is info.default_dtypes()["real floating"]


@pytest.mark.parametrize("framework", [*COMPUTING, "dask"])
def test_inspection_takes_a_str_device(framework):
    """A str device (documented; scikit-learn's helpers pass 'cpu') is read as
    a Device before the owner's namespace sees it: jax's and TF's take no str.
    """
    with ut.owner(framework):
        info = ut.__array_namespace_info__()
        assert info.dtypes(device="cpu") == info.dtypes()
        assert info.default_dtypes(device="cpu") == info.default_dtypes()
