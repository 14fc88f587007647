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


# -- kernels as bodies themselves (wrap(outputs=, dim=)) ----------------------------
@wp.kernel
def affine(x: wp.array(dtype=wp.float64), w: wp.array(dtype=wp.float64),
           s: wp.float64, y: wp.array(dtype=wp.float64),
           z: wp.array(dtype=wp.float64)):
    """Two inputs, a scalar and two outputs: y = s·x·w, z = sin(x) + w²."""
    i = wp.tid()
    y[i] = s * x[i] * w[i]
    z[i] = wp.sin(x[i]) + w[i] * w[i]


@wp.kernel
def row_sums(x: wp.array2d(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    """A 2-d launch adding x² into a 1-d output (rows): the output's shape is
    not the launch dimensions.
    """
    i, j = wp.tid()
    wp.atomic_add(out, i, x[i, j] * x[i, j])


@wp.kernel
def norms(v: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.float64)):
    """A vector-dtype input (refused as a bridge body: arrays of scalars only)."""
    i = wp.tid()
    out[i] = wp.length(v[i])
