"""The benchmark runner cannot rot: its quick mode runs and writes a full table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.long]


def test_quick_benchmark_run_writes_the_tables(tmp_path):
    out_file = tmp_path / "performance.md"
    out = subprocess.run([sys.executable, "-m", "benchmarks.run", "--quick",
                          "--write", str(out_file)], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    text = out_file.read_text()
    for heading in ("## Targets", "## Conversion", "## Dispatch", "## Memory",
                    "## Import", "## Where the gaps come from"):
        assert heading in text
    assert "ut.asarray(numpy).torch()" in text
    assert "torch.from_numpy(a)" in text
    assert "frameworks imported: none" in text
    assert "numpy (16): ut.add(x, y)" in text
    assert "torch (8x8): ut.matmul" in text
    assert "| met" in text or "| not met" in text
    assert "vs DLPack" in text
    assert "unaligned numpy .jax()" in text
    assert "at most 0.3 µs over native" in text


def test_quick_wrap_benchmark_prints_its_rows():
    out = subprocess.run([sys.executable, "-m", "benchmarks.wrap", "--quick",
                          "--rows", "small,tf"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "| bridged call | µs | reference | µs | ratio | target |" in out.stdout
    assert "jax.jit(jax → torch body)" in out.stdout
    assert "≤ 25 µs: met" in out.stdout or "≤ 25 µs: not met" in out.stdout
