"""``python -m unitensor``: the conversion matrix and a framework-agnostic computation.

For every pair of installed frameworks it converts a fresh array from the source
to the target through unitensor, checks whether the target shares the source's
memory (data pointer identity), and times the conversion (median of many runs).
Then it runs one computation, written once against the Array API standard, on
data from every framework, and checks that all the answers agree. Where a GPU is
present, it shows each framework's memory after the demo and what
``ut.memory.flush()`` released.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import unitensor as ut
from unitensor import _backends
from unitensor._convert import buffer_of

FRAMEWORKS = ("numpy", "torch", "jax", "tensorflow", "array_api_strict")
SHAPE = (256, 1024)  # 1 MiB of float32


def installed(names: tuple[str, ...] = FRAMEWORKS) -> list[str]:
    """The frameworks this interpreter can import, in unitensor's order."""
    return [name for name in names if importlib.util.find_spec(name) is not None]


def make(framework: str, base: np.ndarray) -> Any:
    """A fresh array of ``framework`` holding ``base``'s values."""
    fresh = ut.asarray(base, copy=True)
    return fresh.to(framework, copy=True).native


def pointer(array: Any) -> int:
    """The address of the first element, whatever the framework."""
    return buffer_of(ut.asarray(array)).data_ptr


def median_us(fn: Callable[[], object], repeat: int = 200) -> float:
    """The median time of one call of ``fn``, in microseconds."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def conversion_us(source: Any, dst: str) -> float:
    """The median time of ``ut.asarray(source).to(dst)``, in µs.

    A function of its own, not a lambda in the loop: mypy cannot type a lambda's
    defaults.
    """
    return median_us(lambda: ut.asarray(source).to(dst))


def matrix(frameworks: list[str], markdown: bool = False) -> None:
    """Print every source -> target conversion: zero-copy or not, and its cost."""
    base = np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)
    print(f"Conversion matrix: ut.asarray(src).to(dst) of a {SHAPE} float32 array")
    print("(zero-copy = same data pointer; time = median per conversion)\n")
    corner = "src \\ dst"
    if markdown:
        print(f"| {corner} | " + " | ".join(frameworks) + " |")
        print("| --- " * (len(frameworks) + 1) + "|")
    else:
        print(f"{corner:>18}" + "".join(f"{d:>22}" for d in frameworks))
    copies = 0
    for src in frameworks:
        source = make(src, base)
        cells = []
        for dst in frameworks:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ut.CopyWarning)
                warnings.simplefilter("ignore", ut.AliasWarning)  # said below
                out = ut.asarray(source).to(dst).native
                same = pointer(out) == pointer(source)
                us = conversion_us(source, dst)
            assert np.array_equal(ut.asarray(out).numpy(), base), (src, dst)
            copies += not same
            cells.append(f"{'zero-copy' if same else 'COPY'} {us:7.1f} µs")
        if markdown:
            print(f"| {src} | " + " | ".join(cells) + " |")
        else:
            print(f"{src:>18}" + "".join(f"{c:>22}" for c in cells))
    if copies:
        print("\nCOPY: the target cannot alias that memory and unitensor copied it "
              "(reported\nwith ut.CopyWarning). See docs/interop.md.")
    print("\nJAX and TensorFlow arrays are read-only: torch, which has no read-only "
          "tensors,\naliases them as its own from_dlpack does (ut.AliasWarning, once "
          "per process);\nunitensor still refuses to write into them.")


def standardize(x: Any) -> Any:
    """Framework-agnostic: written once against the Array API standard."""
    xp = x.__array_namespace__()
    centred = x - xp.mean(x, axis=0)
    return centred / xp.std(x, axis=0)


def computation(frameworks: list[str]) -> None:
    """Run one framework-agnostic computation on each framework's data."""
    rng = np.random.default_rng(0)
    base = rng.standard_normal((1000, 8)).astype(np.float32)
    expected = (base - base.mean(axis=0)) / base.std(axis=0)
    print("\nOne computation (standardize columns), written once against the Array API,"
          "\non unitensor Tensors of data from each framework:")
    for name in frameworks + installed(("dask",)):  # dask: lazy, in no matrix
        t = ut.asarray(make(name, base))
        result = standardize(t)
        error = float(np.max(np.abs(result.numpy() - expected)))
        status = "ok" if error < 1e-4 else "MISMATCH"
        print(f"  {name:>18}: ran in {result.owner:<17} max |error| = {error:.1e}  "
              f"{status}")
        if status != "ok":
            raise SystemExit(1)
    n, t = (ut.asarray(make(name, base)) for name in ("numpy", frameworks[-1]))
    mixed = ut.matmul(t.mT, n)
    print(f"  mixed owners: matmul({t.owner}, numpy) ran in {mixed.owner} "
          "(the left-most operand's framework; the other converted zero-copy)")


