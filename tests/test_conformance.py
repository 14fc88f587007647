"""The project's own Array API conformance suite passes on every installed owner.

A short run (5 examples per test, derandomized so CI is repeatable) of
``python -m conformance``; longer runs and the official data-apis suite are in
docs/conformance.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.long
def test_own_conformance_suite_passes_on_every_owner(tmp_path):
    page = tmp_path / "conformance.md"
    env = {**os.environ, "CONFORMANCE_DERANDOMIZE": "1"}
    run = subprocess.run([sys.executable, "-m", "conformance", "--examples", "5",
                          "--write", str(page)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=1500)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    text = page.read_text()
    total = next(line for line in text.splitlines() if line.startswith("| **all**"))
    assert "failed" not in total
    assert "passed" in total
    # the per-function table
    assert "`add`" in text
    assert "`linalg.qr`" in text


def test_runner_keeps_the_hand_written_part_of_the_page(tmp_path):
    sys.path.insert(0, str(ROOT))
    from conformance.__main__ import BEGIN, END, write
    page = tmp_path / "page.md"
    page.write_text(f"intro\n{BEGIN}\nold\n{END}\noutro\n")
    write(page, "new\n")
    assert page.read_text() == f"intro\n{BEGIN}\nnew\n{END}\noutro\n"


@pytest.mark.slow  # a pytest subprocess, ~1 s
def test_runner_says_why_pytest_gave_no_report(tmp_path):
    # a suite whose conftest fails to import (the official suite without its
    # pytest-json-report plugin did this) stopped the runner with no reason
    sys.path.insert(0, str(ROOT))
    from conformance.__main__ import run_pytest
    (tmp_path / "conftest.py").write_text(
        'raise ImportError("plugin-x is required to run these tests")\n')
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    why = r"(?s)no report for numpy.*plugin-x is required"
    with pytest.raises(SystemExit, match=why):
        run_pytest(["test_one.py"], "numpy", {}, tmp_path)
