"""Lifetime torture for valgrind: every way a Buffer's memory can be shared and dropped.

Run directly (``python tests/helpers/lifetime_torture.py``) or under valgrind by
tests/ext/test_valgrind.py. Uses numpy and unitensor only, so that it runs on a bare
interpreter. Exits non-zero if any value is wrong or any deleter did not run
exactly once.
"""

from __future__ import annotations

import gc
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from forge import counters, forge

import unitensor as ut
from unitensor import _core, _fast
from unitensor._convert import buffer_of


def many_consumers_source_first(rounds: int) -> None:
    for _ in range(rounds):
        x = np.arange(64.0)
        buf = _core.from_capsule(x.__dlpack__(max_version=(1, 0)))
        views = [np.from_dlpack(buf) for _ in range(20)]
        capsules = [buf.__dlpack__(max_version=(1, 0)) for _ in range(5)]
        legacy = buf.__dlpack__()
        del x, buf
        gc.collect()
        random.shuffle(views)
        assert all(v[63] == 63.0 for v in views)
        del views, capsules, legacy


def chains(rounds: int) -> None:
    for _ in range(rounds):
        t = ut.from_dlpack(forge(np.arange(10.0)))
        for _ in range(5):  # numpy -> Buffer -> numpy -> ...
            t = ut.from_dlpack(buffer_of(t).__dlpack__(max_version=(1, 0)))
        assert t.numpy()[9] == 9.0
        copy = buffer_of(t).copy()
        del t
        gc.collect()
        assert np.asarray(copy)[9] == 9.0


def layouts(rounds: int) -> None:
    for _ in range(rounds):
        x = np.arange(48, dtype=np.int16).reshape(6, 8)
        for view in (x[::-1, ::3], x.T, x[:0], x[2:3, 4:5].reshape(()), x[:, None]):
            buf = _core.from_array_interface(view)
            np.testing.assert_array_equal(np.asarray(buf.copy()), view)
            np.testing.assert_array_equal(np.from_dlpack(buf), view)
            memoryview(buf).tolist()


class Node:
    pass


def cycles(rounds: int) -> None:
    """node -> Buffer -> node (its base), and node -> Tensor -> its views.

    A cycle through a numpy array cannot be collected (numpy arrays are not
    tracked by the cyclic GC, so their base is invisible to it); none is made here.
    """
    for _ in range(rounds):
        node = Node()
        node.a = np.arange(8.0)
        node.__array_interface__ = node.a.__array_interface__
        node.buf = _core.from_array_interface(node)
        node.t = ut.asarray(np.arange(4.0))
        node.t._shared().views["node"] = node  # a cycle through the Tensor's cache
        del node
    gc.collect()


def fast_paths(rounds: int) -> None:
    """The C Tensor and fast paths (ext/_fast.c): made, shared, cycled, dropped."""
    for _ in range(rounds):
        a = np.arange(16.0)
        t = ut.asarray(a)
        s = ut.add(t, t) + t
        if s.numpy()[3] != 9.0 or ut.sin(t).numpy()[0] != 0.0:
            raise AssertionError("wrong value from a fast path")
        capsule = buffer_of(s).__dlpack__(max_version=(1, 0))
        again = ut.from_dlpack(capsule)
        del capsule
        t._shared().views["self"] = t  # a cycle through the Tensor's cache
        f = _fast.FastPath("unary", ut.sin.__wrapped__, {})
        f.table["self"] = f  # a cycle through a FastPath
        del a, t, s, again, f
    gc.collect()


def rejected_capsules(rounds: int) -> None:
    for _ in range(rounds):
        for bad in ({"null_data": True}, {"dtype": (2, 32, 4)},
                    {"name": b"not_a_dltensor"}, {"device": (99, 0)}):
            capsule = forge(**bad)
            try:
                ut.from_dlpack(capsule)
            except (TypeError, BufferError):
                pass
            else:
                raise AssertionError(f"accepted {bad}")
            del capsule


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    random.seed(0)
    start = _core.stats()
    many_consumers_source_first(rounds)
    chains(rounds)
    layouts(rounds)
    cycles(rounds)
    fast_paths(rounds)
    rejected_capsules(rounds)
    gc.collect()
    end = _core.stats()
    problems = []
    if counters.live or counters.double_calls:
        problems.append(f"forged tensors: {counters.snapshot()}")
    if end["exported_alive"] != start["exported_alive"]:
        problems.append(f"exports alive: {start} -> {end}")
    if end["buffers_alive"] != start["buffers_alive"]:
        problems.append(f"buffers alive: {start} -> {end}")
    print("lifetime torture:", "; ".join(problems) or "clean", counters.snapshot())
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
