"""unitensor's benchmarks: ratios against the frameworks' own fastest paths, in one run.

    python -m benchmarks.run [--quick] [--write docs/performance.md]

Every figure is the median over many repetitions of a batched loop (per-call
microseconds); every unitensor figure stands next to the native route it replaces,
measured in the same run, as a ratio. ``--quick`` (CI) uses fewer repetitions and
smaller arrays so that it finishes in well under a minute.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import unitensor as ut

FRAMEWORKS = [f for f in ("numpy", "torch", "jax", "tensorflow")
              if importlib.util.find_spec(f) is not None]


@dataclass
class Row:
    section: str
    case: str
    unitensor_us: float | None
    native_us: float | None
    native: str
    note: str = ""
    compat_us: float | None = None  # array-api-compat's namespace, where it applies
    mib: float | None = None  # memory rows: peak RSS growth

    @property
    def ratio(self) -> str:
        if self.unitensor_us is None or not self.native_us:
            return "-"
        return f"{self.unitensor_us / self.native_us:.2f}x"


def per_call_us(fn: Callable[[], object], quick: bool) -> float:
    """Median per-call time over repeated batches (after a warm-up)."""
    return side_by_side([fn], quick)[0]


def side_by_side(fns: list[Callable[[], object]], quick: bool) -> list[float]:
    """Median per-call times of ``fns``, their batches interleaved (a, b, b, a,
    ...) so that drift of the machine (frequency, other load, memory bandwidth)
    reaches every one of them alike: the ratios compare like with like."""
    numbers = []
    for fn in fns:
        for _ in range(3):
            fn()
        start = time.perf_counter_ns()
        fn()
        single = max(time.perf_counter_ns() - start, 1)
        numbers.append(max(1, min(20_000, int(2e6 / single))))  # batches of ~2 ms
    samples: list[list[float]] = [[] for _ in fns]
    runs = list(zip(fns, numbers, samples, strict=True))
    for round_ in range(6 if quick else 26):
        # every other round in reverse order: none of them always runs first
        for fn, number, out in runs if round_ % 2 else runs[::-1]:
            start = time.perf_counter_ns()
            for _ in range(number):
                fn()
            out.append((time.perf_counter_ns() - start) / number / 1e3)
    return [statistics.median(out) for out in samples]


def aligned(n: int, dtype=np.float32) -> np.ndarray:
    """A numpy array 64-byte aligned, as JAX on CPU needs to share memory."""
    itemsize = np.dtype(dtype).itemsize
    raw = np.empty(n * itemsize + 64, np.uint8)
    start = (-raw.ctypes.data) % 64
    return raw[start:start + n * itemsize].view(dtype)


def make(framework: str, base: np.ndarray):
    if framework == "numpy":
        return base
    if framework == "torch":
        import torch
        return torch.tensor(base)  # torch's allocator: 64-byte aligned
    if framework == "jax":
        import jax.numpy as jnp
        return jnp.asarray(base)
    import tensorflow as tf
    return tf.constant(base)


def native_route(src: str, dst: str) -> tuple[str, Callable]:
    """The frameworks' own fastest zero-copy route from src to dst."""
    if dst == "numpy":
        if src == "torch":
            return "t.numpy()", lambda x: x.numpy()
        return "np.from_dlpack(x)", np.from_dlpack
    if dst == "torch":
        import torch
        if src == "numpy":
            return "torch.from_numpy(a)", torch.from_numpy
        if src == "tensorflow":
            import tensorflow as tf
            return ("torch.from_dlpack(tf.experimental.dlpack.to_dlpack(x))",
                    lambda x: torch.from_dlpack(tf.experimental.dlpack.to_dlpack(x)))
        return "torch.from_dlpack(x)", torch.from_dlpack
    if dst == "jax":
        import jax.dlpack
        return "jax.dlpack.from_dlpack(x)", jax.dlpack.from_dlpack
    import tensorflow as tf
    if src == "tensorflow":
        return "x (already tf)", lambda x: x
    return ("tf.experimental.dlpack.from_dlpack(x.__dlpack__())",
            lambda x: tf.experimental.dlpack.from_dlpack(x.__dlpack__()))


def _np_from_dlpack() -> tuple[str, Callable]:
    return "np.from_dlpack(t)", np.from_dlpack


def _torch_from_dlpack() -> tuple[str, Callable]:
    import torch
    return "torch.from_dlpack(a)", torch.from_dlpack


# (source, target) -> the generic DLPack route that the 3x target is against
DLPACK_ROUTES = {("torch", "numpy"): _np_from_dlpack,
                 ("numpy", "torch"): _torch_from_dlpack}

METHOD = {"numpy": "numpy", "torch": "torch", "jax": "jax", "tensorflow": "tf"}


def _ours(dst: str, x: object) -> Callable[[], object]:
    """``ut.asarray(x)`` and its view for ``dst``, spelled as a user spells it,
    with ``ut.asarray`` bound as the native route's callable is."""
    if dst == "numpy":
        return lambda x=x, a=ut.asarray: a(x).numpy()
    if dst == "torch":
        return lambda x=x, a=ut.asarray: a(x).torch()
    if dst == "jax":
        return lambda x=x, a=ut.asarray: a(x).jax()
    return lambda x=x, a=ut.asarray: a(x).tf()


# Targets that cannot mark an array read-only: read-only memory is aliased
# writable there, with one ut.AliasWarning per process (docs/interop.md).
CANNOT_MARK_READ_ONLY = ("torch", "cupy")
ALIASED = "zero-copy, read-only memory aliased writable (ut.AliasWarning)"


