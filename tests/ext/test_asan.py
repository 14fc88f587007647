"""The C extension under AddressSanitizer and UBSan: zero reports.

Builds ext/ with UNITENSOR_SANITIZE=1 (-fsanitize=address,undefined
-fno-sanitize-recover=all) into a temporary directory, then runs the Buffer,
conversion, reliability, fast-path, route, numpy and torch adapter tests, and the
XLA handler's under jax.jit, against that build in subprocesses, with gcc's
libasan preloaded and PYTHONMALLOC=malloc so that every Python allocation is
checked too. Leak detection is off: CPython and the frameworks keep allocations
alive until exit by design; leaks are measured by tests/test_reliability.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def runtime(name: str) -> str | None:
    gcc = shutil.which("gcc")
    if gcc is None:
        return None
    path = subprocess.run([gcc, f"-print-file-name={name}"], capture_output=True,
                          text=True).stdout.strip()
    return path if os.path.sep in path and os.path.exists(path) else None


ASAN, UBSAN = runtime("libasan.so"), runtime("libubsan.so")
pytestmark = [pytest.mark.slow, pytest.mark.long,
              pytest.mark.skipif(ASAN is None or UBSAN is None,
                                 reason="needs gcc with libasan and libubsan")]


@pytest.fixture(scope="module")
def sanitized_package(tmp_path_factory) -> Path:
    """A copy of the package whose _core is the sanitized build."""
    work = tmp_path_factory.mktemp("asan")
    env = {**os.environ, "UNITENSOR_SANITIZE": "1", "UNITENSOR_DEV": "1"}
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-lib",
                    str(work / "lib"), "--build-temp", str(work / "tmp")],
                   cwd=ROOT, env=env, check=True, capture_output=True)
    package = work / "pkg" / "unitensor"
    shutil.copytree(ROOT / "unitensor", package,
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    for built in (work / "lib" / "unitensor").glob("*.so"):  # _core, _fast, _xla
        shutil.copy(built, package / built.name)
    return package.parent


def test_core_and_catalogue_are_clean_under_asan_and_ubsan(sanitized_package):
    env = {**os.environ, "LD_PRELOAD": f"{ASAN}:{UBSAN}", "PYTHONMALLOC": "malloc",
           "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
           "PYTHONPATH": str(sanitized_package),
           "UNITENSOR_TEST_PRELOAD": "numpy,torch,jax"}  # TF stays outside, as below
    check = subprocess.run(
        [sys.executable, "-c", "import unitensor._core as c, unitensor._fast as f; "
         "print(c.__file__, f.__file__)"],
        env=env, capture_output=True, text=True, cwd=ROOT / "tests")
    assert check.stdout.startswith(str(sanitized_package)), check.stderr[-2000:]
    # RSS-based leak checks measure ASan's quarantine, not unitensor: left out.
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "ext/test_buffer.py", "test_convert.py", "test_reliability.py",
         "ext/test_fast.py",
         "ext/test_routes.py",  # the C exchange routes; jaxlib and TF stay outside ASan
         "ext/test_exchange_provider.py",  # the Tensor's C exchange API, via ctypes
         "backends/test_numpy.py", "backends/test_torch.py",
         "-k", "not p26 and not p32 and not p33 and not jax and not tensorflow"],
        env=env, capture_output=True, text=True, cwd=ROOT / "tests", timeout=900)
    report = out.stdout[-4000:] + out.stderr[-4000:]
    assert "ERROR: AddressSanitizer" not in out.stderr, report
    assert "runtime error:" not in out.stderr, report
    assert out.returncode == 0, report
    # the XLA handler (_xla: Lents, exports, watched bytes, lend/fill/held)
    # under jax.jit, which runs under ASan in its own process
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "wrap/test_wrap_xla.py", "-k", "not leak"],  # (RSS: ASan's quarantine)
        env=env, capture_output=True, text=True, cwd=ROOT / "tests", timeout=900)
    report = out.stdout[-4000:] + out.stderr[-4000:]
    assert "ERROR: AddressSanitizer" not in out.stderr, report
    assert "runtime error:" not in out.stderr, report
    assert out.returncode == 0, report
