"""The contract of each framework's part of ``ut.wrap``, and the one table that
finds the parts.

A part is one module of this package (``_wrap/<framework>.py``), found through
:data:`PARTS` (framework -> its row), never by a name computed at run time. What
a part must provide follows from its row alone (:func:`contracts`):

- a differentiable framework (a row with ``asks``) is a :class:`Caller` (it
  records a bridged call for its own autodiff) and a :class:`Body` for every
  other differentiable caller: each caller's row names what it asks of a body
  (``asks``: :class:`Body`, or a protocol adding to it);
- a framework whose arrays can change (not in :data:`IMMUTABLE`) is a
  :class:`Mutable` body: for a caller whose arrays never change, it copies an
  output whose memory the body keeps;
- ``also``: what the bridge asks of one framework alone (torch's guard of the
  caller's memory, TensorFlow's AutoGraph escape, numpy's read-only chains).

:func:`part` imports a part and refuses one that lacks a member its contracts
declare; ``tests/wrap/test_wrap_parts.py`` checks each part against them, member by
member and signature by signature, as ``tests/backends/test_adapter.py`` does
for the adapters (``_backends/_adapter.py``).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
from collections.abc import Callable
from types import ModuleType
from typing import (
    TYPE_CHECKING,
    Any,
    Final,
    NamedTuple,
    Protocol,
    cast,
    runtime_checkable,
)

from .._dtypes import DType

if TYPE_CHECKING:
    from ._bridge import Bridge, Call

#: a function over the body framework's arrays: the body's run (``Call.run``),
#: or a derivative of it
Run = Callable[[list[Any]], list[Any]]
#: an array's shape and dtype, as a body's ``eval_shape`` takes and gives them
Spec = tuple[tuple[int, ...], DType]


@runtime_checkable
class Caller(Protocol):
    """A differentiable framework as the caller: how it records a bridged call
    for its own autodiff (torch: an ``autograd.Function``; jax: a primitive;
    TensorFlow: a ``tf.custom_gradient`` function, a ``tf.py_function`` inside
    ``tf.function``).
    """

    def call(self, c: Call, /) -> Any:
        """Run the bridged call ``c``: a plain call (``c.plain()``) where the
        caller's autodiff does not see its arrays, else the call recorded for
        it; the result built by ``c.result``.
        """


@runtime_checkable
class Body(Protocol):
    """A differentiable framework as the body: what every differentiable caller
    may ask of it (each caller's row adds what it alone asks).
    """

    def pullback(self, run: Run, xs: list[Any], wrt: list[bool] | None = None, /
                 ) -> tuple[list[Any], Callable[[list[Any]], list[Any]]]:
        """``run(xs)`` and its pullback: cotangents of the outputs (None where
        there is none) -> cotangents of ``xs`` (None for integer and bool
        inputs, and those ``wrt`` leaves out). The caller's convention for
        complex cotangents is torch's (the conjugate of JAX's).
        """

    def vmap(self, run: Run, xs: list[Any], dims: tuple[int | None, ...], /
             ) -> list[Any]:
        """``run`` over a batch in one call: the batch axis of each of ``xs`` at
        ``dims`` (None: not batched), in front of each output.
        """

    def eval_shape(self, run: Run, specs: list[Spec], /) -> list[Spec]:
        """The shapes and dtypes of ``run``'s outputs for inputs of ``specs``,
        without data or computation (``jax.jit``, ``tf.function`` and
        ``torch.compile`` need them before the body runs).
        """


@runtime_checkable
class BodyForTorch(Body, Protocol):
    """What a torch caller asks of a body: its forward mode too (the
    ``autograd.Function``'s ``jvp`` rule, ``Call.forward_derivative``).
    """

    def jvp(self, run: Run, xs: list[Any], tangents: list[Any],
            wrt: list[bool] | None = None, /) -> list[Any]:
        """The tangents of ``run``'s outputs at ``xs`` (None for integer and
        bool outputs), given ``tangents`` of ``xs`` (those of integer and bool
        inputs, and of inputs ``wrt`` leaves out, are not used).
        """


@runtime_checkable
class BodyForJax(Body, Protocol):
    """What a jax caller asks of a body: the derivatives its primitive's rules
    bind (over inexact arrays only), and, under ``jax.jit``, XLA's buffers.
    """

    def jvp_of_inexact(self, run: Run, xs: list[Any], tangents: list[Any],
                       inexact_in: list[bool], inexact_out: list[bool], /
                       ) -> list[Any]:
        """The tangents of ``run``'s inexact outputs at ``xs``, given
        ``tangents`` of its inexact inputs only (as marked).
        """

    def vjp_of_inexact(self, run: Run, xs: list[Any], cotangents: list[Any],
                       inexact_in: list[bool], inexact_out: list[bool], /
                       ) -> list[Any]:
        """The cotangents of ``run``'s inexact inputs at ``xs`` (zeros for
        unused ones), given ``cotangents`` of its inexact outputs only.
        """

    def from_xla(self, buffer: Any, /) -> Any:
        """The body framework's view of a buffer XLA lends to a callback
        (compact and aligned).
        """

    def write(self, buffer: Any, src: Any, /) -> None:
        """Copy the body's output ``src`` into ``buffer``, memory XLA provides."""

    def kept_inputs(self, xs: list[Any], /) -> list[int]:
        """Which of ``xs`` (views of XLA's buffers, the list their one holder
        once the body returned) the body still holds: XLA reuses that memory.
        """


