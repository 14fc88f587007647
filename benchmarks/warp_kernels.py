"""The Warp kernel of benchmarks/wrap.py's Warp rows, and Warp's own routes to it
from torch (``wp.from_torch`` + ``wp.Tape`` in an ``autograd.Function``, as
Warp's documentation writes it) and from jax (``wp.jax_kernel``).
"""


import torch
import warp as wp


@wp.kernel
def cube(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = x[i] * x[i] * x[i]


def cube_body(x):
    """The bridged body: a Warp-taped function."""
    y = wp.empty_like(x)
    wp.launch(cube, dim=x.shape, inputs=[x], outputs=[y])
    return y


class TapedCube(torch.autograd.Function):
    """Warp's documented torch route: from_torch views, a tape, to_torch."""

    @staticmethod
    def forward(ctx, x):
        ctx.x = wp.from_torch(x, requires_grad=True)
        ctx.y = wp.empty_like(ctx.x)
        ctx.tape = wp.Tape()
        with ctx.tape:
            wp.launch(cube, dim=ctx.x.shape, inputs=[ctx.x], outputs=[ctx.y])
        return wp.to_torch(ctx.y)

    @staticmethod
    def backward(ctx, grad):
        ctx.tape.backward(grads={ctx.y: wp.from_torch(grad.contiguous())})
        out = wp.to_torch(ctx.x.grad).clone()
        ctx.tape.zero()
        return out


def launched_cube(x):
    """Warp's documented torch route for a bare kernel, forward only: views
    of a torch input and output (``wp.from_torch``), one ``wp.launch``.
    """
    y = torch.empty_like(x)
    wp.launch(cube, dim=x.shape, inputs=[wp.from_torch(x)],
              outputs=[wp.from_torch(y)])
    return y


class LaunchedCube(torch.autograd.Function):
    """Warp's documented torch route for a bare kernel with its gradient:
    ``wp.from_torch`` views, the kernel's adjoint launched in backward.
    """

    @staticmethod
    def forward(ctx, x):
        y = torch.empty_like(x)
        wp.launch(cube, dim=x.shape, inputs=[wp.from_torch(x)],
                  outputs=[wp.from_torch(y)])
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, adj_y):
        x, y = ctx.saved_tensors
        adj_x = torch.zeros_like(x)
        wp.launch(cube, dim=x.shape, inputs=[wp.from_torch(x)],
                  outputs=[wp.from_torch(y)], adj_inputs=[wp.from_torch(adj_x)],
                  adj_outputs=[wp.from_torch(adj_y.contiguous())], adjoint=True)
        return adj_x


def load() -> None:
    wp.load_module(__name__, device="cpu")
