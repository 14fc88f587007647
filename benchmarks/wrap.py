"""Per-call overhead of ut.wrap on a small call (three arrays of 16 float32).

Each row times the bridged call and the body called natively in its own framework
(timeit, best of 5 repeats), in one process. ``python -m benchmarks.wrap`` prints a
markdown table. A first measurement for #14 (its benchmark rows with targets come
with a later slice).
"""

from __future__ import annotations

import timeit
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import torch

import unitensor as ut

N = 16


def best_us(f, number: int) -> float:
    f()
    return min(timeit.repeat(f, number=number, repeat=5)) / number * 1e6


def rows() -> list[tuple[str, float, str, float]]:
    warnings.simplefilter("ignore", ut.AliasWarning)
    ta, tb, tc = (torch.arange(N, dtype=torch.float32) + i for i in range(3))
    ja, jb, jc = (jnp.arange(N, dtype=jnp.float32) + i for i in range(3))

    def jax_body(a, b, c):
        return a * b + c

    def torch_body(a, b, c):
        return a * b + c

    jit_body = jax.jit(jax_body)
    from_torch = ut.wrap("torch", "jax")(jax_body)
    from_torch_jit = ut.wrap("torch", "jax")(jit_body)
    from_jax = ut.wrap("jax", "torch")(torch_body)

    def pure_callback(a, b, c):  # JAX's own way to call torch under jit (copies)
        def host(a, b, c):
            return torch_body(*map(torch.from_dlpack, (a, b, c))).numpy()
        return jax.pure_callback(host, jax.ShapeDtypeStruct((N,), jnp.float32),
                                 a, b, c)

    jit_bridged = jax.jit(from_jax)
    jit_callback = jax.jit(pure_callback)
    loss = ut.wrap("jax", "torch")(lambda a, b, c: torch_body(a, b, c).sum())
    jit_grad = jax.jit(jax.grad(loss))
    tg = ta.clone().requires_grad_()

    def torch_fwd_bwd():
        torch_body(tg, tb, tc).sum().backward()

    def bridged_fwd_bwd():
        from_torch_jit(tg, tb, tc).sum().backward()

    def jax_vjp():  # with respect to a, as torch asks the bridge
        out, pull = jax.vjp(lambda a: jit_body(a, jb, jc), ja)
        pull(jnp.ones_like(out))

    n = 2000
    return [
        ("torch -> jax body, eager", best_us(lambda: from_torch(ta, tb, tc), n // 4),
         "jax body natively (eager)", best_us(lambda: jax_body(ja, jb, jc), n // 4)),
        ("torch -> jax.jit body", best_us(lambda: from_torch_jit(ta, tb, tc), n),
         "jax.jit body natively", best_us(lambda: jit_body(ja, jb, jc), n)),
        ("torch -> jax.jit body, forward + backward", best_us(bridged_fwd_bwd, n // 10),
         "jax.vjp of it natively, forward + pullback", best_us(jax_vjp, n // 10)),
        ("jax -> torch body, eager", best_us(lambda: from_jax(ja, jb, jc), n),
         "torch body natively", best_us(lambda: torch_body(ta, tb, tc), n)),
        ("jax.jit(jax -> torch body)",
         best_us(lambda: jit_bridged(ja, jb, jc).block_until_ready(), n),
         "jax.jit(jax.pure_callback of the torch body)",
         best_us(lambda: jit_callback(ja, jb, jc).block_until_ready(), n)),
        ("jax.jit(jax.grad(jax -> torch body))",
         best_us(lambda: jit_grad(ja, jb, jc).block_until_ready(), n // 4),
         "torch forward + backward natively", best_us(torch_fwd_bwd, n // 4)),
    ]


def main() -> None:
    print("| bridged call | µs | reference | µs |")
    print("|---|---:|---|---:|")
    for name, us, ref, ref_us in rows():
        print(f"| {name} | {us:.1f} | {ref} | {ref_us:.1f} |")
    print(f"\n(three float32 arrays of {N}; numpy {np.__version__}, torch "
          f"{torch.__version__}, jax {jax.__version__})")


if __name__ == "__main__":
    main()
