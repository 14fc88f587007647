"""``import unitensor`` must import no framework and stay fast."""

import subprocess
import sys

import pytest

FRAMEWORKS = ("torch", "jax", "jaxlib", "tensorflow", "cupy", "array_api_strict",
              "numpy", "dask", "distributed")


@pytest.mark.parametrize("statement", ["import unitensor", "from unitensor import *"])
def test_import_unitensor_imports_no_framework(statement):
    code = (f"import sys; {statement}; "
            f"print(' '.join(m for m in {FRAMEWORKS!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == ""


def test_framework_loads_only_when_its_array_is_seen():
    code = ("import sys, numpy, unitensor as ut; ut.asarray(numpy.zeros(2)).numpy(); "
            "print(' '.join(m for m in ('torch', 'jax', 'tensorflow', 'dask') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == ""
