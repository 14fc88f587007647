"""The inspection API, the version, the constants, and the coverage of this suite."""

from __future__ import annotations

import math

import array_api_strict as xs

import unitensor as ut
from unitensor import _standard

from . import (
    test_creation,
    test_data_types,
    test_elementwise,
    test_fft,
    test_indexing,
    test_linalg,
    test_linear_algebra,
    test_manipulation,
    test_searching,
    test_set,
    test_sorting,
    test_statistical,
    test_utility,
)
from .harness import OWNER, covered

_MODULES = [test_creation, test_data_types, test_elementwise, test_fft, test_indexing,
            test_linalg, test_linear_algebra, test_manipulation, test_searching,
            test_set, test_sorting, test_statistical, test_utility]


def test_every_function_of_the_standard_is_exercised():
    names = {row.name if row.group not in ("linalg", "fft") else
             f"{row.group}.{row.name}" for row in _standard.FUNCTIONS}
    assert len(names) == 174
    assert names - covered(_MODULES) == set()


def test_inspection_api():
    info = ut.__array_namespace_info__()
    caps = info.capabilities()
    assert isinstance(caps["boolean indexing"], bool)
    assert isinstance(caps["data-dependent shapes"], bool)
    assert type(info.devices()) is tuple  # a list before 2025.12
    assert info.default_device() in info.devices()
    defaults = info.default_dtypes()
    assert set(defaults) == {"real floating", "complex floating", "integral",
                             "indexing"}
    dtypes = info.dtypes()
    assert all(dtypes[name] is getattr(ut, name) for name in dtypes)
    assert set(info.dtypes(kind="bool")) == {"bool"}
    assert set(info.dtypes(kind="integral")) <= set(dtypes)
    assert {"float32", "float64"} <= set(dtypes) or OWNER == "jax"
    assert set(dtypes) <= set(xs.__array_namespace_info__().dtypes())


def test_version_and_constants():
    assert ut.__array_api_version__ == "2025.12"
    assert ut.e == math.e
    assert ut.pi == math.pi
    assert ut.inf == math.inf
    assert math.isnan(ut.nan)
    assert ut.newaxis is None
