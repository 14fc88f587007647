"""Every Python block of README.md and docs/ runs as written.

Each block runs in a fresh interpreter, as a reader pastes it (so each imports
what it uses), with warnings as errors: a documented example that warns shows
the user advice they cannot follow there. A block that needs a framework which
is not installed is left out, and named in the test's output.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FRAMEWORKS = ("torch", "jax", "tensorflow", "dask", "array_api_strict", "cupy")

RUNNER = """
import sys, warnings
warnings.simplefilter("error")
code = sys.stdin.read()
exec(compile(code, "<block>", "exec"), {"__name__": "__main__"})
print("ok")
"""


def python_blocks(page: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", page.read_text(), re.S | re.M)


def _needs(code: str) -> list[str]:
    imported = set(re.findall(r"^\s*(?:import|from)\s+(\w+)", code, re.M))
    imported |= set(re.findall(r"^import .*?,\s*(\w+)", code, re.M))
    return [f for f in FRAMEWORKS if f in imported or f'"{f}"' in code]


BLOCKS = [(page, number, code) for page in PAGES
          for number, code in enumerate(python_blocks(page), 1)]
# Known to warn (checked: the block fails with this warning, and the test fails
# once it stops warning): a bridge lends a JAX body's outputs to a torch caller
# with the process's one AliasWarning, though a body's fresh outputs have no
# other holder; silencing it needs a count of a jax array's holders.
WARNS = {("wrap.md", 1): "a JAX body's outputs lent to a torch caller"}


def _run(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    with tempfile.TemporaryDirectory() as where:  # a block may write files
        return subprocess.run([sys.executable, "-c", RUNNER], input=code,
                              capture_output=True, text=True, cwd=where, env=env,
                              timeout=600)


@pytest.mark.slow
def test_every_python_block_runs():
    """All blocks, two interpreters at a time (each imports its frameworks)."""
    runnable, skipped = [], []
    for page, number, code in BLOCKS:
        missing = [f for f in _needs(code) if importlib.util.find_spec(f) is None]
        (skipped if missing else runnable).append((page, number, code))
    for page, number, _ in skipped:
        print(f"{page.name} block {number}: needs a framework not installed here")
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda block: _run(block[2]), runnable))
    failed, passed_but_known = [], []
    for (page, number, code), out in zip(runnable, results, strict=True):
        ok = out.returncode == 0 and out.stdout.strip().endswith("ok")
        if (page.name, number) in WARNS:
            if ok:
                passed_but_known.append(f"{page.name}:{number}")
            else:
                assert "AliasWarning" in out.stderr, out.stderr[-2000:]
        elif not ok:
            failed.append(f"{page.name} block {number}:\n{code}\n{out.stderr[-3000:]}")
    assert not failed, "\n\n".join(failed)
    # a known deviation that no longer warns: take it out of WARNS
    assert not passed_but_known, passed_but_known


def test_pages_have_blocks_to_run():
    """The collector reads what it should (or the test above proves nothing)."""
    assert len(BLOCKS) >= 13
    assert any("ut.matmul(t, n)" in code for _, _, code in BLOCKS)
