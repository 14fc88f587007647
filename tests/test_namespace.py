"""The Array API namespace, made from the standard's table (unitensor/_standard.py):
every function of the table is there with its signature, each group module defines
exactly its rows, and importing the namespace imports no framework.

Values and dtypes per function are the conformance suite's job (conformance/); the
owner rule is tested in tests/test_dispatch.py, the array object in
tests/test_tensor.py and tests/test_operators.py, the adapters' fixes in
tests/backends/.
"""

from __future__ import annotations

import inspect
import subprocess
import sys

import numpy as np
import pytest

import unitensor as ut
from unitensor import _standard


def _parameters(func):
    return [(p.name, p.kind, p.default)
            for p in inspect.signature(func).parameters.values()]


def _function(row: _standard.Function):
    module = {"linalg": ut.linalg, "fft": ut.fft}.get(row.group, ut)
    return getattr(module, row.name, None)


# -- the table against the module ------------------------------------------------
@pytest.mark.parametrize("row", _standard.FUNCTIONS,
                         ids=lambda r: f"{r.group}.{r.name}")
def test_every_function_of_the_standard_is_there_with_its_signature(row):
    func = _function(row)
    assert func is not None, f"{row.group}: {row.name} is missing"
    exec(f"def expected({row.signature}): pass", scope := {})
    assert _parameters(func) == _parameters(scope["expected"])


def test_the_table_covers_the_2025_12_standard():
    counts = {g: len(_standard.group(g)) for g in _standard.GROUPS}
    assert counts == {
        "creation": 16, "data_types": 6, "elementwise": 67, "indexing": 2,
        "linear_algebra": 4, "manipulation": 15, "searching": 6, "set": 5,
        "sorting": 2, "statistical": 9, "utility": 3, "linalg": 25, "fft": 14}
    assert ut.__array_api_version__ == "2025.12"
    assert _standard.SUPPORTED_VERSIONS[-1] == "2025.12"
    assert _standard.NAMED_RESULTS["linalg.eig"] == ("eigenvalues", "eigenvectors")
    x = ut.asarray(np.arange(3.0))
    assert type(ut.meshgrid(x, x)) is tuple  # 2024.12 said lists
    assert type(ut.broadcast_arrays(x, x)) is tuple


def test_each_group_module_defines_exactly_its_rows():
    import importlib
    for group in _standard.GROUPS:
        name = {"linalg": "unitensor.linalg", "fft": "unitensor.fft",
                "data_types": "unitensor._data_type_functions"}.get(
                    group, f"unitensor._{group}_functions")
        module = importlib.import_module(name)
        assert module.__all__ == [row.name for row in _standard.group(group)]


def test_public_names_are_the_standard_plus_unitensor_own():
    standard = {row.name for row in _standard.FUNCTIONS if row.group not in
                ("linalg", "fft")}
    assert standard <= set(ut.__all__)
    for constant in ("e", "inf", "nan", "newaxis", "pi"):
        assert constant in ut.__all__
    assert ut.newaxis is None
    assert ut.pi == pytest.approx(3.141592653589793)


def test_import_still_imports_no_framework():
    code = ("import sys, unitensor as ut; ut.add; ut.linalg.qr; "
            "print(sorted(m for m in ('numpy', 'torch', 'jax', 'tensorflow', "
            "'array_api_compat', 'array_api_strict') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


@pytest.mark.parametrize(("shapes", "expected"), [
    (((2, 1), (3,)), (2, 3)), (((None,), (1,)), (None,)), (((None,), (3,)), (3,)),
    (((None, 3), (2, 1, 1)), (2, None, 3)), (((None,), (None,)), (None,)), ((), ())])
def test_broadcast_shapes_propagates_unknown_sizes(shapes, expected):
    # 2025.12: libraries building graphs (dask) propagate unknown sizes (None)
    assert ut.broadcast_shapes(*shapes) == expected


def test_broadcast_shapes_refuses_what_does_not_broadcast():
    for shapes in (((2,), (3,)), ((None,), (2,), (3,))):
        with pytest.raises(ValueError, match=r"^broadcast_shapes\(\): shapes: "):
            ut.broadcast_shapes(*shapes)
    with pytest.raises(TypeError, match=r"^broadcast_shapes\(\): shapes\[0\]: "):
        ut.broadcast_shapes((1.5,))
