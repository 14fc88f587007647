"""Warp kernels the bridge tests launch (one module: Warp compiles it once per
machine and loads it from its kernel cache afterwards).
"""


import warp as wp


@wp.kernel
def cube(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = x[i] * x[i] * x[i]


@wp.kernel
def cube32(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = x[i] * x[i] * x[i]


@wp.kernel
def scaled_sin(x: wp.array(dtype=wp.float64), n: wp.array(dtype=wp.int64),
               y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = wp.sin(x[i]) * wp.float64(n[i])


def cube_body(x):
    """A Warp-taped function: one launch into an output made like the input."""
    y = wp.empty_like(x)
    wp.launch(cube if x.dtype == wp.float64 else cube32, dim=x.shape, inputs=[x],
              outputs=[y], device=x.device)
    return y


def sin_body(x, n):
    """Two inputs, one an integer array (not differentiated), and an output
    made with requires_grad."""
    y = wp.zeros(x.shape, dtype=wp.float64, requires_grad=True, device=x.device)
    wp.launch(scaled_sin, dim=x.shape, inputs=[x, n], outputs=[y], device=x.device)
    return y


def load() -> None:
    """Compile (first time on a machine: seconds) or load the kernels."""
    wp.load_module(__name__, device="cpu")
