"""Shared fixtures: the frameworks installed here, and clean global state per test."""

from __future__ import annotations

import gc
import importlib
import importlib.util
import os

import numpy as np
import pytest

# scipy reads this once, at its import: its Array API support, which
# tests/test_clients.py runs on Tensors (and scikit-learn's array_api_dispatch needs).
os.environ.setdefault("SCIPY_ARRAY_API", "1")

FRAMEWORKS = [name for name in ("numpy", "torch", "jax", "tensorflow",
                                "array_api_strict")
              if importlib.util.find_spec(name) is not None]
# The owners that compute their own data (every one: TensorFlow's in TF since its
# namespace in unitensor/_backends/tensorflow/namespace/).
COMPUTING = [f for f in ("numpy", "torch", "jax", "tensorflow", "array_api_strict")
             if f in FRAMEWORKS]
# Owners whose arrays are graphs computed on demand (dask): not in the lists above,
# whose tests expect memory (zero-copy matrices, pointers); tests/test_dask.py
# holds them to the rest, and the conformance suite runs them as any owner.
LAZY = [f for f in ("dask",) if importlib.util.find_spec(f) is not None]


def has_cuda() -> bool:
    """A CUDA device that cupy can use (the GPU machine), else False."""
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no driver, no device: CUDA tests are skipped
        return False


needs_cuda = pytest.mark.skipif(not has_cuda(), reason="needs cupy and a CUDA GPU")


def _preloaded() -> list[str]:
    """The frameworks to import before the first test (all installed ones).

    UNITENSOR_TEST_PRELOAD (comma-separated names) narrows the list: the ASan run of
    tests/test_asan.py leaves TensorFlow out, as its selection of tests does.
    """
    names = os.environ.get("UNITENSOR_TEST_PRELOAD")
    if names is None:
        return FRAMEWORKS
    return [name for name in names.split(",") if name in FRAMEWORKS]


@pytest.fixture(scope="session", autouse=True)
def _frameworks_frozen():
    """Import the installed frameworks once, then freeze the heap.

    With torch, jax and TensorFlow loaded, a full collection walks millions of their
    objects (0.1-0.6 s each time). ``gc.freeze()`` moves everything alive now into a
    permanent generation that collections skip, so the collector only sees what the
    tests make. No collection runs between tests: a test that counts deleters,
    weakrefs, ``_core.stats()`` or refcounts calls ``gc.collect()`` itself.
    """
    for name in _preloaded():
        importlib.import_module(name)
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.fixture(scope="module", autouse=True)
def _earlier_modules_frozen(_frameworks_frozen):
    """Each module starts with the garbage of earlier modules collected, and what
    they left alive (caches, compiled functions) frozen as well: a ``gc.collect()``
    in a test then walks only what its own module made (in a full run, test_fuzz's
    300 collections took 20 s without this, 1 s with it)."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _reset_global_state():
    """Every test starts with jax x64 off and unitensor's defaults."""
    import unitensor._config as config
    saved_owner = config._default_owner
    jax_x64 = None
    if importlib.util.find_spec("jax") is not None:
        import jax
        jax_x64 = jax.config.jax_enable_x64
    yield
    config._default_owner = saved_owner
    if jax_x64 is not None:
        import jax
        jax.config.update("jax_enable_x64", jax_x64)


@pytest.fixture
def x64_for_jax_framework(request):
    """Tests over every framework use float64 data: JAX needs x64 for it.

    Used by modules whose tests take a ``framework`` parameter
    (``pytestmark = pytest.mark.usefixtures("x64_for_jax_framework")``).
    """
    if "framework" in request.fixturenames and (
            request.getfixturevalue("framework") == "jax"):
        request.getfixturevalue("x64")


@pytest.fixture
def x64():
    """JAX with 64-bit types enabled for this test."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


def aligned_empty(shape, dtype, alignment=64, offset=0):
    """A numpy array whose data starts ``offset`` bytes past an aligned address."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + alignment + offset, np.uint8)
    start = (-raw.ctypes.data) % alignment + offset
    return raw[start:start + nbytes].view(dtype).reshape(shape)