def conversion_note(x: object, dst: str) -> str:
    """What ``ut.asarray(x)``'s view for ``dst`` is: "zero-copy" where it has the
    source's data pointer, else "copy: <the CopyWarning's reason>". An
    AliasWarning is no copy: it says that read-only memory was aliased."""
    src = ut.asarray(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        view = getattr(src, METHOD[dst])()
    copies = [w for w in caught if issubclass(w.category, ut.CopyWarning)]
    if copies:
        reason = str(copies[0].message).split("because ")[-1]
        return f"copy: {re.split(r' [(]|; ', reason)[0]}"
    if _data_ptr(view) != _data_ptr(src):
        return "copy (not reported)"
    if src.readonly and dst in CANNOT_MARK_READ_ONLY:
        return ALIASED
    return "zero-copy"


def _data_ptr(x: object) -> int:
    from unitensor._convert import buffer_of
    return buffer_of(ut.asarray(x)).data_ptr


def conversions(quick: bool) -> list[Row]:
    rows = []
    sizes = [("16 elements", 16)] + ([] if quick else [("64 MiB", 16 * 2**20)])
    for label, n in sizes:
        base = aligned(n)
        base[...] = np.arange(n) % 1000
        for src in FRAMEWORKS:
            x = make(src, base)
            rows.append(Row("conversion", f"{label}: ut.asarray({src})",
                            per_call_us(lambda x=x: ut.asarray(x), quick),
                            None, "", ""))
            for dst in FRAMEWORKS:
                if dst == src:
                    continue
                name, route = native_route(src, dst)
                method = METHOD[dst]
                note = conversion_note(x, dst)
                dlpack = DLPACK_ROUTES.get((src, dst))  # the generic route replaced
                dl_name, dl_route = dlpack() if dlpack is not None else ("", None)
                # both as a user writes them, each with its callable bound as the
                # native route's is (no getattr by name: a bound method and a
                # builtin call of ~0.1 µs that `.torch()` does not make)
                fns = [_ours(dst, x), lambda x=x, r=route: r(x)]
                if dl_route is not None:
                    fns.append(lambda x=x, r=dl_route: r(x))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ut.CopyWarning)
                    ours, theirs, *generic = side_by_side(fns, quick)
                rows.append(Row("conversion", f"{label}: ut.asarray({src}).{method}()",
                                ours, theirs, name, note))
                if generic:
                    case = f"{label}: ut.asarray({src}).{method}() vs DLPack"
                    rows.append(Row("conversion", case, ours, generic[0], dl_name,
                                    "the target: 3x faster than this"))
        if "jax" in FRAMEWORKS:  # JAX on CPU shares only 64-byte aligned memory
            unaligned = np.frombuffer(bytes(4 * n + 4), np.float32, n, offset=4)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ut.CopyWarning)
                ut.asarray(unaligned).jax()
            note = ("copy reported: " + str(caught[0].message).split("because ")[-1]
                    .split(" (")[0] if caught else "no copy (unexpected)")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ut.CopyWarning)
                us = per_call_us(lambda u=unaligned: ut.asarray(u).jax(), quick)
                rows.append(Row("conversion", f"{label}: unaligned numpy .jax()", us,
                                None, "", note))
        if "torch" in FRAMEWORKS:
            t = ut.asarray(base)
            t.torch()
            rows.append(Row("conversion", f"{label}: cached second .torch()",
                            per_call_us(t.torch, quick), None, "", ""))
    return rows


def warp_conversions(quick: bool) -> list[Row]:
    """Warp's arrays both ways (16 elements, CPU), against Warp's own routes
    (``wp.to_torch``, ``wp.from_torch``, ``wp.array(numpy, copy=False)``); where
    warp-lang is not installed, none.
    """
    if importlib.util.find_spec("warp") is None or "torch" not in FRAMEWORKS:
        return []
    import torch
    import warp as wp
    base = aligned(16)
    w = wp.array(base, dtype=wp.float32, copy=False)
    t = torch.from_numpy(base.copy())
    rows = [Row("conversion", "16 elements: ut.asarray(warp)",
                per_call_us(lambda: ut.asarray(w), quick), None, "", "")]
    cases = [("ut.asarray(warp).torch()", lambda: ut.asarray(w).torch(),
              "wp.to_torch(w)", lambda: wp.to_torch(w)),
             ("ut.asarray(torch).warp()", lambda: ut.asarray(t).warp(),
              "wp.from_torch(t)", lambda: wp.from_torch(t)),
             ("ut.asarray(numpy).warp()", lambda: ut.asarray(base).warp(),
              "wp.array(a, copy=False)",
              lambda: wp.array(base, dtype=wp.float32, copy=False)),
             ("ut.asarray(warp).numpy()", lambda: ut.asarray(w).numpy(),
              "w.numpy()", lambda: w.numpy())]
    for case, ours, name, theirs in cases:
        mine, native = side_by_side([ours, theirs], quick)
        rows.append(Row("conversion", f"16 elements: {case}", mine, native, name,
                        "zero-copy"))
    return rows


def _ops(framework: str) -> object:
    """The framework's own module for its native operations."""
    if framework == "jax":
        import jax.numpy
        return jax.numpy
    return __import__(framework)


