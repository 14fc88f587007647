"""Which frameworks this machine has, in the roles the tests give them; and CUDA."""

from __future__ import annotations

import importlib.util

import pytest

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