def mib(value: int | None) -> str:
    """A byte count in MiB, or '-' where the framework cannot say."""
    return "-" if value is None else f"{value / 2**20:,.1f}"


def memory_report(before_demo: dict[str, ut.memory.MemoryStats]) -> None:
    """Each framework's GPU memory before and after the demo (``before_demo``:
    ``ut.memory.stats()`` then), and what a flush released.

    On a machine without a GPU, one line: the frameworks keep no device cache
    there. (The GPU table is not yet run on a GPU: docs/memory.md.)
    """
    after_demo = ut.memory.stats()
    if not any(record.device.kind == "cuda" for record in after_demo.values()):
        print("\nMemory: no GPU here, so no device caches to show "
              "(ut.memory.stats() and flush(): docs/memory.md).")
        return
    flushed = ut.memory.flush()
    after_flush = ut.memory.stats()
    print("\nGPU memory before and after the demo, by each framework's own counters "
          "(MiB; '-': it cannot say), and what ut.memory.flush() released:")
    print(f"{'framework':>12} {'device':>8} {'reserved before':>16} {'in use':>10} "
          f"{'reserved':>10} {'peak':>10} {'limit':>10} {'released':>10} "
          f"{'reserved after':>15}")
    for name, record in after_demo.items():
        released = flushed[name].released if name in flushed else None
        earlier, later = before_demo.get(name), after_flush.get(name)
        print(f"{name:>12} {record.device!s:>8} "
              f"{mib(earlier.reserved if earlier else None):>16} "
              f"{mib(record.in_use):>10} {mib(record.reserved):>10} "
              f"{mib(record.peak):>10} "
              f"{mib(record.limit):>10} {mib(released):>10} "
              f"{mib(later.reserved if later else None):>15}")
    for name, result in flushed.items():
        print(f"  {name}: {result.note}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The main job's command line (``--help`` prints it and runs nothing)."""
    parser = argparse.ArgumentParser(
        prog="python -m unitensor",
        description="The zero-copy conversion matrix across the installed frameworks "
        "(data pointer identity, median time per conversion), then one computation "
        "written once against the Array API on data from each framework, then each "
        "framework's GPU memory where a GPU is present.")
    parser.add_argument("--markdown", action="store_true",
                        help="print the matrix as a Markdown table (docs/interop.md)")
    parser.add_argument("--frameworks", nargs="+", metavar="NAME",
                        choices=FRAMEWORKS, default=None,
                        help="only these of the installed frameworks "
                        f"(default: every installed one of {', '.join(FRAMEWORKS)})")
    return parser.parse_args(argv)


def _load_tensorflow_without_info_lines() -> None:
    """Load TensorFlow's adapter (which imports TensorFlow, triton first where
    installed) with the INFO lines TensorFlow's C++ libraries print as they load
    left out of stderr (oneDNN's note, on CPUs where oneDNN is on, goes through
    absl before TF_CPP_MIN_LOG_LEVEL is read, which then cannot silence it), its
    other lines (warnings, errors) passed on as they came.
    """
    sys.stderr.flush()
    kept = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            _backends.get("tensorflow")
        finally:
            os.dup2(kept, 2)
            os.close(kept)
            captured.seek(0)
            for line in captured.read().decode(errors="replace").splitlines(True):
                if not (line.startswith("I0000") or " I tensorflow/" in line):
                    sys.stderr.write(line)
            sys.stderr.flush()


def main(argv: list[str] | None = None) -> None:
    """Run the main job: the interop matrix, the computation, then memory."""
    args = parse_args(argv)
    # TensorFlow's C++ INFO lines (oneDNN, CPU features) would break the table;
    # warnings and errors still show. Set before TensorFlow starts, and only here:
    # the library leaves a user's logging alone.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    frameworks = installed(tuple(args.frameworks or FRAMEWORKS))
    if "tensorflow" in frameworks:
        _load_tensorflow_without_info_lines()
    markdown = args.markdown
    print(f"unitensor {ut.__version__}; frameworks installed: {', '.join(frameworks)}")
    if "jax" in frameworks:
        import jax
        jax.config.update("jax_enable_x64", True)  # keep float64 float64
    before_demo = ut.memory.stats()
    matrix(frameworks, markdown)
    computation(frameworks)
    memory_report(before_demo)


if __name__ == "__main__":
    main()
    sys.exit(0)