def dispatch(quick: bool) -> list[Row]:
    """A call through ut against the framework's own call and array-api-compat's."""
    import array_api_compat
    rows = []
    for framework in [f for f in FRAMEWORKS if f in ("numpy", "torch", "jax")]:
        fw = _ops(framework)
        for n in (1, 16):
            native = make(framework, aligned(n))
            xp = array_api_compat.array_namespace(native)
            t = ut.asarray(native)
            cases = [
                ("x + y", lambda t=t: t + t, lambda a=native: a + a,
                 lambda a=native, xp=xp: xp.add(a, a)),
                ("ut.add(x, y)", lambda t=t: ut.add(t, t),
                 lambda a=native, fw=fw: fw.add(a, a),
                 lambda a=native, xp=xp: xp.add(a, a)),
                ("ut.sin(x)", lambda t=t: ut.sin(t), lambda a=native, fw=fw: fw.sin(a),
                 lambda a=native, xp=xp: xp.sin(a)),
                ("ut.sum(x)", lambda t=t: ut.sum(t), lambda a=native, fw=fw: fw.sum(a),
                 lambda a=native, xp=xp: xp.sum(a)),
                ("x[1:3]", lambda t=t: t[1:3], lambda a=native: a[1:3], None),
            ]
            for label, ours, theirs, compat in cases:
                times = side_by_side([ours, theirs] + ([compat] if compat else []),
                                     quick)
                rows.append(Row("dispatch", f"{framework} ({n}): {label}", times[0],
                                times[1], f"{framework}'s own",
                                compat_us=times[2] if compat else None))
        m = make(framework, aligned(64).reshape(8, 8))
        xp = array_api_compat.array_namespace(m)
        tm = ut.asarray(m)
        ours, theirs, compat_us = side_by_side(
            [lambda t=tm: ut.matmul(t, t), lambda a=m, fw=fw: fw.matmul(a, a),
             lambda a=m, xp=xp: xp.matmul(a, a)], quick)
        rows.append(Row("dispatch", f"{framework} (8x8): ut.matmul(x, y)", ours,
                        theirs, f"{framework}'s own", compat_us=compat_us))
        big = make(framework, aligned(2**22 if not quick else 2**16))
        tb = ut.asarray(big)
        label = "4M" if not quick else "64K"
        ours, theirs = side_by_side([lambda t=tb: ut.add(t, t),
                                     lambda a=big, fw=fw: fw.add(a, a)], quick)
        rows.append(Row("dispatch", f"{framework} ({label}): ut.add(x, y)", ours,
                        theirs, f"{framework}'s own",
                        "no hidden copy: the same kernel"))
    rows += mixed(quick)
    rows += view_functions(quick)
    if "jax" in FRAMEWORKS:
        rows += view_writes(quick)
    if "tensorflow" in FRAMEWORKS:
        rows += tensorflow_dispatch(quick)
    return rows


def mixed(quick: bool) -> list[Row]:
    """Calls the C fast paths do not take: operands of two owners (the owner rule
    asks the frameworks with autodiff whether an operand carries a graph), and an
    array with a Python scalar (the general path's shortcut), against the same
    operation on one owner's arrays."""
    if "torch" not in FRAMEWORKS:
        return []
    import torch
    a = aligned(16)
    b = torch.from_numpy(a.copy())
    x, y = ut.asarray(a), ut.asarray(b)
    i = ut.asarray(np.arange(16, dtype=np.int32))
    ours_mix, ours_left, ours_one, ours_scalar, ours_int, theirs, torch_own = (
        side_by_side([lambda: ut.add(x, y), lambda: ut.add(y, x), lambda: ut.add(x, x),
                      lambda: x + 1.0, lambda: i * 0.5, lambda: np.add(a, a),
                      lambda: torch.add(b, b)], quick))
    return [Row("dispatch", "numpy + torch (16): ut.add(x, y)", ours_mix, theirs,
                "numpy's own (one owner)", "in C: torch's operand's cached numpy view"),
            Row("dispatch", "torch + numpy (16): ut.add(x, y)", ours_left, torch_own,
                "torch's own (one owner)", "in C: numpy's operand's cached torch view"),
            Row("dispatch", "numpy (16): ut.add(x, x), same run", ours_one, theirs,
                "numpy's own"),
            Row("dispatch", "numpy (16): x + 1.0", ours_scalar, theirs,
                "numpy's own a + a"),
            Row("dispatch", "numpy (16): int32 x * 0.5", ours_int, theirs,
                "numpy's own a + a", "cast to float64 first (the one rule)")]


def view_functions(quick: bool) -> list[Row]:
    """numpy's views on every owner (16 elements; unitensor/_views.py ties them
    where the owner's own result is not numpy's view) against the framework's
    own call: broadcast_to (read-only in numpy), reshape, and slices as the
    operands of an elementwise function."""
    rows = []
    for framework in [f for f in FRAMEWORKS if f in ("numpy", "torch", "jax",
                                                     "tensorflow")]:
        native = make(framework, aligned(16))
        t = ut.asarray(native)
        if framework == "tensorflow":
            import tensorflow as tf
            broadcast, reshape = tf.broadcast_to, tf.reshape
        else:
            fw = _ops(framework)
            broadcast, reshape = fw.broadcast_to, fw.reshape
        cases = [
            ("ut.broadcast_to(x, (2, 16))", lambda t=t: ut.broadcast_to(t, (2, 16)),
             lambda a=native, f=broadcast: f(a, (2, 16))),
            ("ut.reshape(x, (4, 4))", lambda t=t: ut.reshape(t, (4, 4)),
             lambda a=native, f=reshape: f(a, (4, 4))),
            ("x[1:] - x[:-1] (views)", lambda u=t[1:], w=t[:-1]: u - w,
             lambda u=native[1:], w=native[:-1]: u - w),
        ]
        for label, ours, theirs in cases:
            times = side_by_side([ours, theirs], quick)
            rows.append(Row("dispatch", f"{framework} (16): {label}", times[0],
                            times[1], f"{framework}'s own"))
    return rows