@runtime_checkable
class Mutable(Protocol):
    """A body whose framework's arrays can change, for a caller whose arrays
    never do (:data:`IMMUTABLE`).
    """

    def unshared(self, ys: list[Any], xs: list[Any], quiet: bool, /) -> list[Any]:
        """The body's outputs ``ys`` (the list their only holder), each one
        whose memory the body keeps (a parameter, a cache, a global) copied,
        reported unless ``quiet``; ``xs``: the body's views of the caller's
        immutable arrays, which may be given back as they are.
        """


@runtime_checkable
class Guarded(Protocol):
    """A body framework that cannot mark memory read-only (torch): the caller's
    immutable or read-only memory is guarded while the body runs.
    """

    def read_only(self, arrays: list[Any], why: str, /
                  ) -> contextlib.AbstractContextManager[Any]:
        """Where the body runs: writes into the memory of ``arrays`` are refused
        with a ValueError saying ``why`` it is immutable.
        """


@runtime_checkable
class Unconverted(Protocol):
    """A framework whose tracer rewrites Python (TensorFlow's AutoGraph): the
    bridge, whichever side the framework is on, must be left as it is.
    """

    def unconverted(self, func: Callable[..., Any], /) -> Callable[..., Any]:
        """``func`` as the tracer leaves it (called as it is)."""


@runtime_checkable
class NumpyMemory(Protocol):
    """numpy's chains of bases, which a jax caller's numpy arguments have."""

    def read_only_memory(self, x: Any, /) -> bool:
        """Whether no array on ``x``'s chain of bases can write its memory."""


@runtime_checkable
class Kernels(Protocol):
    """A body framework whose bodies may be its kernels, not only Python
    functions (Warp: a ``@wp.kernel``, launched as its ``jax_kernel`` does).
    """

    def body(self, func: Any, outputs: int | None, dim: Any,
             output_shapes: list[Spec] | None, /) -> Callable[..., Any]:
        """What the bridge calls for the body ``func`` (the one place a body
        is told apart): a kernel as a function over the framework's arrays,
        launched as ``outputs`` (how many of its last parameters are outputs)
        and ``dim`` (its launch dimensions) say; any other callable as it is,
        where neither is given (else a TypeError).
        """


