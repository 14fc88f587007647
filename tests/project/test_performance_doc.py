"""docs/performance.md stays true: what its conversion rows say of copies is what
the interop matrix (docs/interop.md) says, and the runner's note names a copy only
where a copy was made."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
METHODS = {"numpy": "numpy", "torch": "torch", "jax": "jax", "tf": "tensorflow",
           "warp": "warp"}


def _table(text: str, heading: str) -> list[list[str]]:
    """The rows (cells) of the first table after ``heading``."""
    rows, inside = [], False
    for line in text[text.index(heading):].splitlines()[1:]:
        if line.startswith("|"):
            inside = True
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not set(cells[0]) <= {"-", " "}:
                rows.append(cells)
        elif inside:
            break
    return rows


def _matrix() -> dict[tuple[str, str], str]:
    """(source, target) -> "zero-copy" or "copy", from docs/interop.md."""
    header, *rows = _table((ROOT / "docs" / "interop.md").read_text(),
                           "## The matrix, measured")
    return {(row[0], dst): row[i].split()[0]
            for row in rows for i, dst in enumerate(header) if i > 0}


def _conversion_rows() -> list[tuple[str, str, str, str]]:
    """(case, source, target, note) of performance.md's conversion rows."""
    text = (ROOT / "docs" / "performance.md").read_text()
    out = []
    for row in _table(text, "## Conversion")[1:]:
        found = re.fullmatch(r".*: ut\.asarray\((\w+)\)\.(\w+)\(\)", row[0])
        if found:
            out.append((row[0], found[1], METHODS[found[2]], row[-1]))
    return out


def test_the_conversion_rows_agree_with_the_interop_matrix():
    matrix = _matrix()
    # the matrix is the main job's frameworks; Warp's rows (no namespace, not in
    # the main job) are checked by pointer in tests/backends/test_warp.py
    rows = [r for r in _conversion_rows() if (r[1], r[2]) in matrix]
    assert len(rows) >= 12  # every pair of numpy, torch, jax, tensorflow, once
    for case, src, dst, note in rows:
        expected = matrix[src, dst]
        said = "copy" if note.startswith("copy") else note.split(",")[0]
        assert said == expected, (f"docs/performance.md: {case} says {note!r}; "
                                  f"docs/interop.md's matrix says {expected}")


def _runner():
    spec = importlib.util.spec_from_file_location("benchmarks_run",
                                                  ROOT / "benchmarks" / "run.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclass looks its module up)
    spec.loader.exec_module(module)
    return module


def test_the_runner_notes_an_alias_of_read_only_memory_as_no_copy():
    pytest.importorskip("torch")
    run = _runner()
    a = np.arange(16.0)
    a.flags.writeable = False  # torch cannot mark it: aliased, AliasWarning
    assert run.conversion_note(a, "torch") == run.ALIASED
    assert run.conversion_note(np.arange(16.0), "torch") == "zero-copy"
    assert run.conversion_note(np.arange(16.0)[::-1], "torch") == (
        "copy: torch tensors cannot have negative strides")