def view_writes(quick: bool) -> list[Row]:
    """A write through a view of a jax-owned Tensor (replayed on its base:
    unitensor/_views.py) against jax's own functional update of the base."""
    import jax.numpy as jnp
    state = {"a": jnp.zeros((64, 64), jnp.float32)}
    x = ut.asarray(jnp.zeros((64, 64), jnp.float32))
    row, flat = x[3], ut.reshape(x, (4096,))

    def theirs() -> None:
        state["a"] = state["a"].at[3, 1:5].set(1.0)

    def base() -> None:
        x[3, 1:5] = 1.0

    def through_row() -> None:
        row[1:5] = 1.0

    def through_reshape() -> None:
        flat[193:197] = 1.0

    times = side_by_side([theirs, base, through_row, through_reshape], quick)
    return [Row("dispatch", "jax (64x64): x[3, 1:5] = 1.0", times[1], times[0],
                "jax's x.at[3, 1:5].set(1.0)"),
            Row("dispatch", "jax (64x64): v[1:5] = 1.0, v = x[3]", times[2], times[0],
                "jax's x.at[3, 1:5].set(1.0)",
                "a view's write: its own update, then the base's"),
            Row("dispatch", "jax (64x64): r[193:197] = 1.0, r = reshape(x, (4096,))",
                times[3], times[0], "jax's x.at[3, 1:5].set(1.0)",
                "its own update, then a reshape back")]


def tensorflow_dispatch(quick: bool) -> list[Row]:
    """TF-owned calls (16 elements) against TF's public ops (there is no
    array-api-compat namespace for TF), and ut.add against TF's C fast path
    (TFE_Py_FastPathExecute, what tf.math.add calls first)."""
    import tensorflow as tf
    from tensorflow.python import pywrap_tfe
    from tensorflow.python.eager import context
    a = make("tensorflow", aligned(16))
    t = ut.asarray(a)
    ctx = context.context()
    fast = pywrap_tfe.TFE_Py_FastPathExecute
    ours, public, path = side_by_side(
        [lambda: ut.add(t, t), lambda: tf.math.add(a, a),
         lambda: fast(ctx, "AddV2", None, a, a)], quick)
    rows = [Row("dispatch", "tensorflow (16): ut.add(x, y)", ours, public,
                "tf.math.add"),
            Row("dispatch", "tensorflow (16): ut.add(x, y) vs fast path", ours, path,
                "TFE_Py_FastPathExecute")]
    m = make("tensorflow", aligned(64).reshape(8, 8))
    tm = ut.asarray(m)
    for label, mine, theirs, route in (
            ("x + y", lambda: t + t, lambda: a + a, "a + a"),
            ("x + 1.0", lambda: t + 1.0, lambda: a + 1.0, "a + 1.0"),
            ("ut.sin(x)", lambda: ut.sin(t), lambda: tf.math.sin(a), "tf.math.sin"),
            ("ut.sum(x)", lambda: ut.sum(t), lambda: tf.math.reduce_sum(a),
             "tf.math.reduce_sum"),
            ("x[1:3]", lambda: t[1:3], lambda: a[1:3], "a[1:3]")):
        ours, native = side_by_side([mine, theirs], quick)
        rows.append(Row("dispatch", f"tensorflow (16): {label}", ours, native, route))
    ours, native = side_by_side([lambda: ut.matmul(tm, tm),
                                 lambda: tf.linalg.matmul(m, m)], quick)
    rows.append(Row("dispatch", "tensorflow (8x8): ut.matmul(x, y)", ours, native,
                    "tf.linalg.matmul"))
    return rows


def native_functions(quick: bool) -> list[Row]:
    """A framework's own function given a Tensor (unitensor/_native.py's hooks:
    torch's ``__torch_function__``, numpy's ``__array__``, TensorFlow's
    ``__tf_tensor__``) against the same function on the framework's own array,
    and against the explicit view (``t.torch()``), 16 float32 elements."""
    rows = []
    a = aligned(16)
    if "torch" in FRAMEWORKS:
        import torch
        b = torch.from_numpy(a.copy())
        t = ut.asarray(b)
        constant = torch.zeros(1)

        class Trivial:  # the protocol's own cost: a hook that computes nothing
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return constant
        trivial = Trivial()
        hooked, viewed, native, bare = side_by_side(
            [lambda: torch.sin(t), lambda: torch.sin(t.torch()),
             lambda: torch.sin(b), lambda: torch.sin(trivial)], quick)
        rows += [Row("native functions", "torch (16): torch.sin(t)", hooked, viewed,
                     "torch.sin(t.torch())", "__torch_function__ (in C for this "
                     "call): torch's own dispatch to a hook is most of it"),
                 Row("native functions", "torch (16): torch.sin(t), vs torch's own",
                     hooked, native, "torch.sin(a)"),
                 Row("native functions", "torch: torch.sin(o), o's hook returns a "
                     "constant", bare, native, "torch.sin(a)", "torch's dispatch to "
                     "any Python hook, no sin computed: the floor of the first row's "
                     "overhead")]
    t = ut.asarray(a)
    hooked, viewed, native = side_by_side(
        [lambda: np.sin(t), lambda: np.sin(t.numpy()), lambda: np.sin(a)], quick)
    rows += [Row("native functions", "numpy (16): np.sin(t)", hooked, native,
                 "np.sin(a)", "__array__"),
             Row("native functions", "numpy (16): np.sin(t.numpy())", viewed, native,
                 "np.sin(a)")]
    if "tensorflow" in FRAMEWORKS:
        import tensorflow as tf
        x = make("tensorflow", aligned(16))
        t = ut.asarray(x)
        hooked, viewed, native = side_by_side(
            [lambda: tf.sin(t), lambda: tf.sin(t.tf()), lambda: tf.sin(x)], quick)
        rows += [Row("native functions", "tensorflow (16): tf.sin(t)", hooked, native,
                     "tf.sin(a)", "__tf_tensor__: TF's Python fallback after its "
                     "C fast path declines a foreign object"),
                 Row("native functions", "tensorflow (16): tf.sin(t.tf())", viewed,
                     native, "tf.sin(a)")]
    if "jax" in FRAMEWORKS:
        import jax.numpy as jnp
        x = jnp.asarray(aligned(16))
        t = ut.asarray(x)
        viewed, native = side_by_side([lambda: jnp.sin(t.jax()), lambda: jnp.sin(x)],
                                      quick)
        rows.append(Row("native functions", "jax (16): jnp.sin(t.jax())", viewed,
                        native, "jnp.sin(a)", "jnp.sin(t) is refused by JAX"))
    return rows