@runtime_checkable
class Compiled(Protocol):
    """A bridged call as a compiler's graph holds it (torch.compile: one op)."""

    def bridged_call(self, bridge: Bridge, args: tuple[Any, ...],
                     kwargs: dict[str, Any], /) -> Any:
        """What the compiler traces for ``bridge(*args, **kwargs)``."""


class Part(NamedTuple):
    """A framework's row: where its part is, and what it is."""

    #: the module of its part
    module: str
    #: as a caller, what it asks of a body (None: a plain framework, which calls
    #: and is called without derivatives)
    asks: type | None
    #: what the bridge asks of this framework alone
    also: tuple[type, ...] = ()


#: framework -> its part: a new framework is a row here and its module
PARTS: Final[dict[str, Part]] = {
    "torch": Part("unitensor._wrap.torch", BodyForTorch, (Guarded,)),
    "jax": Part("unitensor._wrap.jax", BodyForJax),
    "tensorflow": Part("unitensor._wrap.tensorflow", Body, (Unconverted,)),
    "warp": Part("unitensor._wrap.warp", Body, (Kernels,)),
    "drjit": Part("unitensor._wrap.drjit", Body),
    "numpy": Part("unitensor._wrap.numpy", None, (NumpyMemory,)),
    "array_api_strict": Part("unitensor._wrap.array_api_strict", None),
    "cupy": Part("unitensor._wrap.cupy", None),
}
#: frameworks whose arrays never change (the backends' IMMUTABLE fact): a body
#: must not write into a caller's, nor give back memory it keeps
IMMUTABLE: Final = ("jax", "tensorflow")
#: (caller, body) -> the module of the call as a compiler's graph holds it
COMPILED: Final[dict[tuple[str, str], str]] = {
    ("torch", "jax"): "unitensor._wrap.torch_ops",
    ("torch", "warp"): "unitensor._wrap.torch_ops"}
#: (caller, body) -> that module, once the compiler is imported (load_compiled)
COMPILED_PARTS: Final[dict[tuple[str, str], Compiled]] = {}


def members(contract: type) -> tuple[str, ...]:
    """The names ``contract`` declares, its bases' too: attributes and methods."""
    names: set[str] = set()
    for kind in contract.__mro__:  # (Protocol, Generic, object: underscored)
        names.update(vars(kind).get("__annotations__", {}))
        names.update(k for k, v in vars(kind).items()
                     if callable(v) and not k.startswith("_"))
    return tuple(sorted(names))


def contracts(name: str) -> tuple[type, ...]:
    """The protocols the part of framework ``name`` fulfils, from the table."""
    row = PARTS[name]
    found: list[type] = []
    if row.asks is not None:
        found += [Caller, Body]
        found += [other.asks for n, other in PARTS.items()
                  if n != name and other.asks is not None]
    if name not in IMMUTABLE:
        found.append(Mutable)
    found += row.also
    return tuple(dict.fromkeys(found))


@functools.cache  # asked several times a call: import_module costs ~1 µs each
def part(name: str) -> ModuleType:
    """The part of framework ``name`` (importing it, and so the framework:
    ``ImportError`` where it is not installed); ``TypeError`` where it lacks a
    member its contracts declare.
    """
    module = importlib.import_module(PARTS[name].module)
    for contract in contracts(name):
        for member in members(contract):
            if not hasattr(module, member):
                raise TypeError(f"unitensor wrap part {name!r}: {module.__name__} "
                                f"does not define {member!r}, which "
                                f"{contract.__name__} requires")
    return module


def load_compiled() -> None:
    """Import the modules of :data:`COMPILED` into :data:`COMPILED_PARTS`.

    Run once the compiler is imported (``_compile.watch``): their ops are then
    registered, and while the compiler traces, a bridged call finds its op
    there without an import (no part of a graph). A module may be the one whose
    import imported the compiler, not yet run to its end: its ``bridged_call``
    is read when a bridge is called.
    """
    for pair, name in COMPILED.items():
        COMPILED_PARTS[pair] = cast(Compiled, importlib.import_module(name))
