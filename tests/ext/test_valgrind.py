"""tests/helpers/lifetime_torture.py under valgrind memcheck: no invalid reads,
writes or frees.

Uses Debian's /usr/bin/python3.11 (a plain build that valgrind understands) with
PYTHONMALLOC=malloc, in a virtual environment cached under /tmp that holds numpy,
array-api-compat and setuptools, and an extension built for that interpreter in a
temporary directory. Leak checking is off (CPython keeps memory until exit by
design); the torture script itself checks that every deleter ran exactly once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON = Path("/usr/bin/python3.11")
VENV = Path("/tmp/unitensor-valgrind-venv")

pytestmark = [pytest.mark.slow, pytest.mark.long, pytest.mark.skipif(
    shutil.which("valgrind") is None or not PYTHON.exists(),
    reason="needs valgrind and Debian's /usr/bin/python3.11")]


def debian_venv() -> Path:
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([str(PYTHON), "-m", "venv", str(VENV)], check=True,
                       capture_output=True)
    # unitensor's own dependencies (numpy, array-api-compat) and the build's
    ready = subprocess.run([str(python), "-c", "import numpy, array_api_compat, "
                            "setuptools; "
                            "assert int(setuptools.__version__.split('.')[0]) >= 70"],
                           capture_output=True)
    if ready.returncode != 0:
        install = subprocess.run([str(python), "-m", "pip", "install", "-q", "-U",
                                  "numpy", "array-api-compat", "setuptools"],
                                 capture_output=True,
                                 text=True)
        if install.returncode != 0:
            pytest.skip(f"cannot install numpy and array-api-compat for {PYTHON}: "
                        f"{install.stderr[-500:]}")
    return python


def test_lifetime_torture_is_clean_under_valgrind(tmp_path):
    python = debian_venv()
    subprocess.run([str(python), "setup.py", "-q", "build_ext", "--build-lib",
                    str(tmp_path / "lib"), "--build-temp", str(tmp_path / "tmp")],
                   cwd=ROOT, check=True, capture_output=True)
    package = tmp_path / "pkg" / "unitensor"
    shutil.copytree(ROOT / "unitensor", package,
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    for built in (tmp_path / "lib" / "unitensor").glob("*.so"):  # _core and _fast
        shutil.copy(built, package / built.name)
    env = {**os.environ, "PYTHONMALLOC": "malloc", "PYTHONPATH": str(package.parent)}
    out = subprocess.run(
        ["valgrind", "--tool=memcheck", "--error-exitcode=99", "--leak-check=no",
         f"--suppressions={ROOT / 'tests' / 'helpers' / 'valgrind.supp'}", "-q",
         str(python), str(ROOT / "tests" / "helpers" / "lifetime_torture.py"), "10"],
        env=env, capture_output=True, text=True, timeout=600)
    report = out.stdout[-3000:] + out.stderr[-6000:]
    assert "Invalid" not in out.stderr, report
    assert out.returncode == 0, report
    assert "lifetime torture: clean" in out.stdout, report