def dask_rows(quick: bool) -> list[Row]:
    """dask-owned graphs against the same graph written in dask.array: the cost of
    building one operation's graph, and a whole computation end to end (building
    and computing, on the threaded scheduler) at 2 MiB chunks."""
    if importlib.util.find_spec("dask") is None:
        return []
    import dask.array as da
    small = da.ones((64, 64), chunks=32)
    t = ut.asarray(small)
    rows = []
    for case, ours, native, name in (
            ("ut.add(x, y)", lambda: ut.add(t, t), lambda: small + small, "x + y"),
            ("ut.sin(x)", lambda: ut.sin(t), lambda: da.sin(small), "da.sin(x)"),
            ("ut.sum(x, axis=0)", lambda: ut.sum(t, axis=0),
             lambda: small.sum(axis=0), "x.sum(axis=0)"),
            ("x[1:3]", lambda: t[1:3], lambda: small[1:3], "x[1:3]")):
        mine, theirs = side_by_side([ours, native], quick)
        rows.append(Row("dask", f"dask graph (4 chunks): {case}", mine, theirs, name))
    n = 2048 if quick else 4096  # float64: 32 or 128 MiB in chunks of 2 MiB
    data = np.random.default_rng(0).standard_normal((n, n))
    source = da.from_array(data, chunks=(256 if quick else 512, 1024 if quick
                                         else 512))

    def with_ut() -> float:
        x = ut.asarray(source)
        xp = x.__array_namespace__()
        z = (x - xp.mean(x, axis=0)) / xp.std(x, axis=0)
        return float(xp.sum(xp.abs(z) * xp.exp(-z * z)))

    def with_dask() -> float:
        z = (source - source.mean(axis=0)) / source.std(axis=0)
        return float((abs(z) * da.exp(-z * z)).sum().compute())

    times: dict[str, list[float]] = {"ut": [], "da": []}
    for i in range(4 if quick else 9):  # interleaved, alternating who goes first
        for key, run in (("ut", with_ut), ("da", with_dask))[::1 if i % 2 else -1]:
            start = time.perf_counter()
            run()
            times[key].append((time.perf_counter() - start) * 1e6)
    mib = n * n * 8 // 2**20
    rows.append(Row("dask", f"dask end to end ({mib} MiB, 2 MiB chunks): "
                    "standardise, exp, sum", statistics.median(times["ut"][1:]),
                    statistics.median(times["da"][1:]), "the same graph in dask.array"))
    return rows


RSS_SCRIPT = """
import resource, sys, numpy as np, unitensor as ut, warnings
warnings.simplefilter("error")
n = int(sys.argv[1]); dst = sys.argv[2]
if dst == "jax":
    import jax; jax.config.update("jax_enable_x64", True); import jax.dlpack
if dst == "torch":
    import torch
if dst == "tensorflow":
    import tensorflow
raw = np.ones(n + 8)
a = raw[(-raw.ctypes.data % 64) // 8:][:n]
def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) * 1024
ut.asarray(a[:8]).to(dst)  # warm up: the backend's own imports are not RSS
before = peak()
t = ut.asarray(a).to(dst)
print(peak() - before)
"""


