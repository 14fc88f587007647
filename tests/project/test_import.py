"""``import unitensor`` must import no framework and stay fast."""

import subprocess
import sys

import pytest

FRAMEWORKS = ("torch", "jax", "jaxlib", "tensorflow", "cupy", "array_api_strict",
              "numpy", "dask", "distributed", "numba")


@pytest.mark.parametrize("statement", ["import unitensor", "from unitensor import *"])
def test_import_unitensor_imports_no_framework(statement):
    code = (f"import sys; {statement}; "
            f"print(' '.join(m for m in {FRAMEWORKS!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == ""


def test_import_unitensor_leaves_the_slow_standard_modules_to_what_needs_them():
    """dataclasses (which imports inspect and ast's tokenizer: ~5 ms), inspect
    (ut.wrap's signatures), ctypes (ut.memory's NVML) and datetime: a third of
    ``import unitensor`` before, each needed by one feature only."""
    slow = ("dataclasses", "inspect", "ctypes", "datetime")
    code = (f"import sys; import unitensor; "
            f"print(' '.join(m for m in {slow!r} if m in sys.modules))")
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


def test_completion_shows_the_public_names_only():
    """dir() is what completion shows: the public API, ut.memory and ut.dask too
    (loaded on first use), not the helpers the modules import for themselves."""
    import unitensor as ut
    names = dir(ut)
    assert {"memory", "dask", "asarray", "Tensor", "linalg", "fft"} <= set(names)
    assert not {"TYPE_CHECKING", "annotations", "_dispatch", "_math"} & set(names)
    assert set(dir(ut.memory)) == set(ut.memory.__all__)
    assert "os" not in dir(ut.memory)


def test_public_exceptions_name_the_module_users_import_them_from():
    import pickle

    import unitensor as ut
    assert repr(ut.CopyWarning) == "<class 'unitensor.CopyWarning'>"
    assert ut.memory.TooLateError.__module__ == "unitensor.memory"
    error = pickle.loads(pickle.dumps(ut.memory.TooLateError("configure(): ...")))
    assert type(error) is ut.memory.TooLateError
