"""ut.wrap against the frameworks' own calls: #14's benchmark rows, ratios in one run.

    python -m benchmarks.wrap [--quick] [--rows small,large,tf]

Every row times a bridged call next to its reference, their batches interleaved
(``benchmarks.run.side_by_side``: medians of per-call times over many rounds, the
order alternating), in one process, so that the ratio compares like with like on a
loaded machine. The rows:

- the call overhead on a small call (three float32 arrays of 16 elements), eager
  and under ``jax.jit``, against the body called natively, against
  ``jax.pure_callback`` (JAX's own way to call torch under jit) and, where it is
  installed, torch2jax (``pip install wrap-torch2jax``, the ``bench`` extra; it
  builds a C++ extension on first use, about 40 s here);
- large arrays (10^6 and 10^7 float32 elements): the bridged call against the body
  run natively in its own framework, and under ``jax.jit`` against torch2jax
  (which, like every callback under jit, writes the result into XLA's buffer);
- backward: a torch caller's forward + backward through a JAX body against the
  same function written in torch (and against ``jax.vjp`` of the JAX body);
- TensorFlow pairs: a TF caller against the body written in TF, a TF body against
  it called natively in TF.
- #34 (``--rows training,like``): a torch caller's forward + backward through a
  ``jax.jit`` body against the floor made of its parts (a no-op
  ``autograd.Function``, the jitted vjp and pullback natively, the frameworks' own
  DLPack hand-overs), target 1.2x; 100 torch Adam steps over a jitted JAX loss
  against the same loop over a Warp-taped loss (where Warp is installed), target
  1.5x; ``jax.jit`` of a torch body against torch2jax at 16 elements (target 1x)
  and at 10^6 and 10^7 (1.05x), and eager calls against each framework's own
  DLPack route (1.05x).

Targets (#14): the jit row at most 25 µs; the large-array rows at most 1.2x the
body run natively. A target is reported as met or not met from this run's figures;
nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.dlpack
import jax.numpy as jnp
import numpy as np
import torch

import unitensor as ut

from .run import side_by_side

SMALL = 16
LARGE = (10**6, 10**7)
THREADS = 0  # intra-op threads (--threads); 0: the frameworks' defaults


@dataclass
class Row:
    case: str
    us: float
    reference: str
    ref_us: float
    target_us: float | None = None  # at most this many µs
    target_ratio: float | None = None  # at most this many times the reference

    @property
    def ratio(self) -> float:
        return self.us / self.ref_us

    @property
    def target(self) -> str:
        if self.target_us is not None:
            met = self.us <= self.target_us
            return f"≤ {self.target_us:g} µs: {'met' if met else 'not met'}"
        if self.target_ratio is not None:
            met = self.ratio <= self.target_ratio
            return f"≤ {self.target_ratio:g}x: {'met' if met else 'not met'}"
        return ""


def pair(case: str, f: Callable[[], object], reference: str, g: Callable[[], object],
         quick: bool, **target: float) -> Row:
    us, ref_us = side_by_side([f, g], quick)
    return Row(case, us, reference, ref_us, **target)


def body(a, b, c):  # the same text is a torch, a jax and a TensorFlow body
    return a * b + c


def inputs(n: int) -> tuple[tuple[torch.Tensor, ...], tuple[jax.Array, ...]]:
    ts = tuple(torch.arange(n, dtype=torch.float32) / n + i for i in range(3))
    js = tuple(jnp.arange(n, dtype=jnp.float32) / n + i for i in range(3))
    return ts, js


def torch2jax_jit(n: int) -> Callable[..., jax.Array] | None:
    """``jax.jit`` of torch2jax's wrapping of the torch body for three arrays of
    ``n`` float32 elements, or None where torch2jax is not installed.
    """
    if importlib.util.find_spec("wrap_torch2jax") is None:
        return None
    from wrap_torch2jax import torch2jax

    example = torch.ones(n)
    return jax.jit(torch2jax(body, example, example, example,
                             output_shapes=jax.ShapeDtypeStruct((n,), jnp.float32)))


def small_rows(quick: bool) -> list[Row]:
    (ta, tb, tc), (ja, jb, jc) = inputs(SMALL)
    jit_body = jax.jit(body)
    from_torch = ut.wrap("torch", "jax")(body)
    from_torch_jit = ut.wrap("torch", "jax")(jit_body)
    from_jax = ut.wrap("jax", "torch")(body)

    def pure_callback(a, b, c):  # JAX's own way to call torch under jit (copies)
        def host(a, b, c):
            return body(*map(torch.from_dlpack, (a, b, c))).numpy()
        return jax.pure_callback(host, jax.ShapeDtypeStruct((SMALL,), jnp.float32),
                                 a, b, c)

    jit_bridged = jax.jit(from_jax)
    jit_callback = jax.jit(pure_callback)
    loss = ut.wrap("jax", "torch")(lambda a, b, c: body(a, b, c).sum())
    jit_grad = jax.jit(jax.grad(loss))
    tg = ta.clone().requires_grad_()

    def torch_fwd_bwd():
        body(tg, tb, tc).sum().backward()

    def bridged_fwd_bwd():
        from_torch_jit(tg, tb, tc).sum().backward()

    def jax_vjp():  # with respect to a, as torch asks the bridge
        out, pull = jax.vjp(lambda a: jit_body(a, jb, jc), ja)
        pull(jnp.ones_like(out))

    rows = [
        pair("torch → jax body, eager", lambda: from_torch(ta, tb, tc),
             "the jax body natively (eager)", lambda: body(ja, jb, jc), quick),
        pair("torch → jax.jit body", lambda: from_torch_jit(ta, tb, tc),
             "the jax.jit body natively", lambda: jit_body(ja, jb, jc), quick),
        pair("jax → torch body, eager", lambda: from_jax(ja, jb, jc),
             "the torch body natively", lambda: body(ta, tb, tc), quick),
        pair("jax.jit(jax → torch body)",
             lambda: jit_bridged(ja, jb, jc).block_until_ready(),
             "jax.jit(jax.pure_callback of the torch body)",
             lambda: jit_callback(ja, jb, jc).block_until_ready(), quick,
             target_us=25.0),
        pair("torch → jax.jit body, forward + backward", bridged_fwd_bwd,
             "the same function in torch, forward + backward", torch_fwd_bwd, quick),
        pair("torch → jax.jit body, forward + backward", bridged_fwd_bwd,
             "jax.vjp of the jax body, forward + pullback", jax_vjp, quick),
        pair("jax.jit(jax.grad(jax → torch body))",
             lambda: jit_grad(ja, jb, jc).block_until_ready(),
             "torch forward + backward natively", torch_fwd_bwd, quick),
    ]
    return rows + torch2jax_rows(SMALL, jit_bridged, (ja, jb, jc), quick)


def torch2jax_rows(n: int, jit_bridged: Callable[..., jax.Array],
                   js: tuple[jax.Array, ...], quick: bool) -> list[Row]:
    """The ``jax.jit`` row against torch2jax, where it is installed."""
    reference = torch2jax_jit(n)
    if reference is None:
        return []
    size = "" if n == SMALL else f" (10^{len(str(n)) - 1})"
    return [pair(f"jax.jit(jax → torch body){size}",
                 lambda: jit_bridged(*js).block_until_ready(),
                 "jax.jit(torch2jax of the torch body)",
                 lambda: reference(*js).block_until_ready(), quick)]


def large_rows(n: int, quick: bool) -> list[Row]:
    (ta, tb, tc), (ja, jb, jc) = inputs(n)
    jit_body = jax.jit(body)
    from_torch = ut.wrap("torch", "jax")(body)
    from_torch_jit = ut.wrap("torch", "jax")(jit_body)
    from_jax = ut.wrap("jax", "torch")(body)
    jit_bridged = jax.jit(from_jax)
    size = f"10^{len(str(n)) - 1}"

    def torch_route():  # what a jax caller writes without unitensor: DLPack both ways
        views = (torch.from_dlpack(x) for x in (ja, jb, jc))
        return jax.dlpack.from_dlpack(body(*views))

    rows = [
        pair(f"jax → torch body, eager ({size})", lambda: from_jax(ja, jb, jc),
             "the torch body natively", lambda: body(ta, tb, tc), quick,
             target_ratio=1.2),
        # the native reference is the allocator's best case (the same two blocks
        # reused in turn); any call that also makes the other framework's small
        # objects moves the 4 MB blocks around the heap (docs/wrap.md): this row
        # compares the bridge with the route that has the same allocations
        pair(f"jax → torch body, eager ({size})", lambda: from_jax(ja, jb, jc),
             "torch's own route (from_dlpack in, jax.dlpack out)", torch_route,
             quick),
        pair(f"jax.jit(jax → torch body) ({size})",
             lambda: jit_bridged(ja, jb, jc).block_until_ready(),
             "the torch body natively", lambda: body(ta, tb, tc), quick,
             target_ratio=1.2),
        pair(f"torch → jax body, eager ({size})",
             lambda: from_torch(ta, tb, tc).numpy(),
             "the jax body natively (eager)",
             lambda: body(ja, jb, jc).block_until_ready(), quick,
             target_ratio=1.2),
        pair(f"torch → jax.jit body ({size})",
             lambda: from_torch_jit(ta, tb, tc).numpy(),
             "the jax.jit body natively",
             lambda: jit_body(ja, jb, jc).block_until_ready(), quick,
             target_ratio=1.2),
    ]
    return rows + torch2jax_rows(n, jit_bridged, (ja, jb, jc), quick)


def tf_rows(quick: bool) -> list[Row]:
    import tensorflow as tf

    if THREADS:
        tf.config.threading.set_intra_op_parallelism_threads(THREADS)
    (ta, tb, tc), (ja, jb, jc) = inputs(SMALL)
    fa, fb, fc = (tf.constant(t.numpy()) for t in (ta, tb, tc))
    tf_to_torch = ut.wrap("tensorflow", "torch")(body)
    tf_to_jax = ut.wrap("tensorflow", "jax")(body)
    torch_to_tf = ut.wrap("torch", "tensorflow")(body)
    jax_to_tf = ut.wrap("jax", "tensorflow")(body)
    graph_bridged = tf.function(tf_to_torch)
    graph_native = tf.function(body)
    jit_jax_to_tf = jax.jit(jax_to_tf)

    def taped(f):
        def run():
            with tf.GradientTape() as tape:
                tape.watch(fa)
                y = tf.reduce_sum(f(fa, fb, fc))
            return tape.gradient(y, fa)
        return run

    native = "the body in TF, eager"
    return [
        pair("tf → torch body, eager", lambda: tf_to_torch(fa, fb, fc),
             native, lambda: body(fa, fb, fc), quick),
        pair("tf → jax body, eager", lambda: tf_to_jax(fa, fb, fc),
             native, lambda: body(fa, fb, fc), quick),
        pair("tf → torch body, GradientTape forward + gradient", taped(tf_to_torch),
             "the body in TF, the same", taped(body), quick),
        pair("tf.function(tf → torch body)", lambda: graph_bridged(fa, fb, fc),
             "tf.function(the body in TF)", lambda: graph_native(fa, fb, fc), quick),
        pair("torch → tf body, eager", lambda: torch_to_tf(ta, tb, tc),
             "the tf body natively", lambda: body(fa, fb, fc), quick),
        pair("jax → tf body, eager", lambda: jax_to_tf(ja, jb, jc),
             "the tf body natively", lambda: body(fa, fb, fc), quick),
        pair("jax.jit(jax → tf body)",
             lambda: jit_jax_to_tf(ja, jb, jc).block_until_ready(),
             "the tf body natively", lambda: body(fa, fb, fc), quick),
    ]


# -- #34: training loops, torch2jax, the frameworks' own DLPack routes ---------------
def training_rows(quick: bool) -> list[Row]:
    """A torch caller's forward + backward through a ``jax.jit`` body against the
    floor made of its parts, measured in the same run (a torch
    ``autograd.Function`` that does nothing, forward + backward; the jitted
    forward with ``jax.vjp`` and its pullback called natively; the hand-overs
    the call makes, each by the frameworks' own DLPack: three inputs and a
    cotangent to jax, the output and a gradient to torch); and a 100-step torch
    Adam loop over a jitted JAX loss against the same loop over a Warp-taped
    loss (a ``wp.kernel`` under ``wp.Tape``, ``wp.from_torch``), where Warp is
    installed.
    """
    (ta, tb, tc), (ja, jb, jc) = inputs(SMALL)
    from_torch_jit = ut.wrap("torch", "jax")(jax.jit(body))
    tg = ta.clone().requires_grad_()

    def bridged_fwd_bwd():
        from_torch_jit(tg, tb, tc).sum().backward()

    class Nothing(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, c):
            return torch.empty_like(a)

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    def nothing_fwd_bwd():
        Nothing.apply(tg, tb, tc).sum().backward()

    @jax.jit
    def forward(a, b, c):
        return jax.vjp(lambda a: body(a, b, c), a)

    pullback = jax.jit(lambda vjp, ct: vjp(ct))
    ones = jnp.ones(SMALL, jnp.float32)

    def jax_fwd_pull():
        _, vjp = forward(ja, jb, jc)
        return pullback(vjp, ones)

    def to_jax():
        return jax.dlpack.from_dlpack(ta)

    def to_torch():
        return torch.from_dlpack(ja)

    us, nothing, native, t2j, j2t = side_by_side(
        [bridged_fwd_bwd, nothing_fwd_bwd, jax_fwd_pull, to_jax, to_torch], quick)
    floor = nothing + native + 4 * t2j + 2 * j2t
    rows = [Row("torch → jax.jit body, forward + backward", us,
                f"floor: no-op autograd.Function {nothing:.1f} + jitted vjp and "
                f"pullback natively {native:.1f} + 4 x {t2j:.1f} to jax + "
                f"2 x {j2t:.1f} to torch", floor, target_ratio=1.2)]
    return rows + adam_rows(quick)


def adam_rows(quick: bool) -> list[Row]:
    """100 torch Adam steps over a jitted JAX loss (bridged) against the same
    loop over a Warp-taped loss (Warp's CPU backend), where Warp is installed.
    """
    if importlib.util.find_spec("warp") is None:
        return []
    import warp as wp

    wp.config.quiet = True
    wp.init()
    n, steps = 1024, 100
    target = torch.linspace(0.5, 2.0, n)

    @wp.kernel
    def squared_error(x: wp.array(dtype=float), t: wp.array(dtype=float),  # type: ignore[valid-type]
                      loss: wp.array(dtype=float)):  # type: ignore[valid-type]
        i = wp.tid()
        d = x[i] * x[i] - t[i]
        wp.atomic_add(loss, 0, d * d)

    loss_jax = ut.wrap("torch", "jax")(jax.jit(lambda x, t: jnp.sum((x * x - t) ** 2)))

    def jax_loop():
        x = torch.ones(n, requires_grad=True)
        opt = torch.optim.Adam([x], lr=0.01)
        for _ in range(steps):
            opt.zero_grad()
            loss_jax(x, target).backward()
            opt.step()
        return x

    wt = wp.from_torch(target)

    def warp_loop():  # Warp's documented route: from_torch, a Tape
        x = torch.ones(n, requires_grad=True)
        x.grad = torch.zeros_like(x)
        wx = wp.from_torch(x)  # (its grad aliases x.grad)
        opt = torch.optim.Adam([x], lr=0.01)
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        tape = wp.Tape()
        for _ in range(steps):
            loss.zero_()
            with tape:
                wp.launch(squared_error, dim=n, inputs=[wx, wt], outputs=[loss])
            tape.backward(loss)
            opt.step()
            tape.reset()  # the gradients zeroed, the launches forgotten
        return x

    value_and_grad = jax.jit(jax.value_and_grad(
        lambda x, t: jnp.sum((x * x - t) ** 2)))

    def by_hand():  # no bridge: jax views of torch memory, gradients by DLPack
        x = torch.ones(n, requires_grad=True)
        opt = torch.optim.Adam([x], lr=0.01)
        xj, tj = jax.dlpack.from_dlpack(x.detach()), jax.dlpack.from_dlpack(target)
        for _ in range(steps):
            opt.zero_grad()
            value, grad = value_and_grad(xj, tj)  # (xj aliases x: Adam's steps)
            x.grad = torch.from_dlpack(grad)
            float(torch.from_dlpack(value))
            opt.step()
        return x

    # the same optimum reached every way: the loops compute the same thing
    torch.testing.assert_close(jax_loop(), warp_loop(), rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(by_hand(), warp_loop(), rtol=1e-4, atol=1e-5)
    bridged, warp, hand = side_by_side([jax_loop, warp_loop, by_hand], quick)
    case = f"torch Adam, {steps} steps over a jax.jit loss (bridged, {n} elements)"
    return [Row(case, bridged, "the same loop over a Warp-taped loss (wp.from_torch, "
                "wp.Tape)", warp, target_ratio=1.5),
            Row("the same loop written by hand (jax.dlpack views, jax.value_and_grad,"
                " torch.from_dlpack)", hand, "the Warp-taped loop", warp),
            Row(case, bridged, "the loop written by hand", hand)]


def torch2jax_small_rows(quick: bool) -> list[Row]:
    """``jax.jit`` of a jax caller of a torch body (16 elements) against
    torch2jax's compiled custom call, same run, where it is installed.
    """
    reference = torch2jax_jit(SMALL)
    if reference is None:
        return []
    _, js = inputs(SMALL)
    jit_bridged = jax.jit(ut.wrap("jax", "torch")(body))
    return [pair("jax.jit(jax → torch body)",
                 lambda: jit_bridged(*js).block_until_ready(),
                 "jax.jit(torch2jax of the torch body)",
                 lambda: reference(*js).block_until_ready(), quick, target_ratio=1.0)]


def dlpack_rows(n: int, quick: bool) -> list[Row]:
    """Large arrays against like-for-like references: eagerly, each framework's
    own DLPack route (the caller's arrays in, the body's result out); under
    ``jax.jit``, torch2jax (which also writes into XLA's buffers).
    """
    (ta, tb, tc), (ja, jb, jc) = inputs(n)
    from_jax = ut.wrap("jax", "torch")(body)
    from_torch = ut.wrap("torch", "jax")(body)
    size = f"10^{len(str(n)) - 1}"

    def torch_route():  # a jax caller of a torch body, by DLPack both ways
        views = (torch.from_dlpack(x) for x in (ja, jb, jc))
        return jax.dlpack.from_dlpack(body(*views))

    def jax_route():  # a torch caller of a jax body, by DLPack both ways
        views = (jax.dlpack.from_dlpack(t) for t in (ta, tb, tc))
        return torch.from_dlpack(body(*views))

    rows = [
        pair(f"jax → torch body, eager ({size})", lambda: from_jax(ja, jb, jc),
             "torch's own DLPack route", torch_route, quick, target_ratio=1.05),
        pair(f"torch → jax body, eager ({size})", lambda: from_torch(ta, tb, tc),
             "jax's own DLPack route", jax_route, quick, target_ratio=1.05),
    ]
    reference = torch2jax_jit(n)
    if reference is not None:
        jit_bridged = jax.jit(from_jax)
        rows.append(pair(f"jax.jit(jax → torch body) ({size})",
                         lambda: jit_bridged(ja, jb, jc).block_until_ready(),
                         "jax.jit(torch2jax of the torch body)",
                         lambda: reference(ja, jb, jc).block_until_ready(), quick,
                         target_ratio=1.05))
    return rows


def warp_rows(quick: bool) -> list[Row]:
    """A Warp kernel as the body (16 float32 elements, CPU) against Warp's own
    routes: ``wp.from_torch`` + ``wp.Tape`` in an ``autograd.Function`` for a
    torch caller, ``wp.jax_kernel`` for a jax caller (#34: within 1.2x).
    """
    if importlib.util.find_spec("warp") is None:
        return []
    import warp as wp

    from . import warp_kernels as wk
    wk.load()
    x = torch.arange(SMALL, dtype=torch.float32) / SMALL
    xg = x.clone().requires_grad_()
    j = jnp.asarray(x.numpy())
    from_torch = ut.wrap("torch", "warp")(wk.cube_body)
    from_jax = ut.wrap("jax", "warp")(wk.cube_body)
    reference = wp.jax_kernel(wk.cube, enable_backward=True)
    jit_ours, jit_ref = jax.jit(from_jax), jax.jit(lambda a: reference(a)[0])
    grad_ours = jax.jit(jax.grad(lambda a: from_jax(a).sum()))
    grad_ref = jax.jit(jax.grad(lambda a: reference(a)[0].sum()))
    target = {"target_ratio": 1.2}
    return [
        pair("torch → warp body, forward", lambda: from_torch(x),
             "wp.from_torch + launch + wp.to_torch (autograd.Function)",
             lambda: wk.TapedCube.apply(x), quick, **target),
        pair("torch → warp body, forward + backward",
             lambda: from_torch(xg).sum().backward(),
             "wp.from_torch + wp.Tape (autograd.Function), the same",
             lambda: wk.TapedCube.apply(xg).sum().backward(), quick, **target),
        pair("jax.jit(jax → warp body)", lambda: jit_ours(j).block_until_ready(),
             "jax.jit(wp.jax_kernel)", lambda: jit_ref(j).block_until_ready(),
             quick, **target),
        pair("jax.jit(jax.grad(jax → warp body))",
             lambda: grad_ours(j).block_until_ready(),
             "jax.jit(jax.grad(wp.jax_kernel(enable_backward=True)))",
             lambda: grad_ref(j).block_until_ready(), quick, **target),
    ]


def warp_kernel_rows(quick: bool) -> list[Row]:
    """A bare Warp kernel as the body (``ut.wrap(..., "warp")(kernel)``, 16
    float32 elements, CPU) against Warp's own routes to that kernel:
    ``wp.from_torch`` + ``wp.launch`` (and its adjoint launch in an
    ``autograd.Function``) for a torch caller, ``wp.jax_kernel`` under
    ``jax.jit`` for a jax caller (#34: within 1.2x).
    """
    if importlib.util.find_spec("warp") is None:
        return []
    import warp as wp

    from . import warp_kernels as wk
    wk.load()
    x = torch.arange(SMALL, dtype=torch.float32) / SMALL
    xg = x.clone().requires_grad_()
    j = jnp.asarray(x.numpy())
    from_torch = ut.wrap("torch", "warp")(wk.cube)
    from_jax = ut.wrap("jax", "warp")(wk.cube)
    reference = wp.jax_kernel(wk.cube)
    differentiable = wp.jax_kernel(wk.cube, enable_backward=True)
    jit_ours, jit_ref = jax.jit(from_jax), jax.jit(lambda a: reference(a)[0])
    grad_ours = jax.jit(jax.grad(lambda a: from_jax(a).sum()))
    grad_ref = jax.jit(jax.grad(lambda a: differentiable(a)[0].sum()))
    # a batch of 8 items: Warp's own vmap launches once over the items laid end
    # to end (right for an elementwise kernel as this one, not for one that
    # reads or adds across its items); the bridge launches once per item
    batch = jnp.stack([j * (k + 1) for k in range(8)])
    vmap_ours = jax.jit(jax.vmap(from_jax))
    vmap_ref = jax.jit(jax.vmap(lambda a: reference(a)[0]))
    target = {"target_ratio": 1.2}
    return [
        pair("torch → warp kernel, forward", lambda: from_torch(x),
             "wp.from_torch + wp.launch", lambda: wk.launched_cube(x), quick,
             **target),
        pair("torch → warp kernel, forward + backward",
             lambda: from_torch(xg).sum().backward(),
             "wp.from_torch + wp.launch, adjoint launch (autograd.Function)",
             lambda: wk.LaunchedCube.apply(xg).sum().backward(), quick, **target),
        pair("jax.jit(jax → warp kernel)", lambda: jit_ours(j).block_until_ready(),
             "jax.jit(wp.jax_kernel)", lambda: jit_ref(j).block_until_ready(),
             quick, **target),
        pair("jax.jit(jax.grad(jax → warp kernel))",
             lambda: grad_ours(j).block_until_ready(),
             "jax.jit(jax.grad(wp.jax_kernel(enable_backward=True)))",
             lambda: grad_ref(j).block_until_ready(), quick, **target),
        pair("jax.jit(jax.vmap(jax → warp kernel)), 8 items",
             lambda: vmap_ours(batch).block_until_ready(),
             "jax.jit(jax.vmap(wp.jax_kernel))",
             lambda: vmap_ref(batch).block_until_ready(), quick, **target),
    ]


def drjit_rows(quick: bool) -> list[Row]:
    """A Dr.Jit body (16 float32 elements, its LLVM backend) against Dr.Jit's own
    ``dr.wrap`` of the same body (one without an in-place update, whose
    gradient ``dr.wrap`` gets right), from torch.
    """
    if importlib.util.find_spec("drjit") is None:
        return []
    import drjit as dr

    def dr_body(a):
        return a * a + 1.0

    x = (torch.arange(SMALL, dtype=torch.float32) / SMALL).requires_grad_()
    ours = ut.wrap("torch", "drjit")(dr_body)
    theirs = dr.wrap(source="torch", target="drjit")(dr_body)
    return [
        pair("torch → drjit body, forward + backward",
             lambda: ours(x).sum().backward(), "dr.wrap(torch → drjit), the same",
             lambda: theirs(x).sum().backward(), quick),
        pair("torch → drjit body, forward", lambda: ours(x.detach()),
             "dr.wrap(torch → drjit), the same", lambda: theirs(x.detach()), quick),
    ]


def markdown(rows: list[Row]) -> str:
    lines = ["| bridged call | µs | reference | µs | ratio | target |",
             "|---|---:|---|---:|---:|---|"]
    lines += [f"| {r.case} | {r.us:.1f} | {r.reference} | {r.ref_us:.1f} | "
              f"{r.ratio:.2f}x | {r.target} |" for r in rows]
    return "\n".join(lines)


# the row groups measured on SMALL-element arrays
_SMALL_ROWS = frozenset({"small", "training", "like", "warp", "warpk", "drjit"})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (CI)")
    parser.add_argument("--rows",
                        default="small,large,tf,training,like,warp,drjit,warpk",
                        help="which rows, comma-separated: small, large, tf, "
                             "training (#34: the floor, Adam vs Warp), like "
                             "(#34: torch2jax and DLPack references), warp, drjit, "
                             "warpk (a bare Warp kernel as the body)")
    parser.add_argument("--threads", type=int, metavar="N",
                        help="N intra-op threads for torch, XLA and TF (on a "
                             "shared machine, 1 keeps one framework's threads from "
                             "waiting on a core another process holds)")
    args = parser.parse_args(argv)
    if args.threads:
        global THREADS
        THREADS = args.threads
        torch.set_num_threads(args.threads)
        # read when XLA's CPU client starts, at the first computation below
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_cpu_"
                                   "multi_thread_eigen=false intra_op_parallelism_"
                                   f"threads={args.threads}")
    which = args.rows.split(",")
    warnings.simplefilter("ignore", ut.AliasWarning)
    load = os.getloadavg()[0]
    rows = small_rows(args.quick) if "small" in which else []
    if "large" in which:
        for n in LARGE:
            rows += large_rows(n, args.quick)
    if "training" in which:
        rows += training_rows(args.quick)
    if "like" in which:
        rows += torch2jax_small_rows(args.quick)
        for n in LARGE:
            rows += dlpack_rows(n, args.quick)
    with_tf = "tf" in which and importlib.util.find_spec("tensorflow") is not None
    if with_tf:
        rows += tf_rows(args.quick)
    if "warp" in which:
        rows += warp_rows(args.quick)
    if "drjit" in which:
        rows += drjit_rows(args.quick)
    if "warpk" in which:
        rows += warp_kernel_rows(args.quick)
    print(markdown(rows))
    versions = (f"numpy {np.__version__}, torch {torch.__version__}, jax "
                f"{jax.__version__}")
    if with_tf:
        import tensorflow as tf
        versions += f", tensorflow {tf.__version__}"
    sizes = (", ".join(f"{n:.0e}" for n in LARGE)
             if "large" in which or "like" in which else "")
    arrays = " and ".join(filter(None, (
        str(SMALL) if _SMALL_ROWS & set(which) or with_tf else "",
        sizes)))
    print(f"\n(three float32 arrays of {arrays} elements; {versions}; "
          f"{os.cpu_count()} CPUs, {THREADS or 'default'} intra-op threads, "
          f"load average {load:.1f} before and "
          f"{os.getloadavg()[0]:.1f} after; torch2jax "
          + ("measured" if importlib.util.find_spec("wrap_torch2jax") else
             "not installed: pip install wrap-torch2jax") + ")")


if __name__ == "__main__":
    main()