def rss(quick: bool) -> list[Row]:
    n = (2**27) if not quick else (2**23)  # float64: 1 GiB, or 64 MiB in --quick
    rows = []
    for dst in FRAMEWORKS:
        out = subprocess.run([sys.executable, "-c", RSS_SCRIPT, str(n), dst],
                             capture_output=True, text=True)
        grown = int(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else -1
        rows.append(Row("memory", f"peak RSS growth, {n * 8 >> 20} MiB numpy -> {dst}",
                        None, None, "", f"{grown / 2**20:.2f} MiB" if grown >= 0
                        else f"failed: {out.stderr[-200:]}",
                        mib=grown / 2**20 if grown >= 0 else None))
    return rows


CLIENT_SCRIPT = """
import statistics, sys, time, numpy as np, torch, sklearn, unitensor as ut
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
n, reps = int(sys.argv[1]), int(sys.argv[2])
# one thread: what unitensor adds, not how the machine schedules torch's thread pool
# (on a shared 2-core machine that swings either side by 30 % from run to run)
torch.set_num_threads(1)
rng = np.random.default_rng(0)
x = torch.from_numpy(rng.standard_normal((n, 100)).astype(np.float32))
y = torch.from_numpy((rng.random(n) * 5).astype(np.int64))
cases = {
    "LDA fit + predict": lambda a, b: LinearDiscriminantAnalysis().fit(a, b).predict(a),
    "PCA(10) fit + transform":
        lambda a, b: PCA(n_components=10, svd_solver="full").fit(a).transform(a),
}
def timed(run, a, b):
    start = time.perf_counter()
    run(a, b)
    return (time.perf_counter() - start) * 1e6
with sklearn.config_context(array_api_dispatch=True):
    for name, run in cases.items():
        raw, ours = [], []
        for i in range(reps + 2):  # interleaved, alternating who goes first
            pair = [(raw, x, y), (ours, ut.asarray(x), ut.asarray(y))]
            for times, a, b in pair[::1 if i % 2 else -1]:
                times.append(timed(run, a, b))
        print(name, statistics.median(ours[2:]), statistics.median(raw[2:]))
"""

def clients(quick: bool) -> list[Row]:
    """scikit-learn (array_api_dispatch) on torch-owned Tensors against the same
    estimator on torch tensors: what unitensor costs a real client."""
    n, reps = (2000, 5) if quick else (20000, 9)
    env = {**os.environ, "SCIPY_ARRAY_API": "1"}  # read by scipy at its import
    out = subprocess.run([sys.executable, "-c", CLIENT_SCRIPT, str(n), str(reps)],
                         capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return [Row("clients", "scikit-learn on torch", None, None, "",
                    f"failed: {out.stderr[-200:]}")]
    rows = []
    for line in out.stdout.strip().splitlines():
        name, ours, raw = line.rsplit(" ", 2)
        rows.append(Row("clients", f"scikit-learn {name} (torch, {n}x100)",
                        float(ours), float(raw), "the estimator on torch tensors"))
    return rows


def import_time(quick: bool) -> list[Row]:
    code = ("import time, sys; s = time.perf_counter(); import unitensor; "
            "print(time.perf_counter() - s, ' '.join(m for m in ('torch', 'jax', "
            "'tensorflow', 'cupy') if m in sys.modules))")
    # one import first that may write the bytecode (a user's install has it;
    # PYTHONDONTWRITEBYTECODE would otherwise time the compiler on every import
    # of a file changed since its .pyc was written)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", "import unitensor"], env=env, check=True)
    samples, loaded = [], ""
    for _ in range(3 if quick else 11):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                             text=True, check=True).stdout.split()
        samples.append(float(out[0]) * 1e6)
        loaded = " ".join(out[1:])
    return [Row("import", "import unitensor", statistics.median(samples), None, "",
                f"frameworks imported: {loaded or 'none'}")]


# (row case, limit, description). The limit: µs; "native" (no slower than the
# native route); a ratio "1.15x" of it; "/3" (3x faster than it); "+0.3" (µs over
# it); "compat" (an overhead below array-api-compat's); "2 MiB" (of RSS growth).
TARGETS = [
    ("16 elements: ut.asarray(numpy)", 0.3, "ut.asarray(numpy array) <= 0.3 µs"),
    ("16 elements: ut.asarray(torch)", 0.3, "ut.asarray(torch tensor) <= 0.3 µs"),
    ("16 elements: ut.asarray(torch).numpy()", "native",
     "no slower than t.numpy()"),
    ("16 elements: ut.asarray(numpy).torch()", "native",
     "no slower than torch.from_numpy(a)"),
    ("16 elements: ut.asarray(torch).numpy() vs DLPack", "/3",
     "3x faster than np.from_dlpack(t)"),
    ("16 elements: ut.asarray(numpy).torch() vs DLPack", "/3",
     "3x faster than torch.from_dlpack(a)"),
    ("16 elements: ut.asarray(numpy).tf()", 1.0, ".tf() <= 1 µs"),
    ("16 elements: ut.asarray(numpy).jax()", 10.0, ".jax() <= 10 µs"),
    ("16 elements: cached second .torch()", 0.1, "cached .torch() <= 0.1 µs"),
    ("torch (16): ut.add(x, y)", "1.15x", "ut.add on torch (16) <= 1.15x torch.add"),
    ("numpy (16): ut.add(x, y)", "1.5x", "ut.add on numpy (16) <= 1.5x np.add"),
    ("torch (16): ut.add(x, y)", "compat", "ut.add on torch below array-api-compat"),
    ("numpy (16): ut.add(x, y)", "compat",
     "ut.add on numpy below array-api-compat (whose add is np.add itself)"),
    ("torch (4M): ut.add(x, y)", "1.03x", "4M elements: within 1.03x of torch"),
    ("numpy (4M): ut.add(x, y)", "1.03x", "4M elements: within 1.03x of numpy"),
    ("jax (4M): ut.add(x, y)", "1.03x", "4M elements: within 1.03x of jax"),
    ("tensorflow (16): ut.add(x, y)", "1.0x",
     "ut.add on tensorflow (16) <= tf.math.add"),
    ("tensorflow (16): ut.add(x, y) vs fast path", "+1",
     "ut.add on tensorflow (16): within 1 µs of TFE_Py_FastPathExecute"),
    ("torch (16): torch.sin(t)", "+0.3",
     "torch.sin(t) within 0.3 µs of torch.sin(t.torch())"),
    ("import unitensor", 30_000.0, "import unitensor < 30 ms"),
] + [(f"tvm-ffi per argument: ut.Tensor over {f}", "1.2x",
      f"tvm-ffi takes a {f}-owned Tensor within 1.2x of a torch tensor")
     for f in FRAMEWORKS] + [
    ("dask end to end (128 MiB, 2 MiB chunks): standardise, exp, sum", "1.05x",
     "a dask-owned computation within 1.05x of dask.array end to end"),
    ("scikit-learn LDA fit + predict (torch, 20000x100)", "1.1x",
     "scikit-learn LDA on torch-owned data within 1.1x of raw torch"),
    ("scikit-learn PCA(10) fit + transform (torch, 20000x100)", "1.1x",
     "scikit-learn PCA on torch-owned data within 1.1x of raw torch"),
] + [(f"{f} (16): {call}", "+0.3", f"{call} on {f} (16): at most 0.3 µs over native")
     for f in ("numpy", "torch", "jax") for call in (
         "x + y", "ut.add(x, y)", "ut.sin(x)", "ut.sum(x)", "x[1:3]")] + [
    (f"{f} (8x8): ut.matmul(x, y)", "+0.3",
     f"ut.matmul on {f} (8x8): at most 0.3 µs over native")
    for f in ("numpy", "torch", "jax")] + [
    (f"peak RSS growth, 1024 MiB numpy -> {f}", "2 MiB",
     f"1 GiB numpy -> {f}: under 2 MiB RSS growth") for f in FRAMEWORKS]


EXCHANGE_ARGS = 8  # arguments per call: the per-argument cost is the call's
# cost over an empty call's, divided by this


def exchange_rows(quick: bool) -> list[Row]:
    """A real consumer of the DLPack C exchange API, tvm-ffi, passing unitensor
    Tensors over each owner's memory against torch tensors (which publish the
    API themselves): per argument, the call's cost over an empty call's."""
    if importlib.util.find_spec("tvm_ffi") is None or "torch" not in FRAMEWORKS:
        return [Row("exchange", "tvm-ffi per argument", None, None, "",
                    "not measured: needs apache-tvm-ffi and torch")]
    import torch
    import tvm_ffi

    nop = tvm_ffi.get_global_func("testing.nop")
    base = aligned(16)
    native = [torch.from_numpy(base.copy()) for _ in range(EXCHANGE_ARGS)]
    owners = [f for f in FRAMEWORKS if f != "torch"] + ["torch"]
    args = {owner: [ut.asarray(make(owner, base.copy()))
                    for _ in range(EXCHANGE_ARGS)] for owner in owners}
    for owner in owners:
        nop(*args[owner])  # the Buffer each Tensor keeps is made at its first crossing
    fns = [nop, lambda: nop(*native)] + [
        (lambda a=a: nop(*a)) for a in args.values()]
    empty, torch_us, *ours = side_by_side(fns, quick)
    theirs = (torch_us - empty) / EXCHANGE_ARGS
    return [Row("exchange", f"tvm-ffi per argument: ut.Tensor over {owner}",
                (us - empty) / EXCHANGE_ARGS, theirs,
                "torch.Tensor (torch's own C exchange API)",
                "no __dlpack__ call; read-only flag set" if owner in
                ("jax", "tensorflow") else "no __dlpack__ call")
            for owner, us in zip(owners, ours, strict=True)]


def verdicts(rows: list[Row]) -> list[tuple[str, str, str]]:
    by_case = {r.case: r for r in rows}
    out = []
    for case, limit, text in TARGETS:
        row = by_case.get(case)
        if limit == "2 MiB" and row is not None and row.mib is not None:
            met = row.mib < 2.0
            out.append((text, f"{row.mib:.2f} MiB", "met" if met else "not met"))
            continue
        if row is None or row.unitensor_us is None:
            out.append((text, "not measured", ""))
            continue
        if limit == "native":
            bound = row.native_us
        elif limit == "compat":
            if row.compat_us is None or row.native_us is None:
                out.append((text, "not measured", ""))
                continue
            # overheads over the native call: ours against array-api-compat's
            bound = row.native_us + max(row.compat_us - row.native_us, 0.0)
        elif limit == "/3":
            bound = row.native_us / 3
        elif limit in ("+0.3", "+1"):
            bound = row.native_us + float(limit)
        elif isinstance(limit, str):
            bound = row.native_us * float(limit.rstrip("x"))
        else:
            bound = limit
        met = row.unitensor_us <= bound
        gap = "" if met else f"{row.unitensor_us - bound:+.2f} µs over"
        out.append((text, f"{row.unitensor_us:.2f} µs vs {bound:.2f} µs",
                    "met" if met else f"not met ({gap})"))
    return out


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor())
    versions = [f"numpy {np.__version__}"]
    versions.extend(f"{name} {__import__(name).__version__}"
                    for name in FRAMEWORKS[1:])
    return (f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{', '.join(versions)}; {datetime.date.today()}")


def markdown(rows: list[Row], quick: bool) -> str:
    lines = ["# Performance", "",
             "Generated by `python -m benchmarks.run"
             + (" --quick" if quick else "") + " --write docs/performance.md`.", "",
             f"Machine: {machine()}.", "",
             "Per-call medians in µs; the ratio is unitensor / the native route in "
             "the same run.", "", "## Targets", "", "| target | measured | verdict |",
             "| --- | --- | --- |"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in verdicts(rows)]
    for section in dict.fromkeys(r.section for r in rows):
        lines += ["", f"## {section.capitalize()}", "",
                  "| case | unitensor µs | native µs | ratio | native route | "
                  "array-api-compat µs | note |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for r in rows:
            if r.section == section:
                ours = "-" if r.unitensor_us is None else f"{r.unitensor_us:.2f}"
                theirs = "-" if r.native_us is None else f"{r.native_us:.2f}"
                compat = "-" if r.compat_us is None else f"{r.compat_us:.2f}"
                lines.append(f"| {r.case} | {ours} | {theirs} | {r.ratio} | "
                             f"{r.native or '-'} | {compat} | {r.note or '-'} |")
    lines += ["", "## Where the gaps come from", "", *GAPS]
    return "\n".join(lines) + "\n"


GAPS = [
    "- `ut.asarray(x).numpy()` / `.torch()` / `.tf()` make a new Tensor every call "
    "(~0.15 µs with the type, dtype and, for torch, layout checks; ~0.25 µs for "
    "torch), take the route and record the view in the Tensor's cache (the first "
    "view in the Tensor itself: an Aliases record and its dict would cost ~0.15 µs "
    "more). The bare framework call does none of that; a second call on the same "
    "Tensor is the cached row.",
    "- torch -> numpy is one C call (ext/_core.c `exchange_host_view`): torch's "
    "DLPack C exchange import (~0.19 µs), an array made by numpy's C API over the "
    "Buffer (`ndarray_view`, ~0.07 µs; numpy's buffer-protocol import took 0.2 µs) "
    "and the checks the exchange does not make, `is_neg()`, `requires_grad` and, "
    "for complex data, `is_conj()` (~0.05-0.1 µs each through torch's Python "
    "bindings). The route alone is ~0.7x `Tensor.numpy()`; the Tensor and its "
    "cache make the rest.",
    "- numpy -> torch is one C call (`exchange_from_ndarray`): the checks "
    "`torch.from_numpy` and unitensor make, read from the array by numpy's C API, "
    "and torch's DLPack C exchange import of a managed tensor holding the array "
    "(~0.75x `torch.from_numpy`, which parses its argument and wraps the array "
    "through its own Python binding). The Tensor and the view path make the rest, "
    "and read no dict: the view path keeps the route and asarray the row of the "
    "array's type (their dicts are `Watched`), the route is bound by "
    "`_core.bound`, the export kept for the next. In callgrind instructions a "
    "call, the whole conversion and its tensor's free come to 5,560-5,630 "
    "against `torch.from_numpy`'s 5,530-5,620 (6,273 before these changes). In time "
    "the rows are within a few percent of each other either way: a change that "
    "executes no fewer instructions moves this row by up to 10% when it moves the "
    "code of the C extensions, so the ratio is this build's.",
    "- torch -> numpy asks whether the tensor's memory was lent read-only (a Python "
    "call) only while some memory was (`_dlpack.LENT_READ_ONLY`); its remaining "
    "checks, `is_neg()` and `requires_grad`, cost ~0.1-0.2 µs each through torch's "
    "Python bindings.",
    "- jax and tensorflow -> numpy and torch, and jax -> tensorflow: the source's "
    "export (read-only; "
    "JAX's is jaxlib's own, without `__dlpack__`'s ~5 µs of Python, which the "
    "native jax rows pay) viewed by numpy's C API or handed to torch's C exchange "
    "import. torch's tensor is recorded as lent read-only, so that memory stays "
    "read-only when it comes back: the memory's address is counted in C and the "
    "export's deleter takes the count back when torch frees the storage (no call "
    "into torch's Python). TF's legacy capsule costs the same in both columns; "
    "the Buffer over it, the record and the Tensor make the TF rows' gap. TF reads "
    "torch's memory through torch's C exchange import and its own C++ import, "
    "without `__dlpack__`'s Python.",
    "- 3x faster than `np.from_dlpack(t)` / `torch.from_dlpack(a)` would be below "
    "the cost of making the framework's array object at all (`torch.from_numpy` "
    "alone is more than a third of `torch.from_dlpack`).",
    "- `.tf()`: TensorFlow's own `TFE_FromDlpackCapsule` takes most of it; the "
    "capsule made in C over the numpy array (no Buffer), the eager context's "
    "handle read and TF's import called in one C call (`_core.ndarray_import`).",
    "- array-api-compat's numpy `add` is `np.add` itself: no overhead is below none.",
    "- The 4M-element rows are memory-bound: on this VM the same call compared with "
    "itself varies by about 3% from run to run.",
]


# The sections in the order they print; ``--only NAME`` runs some of them
# (``--only conversion --only warp``: the conversion rows, for a quick A/B).
SECTIONS: dict[str, Callable[[bool], list[Row]]] = {
    "conversion": conversions, "warp": warp_conversions, "dispatch": dispatch,
    "rss": rss, "native": native_functions, "clients": clients,
    "import": import_time, "dask": dask_rows, "exchange": exchange_rows,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the short CI mode")
    parser.add_argument("--write", metavar="PATH", help="write the markdown table")
    parser.add_argument("--only", choices=sorted(SECTIONS), action="append",
                        help="run only these sections (repeatable); all by default")
    args = parser.parse_args(argv)
    if "jax" in FRAMEWORKS:
        import jax
        jax.config.update("jax_enable_x64", True)
    rows = [row for name, section in SECTIONS.items()
            if not args.only or name in args.only for row in section(args.quick)]
    text = markdown(rows, args.quick)
    print(text)
    if args.write:
        with open(args.write, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
