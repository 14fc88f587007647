"""Bridges: a function written in one framework, called and differentiated from
another.

``wrap(source, target)`` follows Dr.Jit's convention: ``source`` is the caller's
framework, ``target`` the framework the body is written in. The caller's arrays
reach the body as zero-copy views (unitensor's conversions, with their copy rule)
and the body's arrays come back as views. This module holds what every pair
shares: the table of pairs, the :class:`Bridge` and the :class:`Call` (with the
argument trees of ``_trees`` and the conversions of ``_lend``) and the plain
call. Each framework's part is its module in this package, found through
``_parts.PARTS``: as a caller (how it records a bridged call for
transformation: torch an ``autograd.Function``, jax a primitive) and as a body
(its derivatives and batched form, and for torch the output shapes on meta
tensors).

Every call builds its own :class:`Call`; nothing is registered per wrapped
function and no module-level state changes per call. A derivative is again a
bridge (the body's vector-Jacobian product, written in the body's framework), so
differentiating a derivative takes the same path.
"""

from __future__ import annotations

import functools
import itertools
import sys
import weakref
from collections.abc import Callable
from types import ModuleType
from typing import Any, Final, TypeVar

from .. import _backends
from .._dtypes import parse as parse_dtype
from .._errors import arg_error, describe
from ._lend import lend
from ._parts import (
    COMPILED,
    COMPILED_PARTS,
    IMMUTABLE,
    PARTS,
    Guarded,
    Kernels,
    Unconverted,
    part,
)
from ._trees import FLAT, ONE, TUPLE, constant_key, flatten, frozen, unflatten

_F = TypeVar("_F", bound=Callable[..., Any])
#: a direct hand-over between two parts: the giver's ``exported(array,
#: compact)`` (a Buffer, or None: not this array) and the taker's
#: ``imported(buffer, guarded)`` (its array, or None: not without a copy)
Handover = tuple[Callable[[Any, bool], Any], Callable[[Any, bool], Any]]

# the frameworks that differentiate a bridged call (a caller and a body)
_DIFFERENTIABLE = tuple(name for name, row in PARTS.items() if row.asks is not None)
# frameworks without a differentiation bridge: plain callers and bodies only
PLAIN: Final = tuple(name for name, row in PARTS.items() if row.asks is None)
# (source, target) -> whether the bridge is differentiable: any two of torch, jax
# and tensorflow are; a plain framework is the caller or the body of a plain call
# with any other of the six.
PAIRS: Final[dict[tuple[str, str], bool]] = {
    (a, b): a not in PLAIN and b not in PLAIN
    for a in _DIFFERENTIABLE + PLAIN for b in _DIFFERENTIABLE + PLAIN if a != b}
# bodies whose part guards the caller's memory while they run (torch's
# read_only), frameworks whose tracer must leave the bridge as it is (AutoGraph)
_GUARDED: Final = frozenset(n for n, row in PARTS.items() if Guarded in row.also)
_UNCONVERTED: Final = tuple(n for n, row in PARTS.items() if Unconverted in row.also)
# body frameworks whose kernels may be bodies (wrap's outputs= and dim=)
_KERNELS: Final = tuple(repr(n) for n, row in PARTS.items() if Kernels in row.also)
_NOT_COMPILED = ("wrap(): a bridged call runs eagerly, outside torch.compile's graph "
                 "(compiled into the graph: " + ", ".join(
                     f"a {a} caller of a {b} body" for a, b in COMPILED) + ")")
# Bridges a torch caller calls, by a number that torch.compile's graph can name
# (unitensor/_wrap/torch_ops.py: the bridge as one opaque op).
BRIDGES: weakref.WeakValueDictionary[int, Bridge] = weakref.WeakValueDictionary()
_numbers = itertools.count()
# what a bridge keeps per input signature (Bridge.compiled): beyond this many
# entries the oldest goes (a body called with ever new shapes or constants)
_KEPT = 32
_COUNTS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _listed(names: tuple[str, ...], last: str) -> str:
    return f"{', '.join(names[:-1])} {last} {names[-1]}" if len(names) > 1 else names[0]


_SUPPORTED = (f"any two of {_listed(_DIFFERENTIABLE, 'and')} (differentiable); "
              f"{_listed(PLAIN, 'or')} with any other of these "
              f"{_COUNTS[len(PARTS) - 2]} (plain calls)")


def wrap(source: str, target: str, *, output_shapes: Any = None,
         outputs: int | None = None, dim: Any = None) -> Callable[[_F], _F]:
    """Make a function written in ``target`` callable from ``source``.

    The caller's arrays reach the body as zero-copy views of the caller's
    memory, and the body's arrays come back as views (unitensor's copy rule:
    memory the other framework cannot alias is copied with a
    :class:`CopyWarning`). Derivatives flow through the call, in reverse and
    forward mode, at any order, and it can be batched: a torch caller can use
    ``backward()``, ``torch.autograd.grad``, ``forward_ad`` and ``torch.func``
    (``grad``, ``jvp``, ``jacfwd``, ``jacrev``, ``hessian``, ``vmap``); a jax
    caller every JAX transformation (``jit``, ``grad``, ``jvp``, ``jacfwd``,
    ``jacrev``, ``hessian``, ``vmap``); a TensorFlow caller ``tf.GradientTape``
    (any order, also inside ``tf.function``) and
    ``tf.autodiff.ForwardAccumulator`` (also inside ``tf.function``).
    Complex derivatives follow the caller's convention (torch and jax;
    refused with TensorFlow).

    Parameters
    ----------
    source : str
        The caller's framework: what goes in and comes out ('torch', 'jax',
        'tensorflow', 'warp', 'drjit', 'numpy', 'array_api_strict' or 'cupy').
    target : str
        The framework the body is written in (one of the same, not ``source``).
    output_shapes : optional
        The body's output, as shapes and dtypes: its structure (nested tuples,
        lists and dicts) with an object having ``.shape`` and ``.dtype`` for
        each array (``jax.ShapeDtypeStruct``, ``tf.TensorSpec``, an array of
        any framework). Where given, ``jax.jit``, ``tf.function`` and
        ``torch.compile`` take the shapes from it, and the body is not run
        abstractly (on torch meta tensors, in ``jax.eval_shape``, traced
        into a TensorFlow graph) to find them: a body that reads values
        (``.item()``) can then be traced. Under ``jax.jit`` the body's
        outputs are checked against them. For a Warp kernel body, the
        shapes of its outputs where they are not the launch dimensions.
    outputs : int, optional
        For a Warp kernel body (a ``@wp.kernel``, ``target="warp"``): how many
        of its last parameters are outputs (default 1), as Warp's own
        ``jax_kernel(num_outputs=)``. The caller passes the others (arrays,
        and Python numbers for scalar parameters); the outputs are made per
        call and returned (one array, or a tuple).
    dim : int or tuple of int, optional
        For a Warp kernel body: its launch dimensions (default: the shape of
        its first array argument), as ``wp.launch(dim=)``.

    Returns
    -------
    callable
        A decorator: ``wrap(source, target)(func)`` takes the same arguments as
        ``func``. Arrays of ``source`` anywhere in the arguments (nested tuples,
        lists and dicts, keyword arguments) are given to ``func`` as arrays of
        ``target``; every other value (None, Python scalars, other objects)
        reaches it unchanged. Arrays of ``target`` in the result come back as
        arrays of ``source``, in the same structure.

    Raises
    ------
    TypeError
        ``source`` or ``target`` is not a str; ``output_shapes`` has a leaf
        without a static ``.shape`` of ints or with a dtype unitensor lacks;
        ``outputs`` or ``dim`` with a body that is not a Warp kernel; a
        Warp kernel with parameters other than arrays of scalar dtypes and
        scalars, or a generic one.
    ValueError
        ``source`` or ``target`` names no framework unitensor knows.
    NotImplementedError
        The pair is not bridged: any two of torch, jax, tensorflow, warp and
        drjit are differentiable (Warp in reverse mode, both first order only),
        and numpy, array_api_strict or cupy may be the caller or the body of a
        plain call with any other of these. A TensorFlow caller
        inside ``tf.function(jit_compile=True)``; complex derivatives with
        TensorFlow; a plain body under ``jax.jit`` or another transformation, or
        inside ``tf.function``.

    Notes
    -----
    Integer and bool arrays are not differentiated (None gradients for torch,
    float0 for jax). An exception raised by the body reaches the caller as it
    is. The table of directions and transformations, and when a copy happens,
    is in docs/wrap.md.

    Examples
    --------
    >>> @ut.wrap(source="torch", target="jax")  # doctest: +SKIP
    ... def pow2(n, x):
    ...     for k in range(3):
    ...         x = jnp.where(k < n, x * x, x)
    ...     return x
    >>> x = torch.tensor([4.0, 4, 4, 4], requires_grad=True)  # doctest: +SKIP
    >>> pow2(torch.tensor([0, 1, 2, 3]), x).sum().backward()  # doctest: +SKIP
    >>> x.grad  # doctest: +SKIP
    tensor([1.0000e+00, 8.0000e+00, 2.5600e+02, 1.3107e+05])
    """
    for arg, name in (("source", source), ("target", target)):
        if not isinstance(name, str):
            raise arg_error(TypeError, "wrap", arg, "a framework's name (a str)",
                            describe(name))
        if name not in _backends.NAMES:
            raise arg_error(ValueError, "wrap", arg, f"one of {_backends.NAMES}",
                            describe(name))
    if (source, target) not in PAIRS:
        raise arg_error(NotImplementedError, "wrap", "source, target",
                        f"a pair bridged so far: {_SUPPORTED}",
                        f"source={source!r}, target={target!r}")
    given = None if output_shapes is None else _given_shapes(output_shapes)
    # a framework whose kernels may be bodies (Warp) tells them apart: its part
    kernels = Kernels in PARTS[target].also
    if not kernels and (outputs is not None or dim is not None):
        raise arg_error(TypeError, "wrap", "outputs" if outputs is not None else
                        "dim", "outputs= and dim= with a kernel body "
                        f"(target={_listed(_KERNELS, 'or')})", f"target={target!r}")

    def decorate(func: _F) -> _F:
        if kernels:
            func = part(target).body(func, outputs, dim,
                                     None if given is None else given[1])
        if not callable(func):
            raise arg_error(TypeError, "wrap", "func", "a callable", describe(func))
        bridge = Bridge(func, source, target)
        bridge.given = given

        @functools.wraps(func)
        def bridged(*args: Any, **kwargs: Any) -> Any:
            return bridge(*args, **kwargs)
        for name in _UNCONVERTED:  # tf.function's AutoGraph must not
            # rewrite the bridge (nor the body's framework) into graph code
            if name in (source, target):
                bridged = part(name).unconverted(bridged)
        return _opaque(bridged, func)  # type: ignore[return-value]  # func's signature

    return decorate


#: the output shapes a user gave: (the output's structure, as Call.out holds
#: it; the shapes and dtypes of its arrays)
Given = tuple[tuple[list[Any], Any, list[int]], list[tuple[tuple[int, ...], Any]]]


def _given_shapes(output_shapes: Any) -> Given:
    """``output_shapes`` read once: the structure of the body's output and the
    (shape, dtype) of each of its arrays (leaves with ``.shape`` and ``.dtype``).
    """
    leaves, tree = flatten(output_shapes)
    positions = [i for i, leaf in enumerate(leaves)
                 if hasattr(leaf, "shape") and hasattr(leaf, "dtype")]
    if not positions:
        raise arg_error(TypeError, "wrap", "output_shapes", "the body's output "
                        "with an object having .shape and .dtype for each array "
                        "(jax.ShapeDtypeStruct, tf.TensorSpec, an array)",
                        describe(output_shapes))
    specs = []
    for i in positions:
        shape = tuple(leaves[i].shape)
        if not all(type(n) is int and n >= 0 for n in shape):  # (TF: None)
            raise arg_error(TypeError, "wrap", "output_shapes", "static shapes "
                            "(tuples of ints)", f"a shape {shape}")
        specs.append((shape, parse_dtype(leaves[i].dtype, "wrap", "output_shapes")))
        leaves[i] = None
    return (leaves, tree, positions), specs


def _opaque(bridged: Callable[..., Any], func: Callable[..., Any]
            ) -> Callable[..., Any]:
    """``bridged`` with ``func``'s name, doc and signature but no ``__wrapped__``
    (functools.wraps sets it): tf.function unwraps ``__wrapped__`` from a
    callable passed to it as an argument, and would call the raw body.
    """
    node = bridged  # (tensorflow's do_not_convert wraps the bridge again)
    while node is not func and "__wrapped__" in vars(node):
        node = vars(node).pop("__wrapped__")
    import inspect  # (here: ~5 ms of import, and only ut.wrap needs it)

    try:  # what inspect.signature found through __wrapped__
        bridged.__signature__ = inspect.signature(func)  # type: ignore[attr-defined]
    except (TypeError, ValueError):  # a builtin without one
        pass
    return bridged


class Bridge:
    """``func``, written in ``target``, as ``source`` calls it. ``quiet``: the
    bridge of a derivative, whose cotangents are laid out as the frameworks'
    autodiff chose (a stride-0 gradient of a sum): copied silently where the
    other framework cannot alias them.
    """

    __slots__ = ("__weakref__", "_eager", "_types", "compiled", "differentiable",
                 "func", "given", "handed", "key", "quiet", "source", "target",
                 "views")

    def __init__(self, func: Callable[..., Any], source: str, target: str,
                 quiet: bool = False) -> None:
        self.func = func
        self.source = source
        self.target = target
        self.quiet = quiet
        self.differentiable = PAIRS[source, target]
        # the output shapes the user gave (wrap's output_shapes), read
        self.given: Given | None = None
        # what the body's part compiled or learned per input signature (its
        # key: the signature, the part's own): a jitted jax body's forward and
        # pullback, the output shapes a run found
        self.compiled: dict[Any, Any] = {}
        # _call hidden from torch.compile, made on the first call that needs it
        self._eager: Callable[..., Any] | None = None
        self.key = next(_numbers)
        if source == "torch":
            BRIDGES[self.key] = self
        # (the caller's array types, the body's), found on the first call (which
        # imports the frameworks, or names the one not installed)
        self._types: tuple[tuple[type, ...], tuple[type, ...]] | None = None
        # the parts' direct hand-overs (caller to body, body to caller), found
        # with the types: None where a side's part has none
        self.handed: tuple[Handover | None, Handover | None] = (None, None)
        # the body's views of the caller's arrays, kept across calls where the
        # caller's part can tell that an array's memory and contents did not
        # change (its ``stamp``) and the body's arrays never change: see _Views
        self.views: _Views | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.source == "torch" and "torch._dynamo" in sys.modules:
            # (found once torch.compile was shown unitensor's C paths)
            compiled = COMPILED_PARTS.get((self.source, self.target))
            if compiled is not None and sys.modules["torch"].compiler.is_compiling():
                # traced by torch.compile: one opaque op of its graph
                return compiled.bridged_call(self, args, kwargs)
            # torch.compile is in use: it must not trace the bridge (nor the
            # body's framework): a graph break, or under fullgraph=True,
            # Dynamo's error giving this reason
            eager = self._eager
            if eager is None:
                eager = self._eager = sys.modules["torch._dynamo"].disable(
                    self._call, reason=_NOT_COMPILED)
            return eager(args, kwargs)
        return self._call(args, kwargs)

    def types(self) -> tuple[tuple[type, ...], tuple[type, ...]]:
        """The types of the caller's arrays and of the body's."""
        types = self._types
        if types is None:
            types = (_caller_arrays(self.source), _backends.get(
                self.target, "wrap").ARRAY_TYPES)  # installed? (an ImportError)
            self.handed = (_handover(self.source, self.target),
                           _handover(self.target, self.source))
            stamp = getattr(part(self.source), "stamp", None)
            if stamp is not None and self.handed[0] is not None and (
                    self.target in IMMUTABLE):
                self.views = _Views(stamp)
            self._types = types
        return types

    def _call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        kinds = self.types()[0]
        if not kwargs and all(isinstance(a, kinds) for a in args):
            # the common case, positional arrays only: no tree to walk
            leaves, tree, positions = list(args), FLAT, list(range(len(args)))
        else:
            leaves, tree = flatten((args, kwargs))
            positions = [i for i, leaf in enumerate(leaves) if isinstance(leaf, kinds)]
        call = Call(self, leaves, tree, positions)
        if self.source in PLAIN:
            return call.plain()
        return part(self.source).call(call)


class Call:
    """One call of a bridge: its arguments, split into the caller's arrays (at
    ``positions`` among the flattened ``leaves``) and everything else; after a
    run, the structure of the body's output.
    """

    __slots__ = ("bridge", "guard", "leaves", "out", "positions", "pull", "reverse",
                 "tree", "wrt")

    def __init__(self, bridge: Bridge, leaves: list[Any], tree: Any,
                 positions: list[int]) -> None:
        self.bridge = bridge
        self.leaves = leaves
        self.tree = tree
        self.positions = positions
        # (output leaves, None where the body's arrays were; output tree; the
        # positions of those arrays)
        self.out: tuple[list[Any], Any, list[int]] | None = None
        # the body's pullback, from a differentiated forward to its backward
        self.pull: Callable[[list[Any]], list[Any]] | None = None
        # which of the caller's arrays the caller differentiates (None: every
        # floating one); the others are constants of the pullback
        self.wrt: list[bool] | None = None
        # whether the caller will run a backward: the forward keeps the pullback
        self.reverse = True
        # for a guarded body (torch's read_only): which of the caller's arrays
        # are immutable, and why (found on the first run: a Call under jax.jit
        # runs once per execution of its executable, on the same arguments)
        self.guard: tuple[list[bool], str] | None = None

    def arrays(self) -> list[Any]:
        """The caller's arrays among the arguments, in order."""
        return [self.leaves[i] for i in self.positions]

    def run(self, arrays: list[Any], lent: bool = True,
            guarded: bool = True) -> list[Any]:
        """The body, given ``arrays`` (the body framework's) in place of the
        caller's: the arrays of its output, flattened. Its output's structure
        (the same on every run) is kept in ``out``. ``lent``: whether the
        outputs will be lent to the caller (not: copied into XLA's buffers).
        ``guarded``: whether a guarded body's writes into the caller's
        immutable arrays are refused as it runs (not: its caller checks their
        bytes after, as the XLA handler's runner does).
        """
        args, kwargs = self.arguments(arrays)
        bridge = self.bridge
        if guarded and bridge.target in _GUARDED:
            guard = self.guard
            if guard is None:
                guard = self.guard = self._guard()
            mask, why = guard
            protected = [a for a, m in zip(arrays, mask, strict=True) if m]
        else:
            protected = []
        if protected:
            # torch cannot mark the caller's memory read-only: its writes are
            # refused while the body runs
            with self.body().read_only(protected, why):
                out = bridge.func(*args, **kwargs)
        else:
            out = bridge.func(*args, **kwargs)
        kinds = self.bridge.types()[1]
        # the common results without a tree walk: one array, a tuple of arrays
        if isinstance(out, kinds):
            self.out, ys = ONE, [out]
        elif type(out) is tuple and all(isinstance(y, kinds) for y in out):
            self.out, ys = TUPLE, list(out)
        else:
            out_leaves, out_tree = flatten(out)
            positions = [i for i, leaf in enumerate(out_leaves)
                         if isinstance(leaf, kinds)]
            ys = [out_leaves[i] for i in positions]
            for i in positions:  # kept: the structure, not the body's memory
                out_leaves[i] = None
            self.out = (out_leaves, out_tree, positions)
        del out  # ys alone holds the outputs now (torch's check counts holders)
        if lent and bridge.source in IMMUTABLE and bridge.target not in IMMUTABLE:
            # the caller's array must never change: an output whose memory the
            # body also keeps (a parameter, a cache, a writable input) is
            # copied; the caller's immutable input given back is not (not
            # ``lent``: copied anyway, into XLA's buffers under jax.jit)
            ys = self.body().unshared(ys, self.unchangeable(arrays), bridge.quiet)
        return ys

    def run_unlent(self, arrays: list[Any]) -> list[Any]:
        """:meth:`run` for a forward whose outputs go to no caller (a jax
        caller's vjp: only the gradients are handed out). Nothing is copied
        for the caller then: a body's framework differentiates the outputs
        the body made (a copy would take the cotangent off a Warp tape).
        """
        return self.run(arrays, lent=False)

    def arguments(self, arrays: list[Any]) -> tuple[Any, dict[str, Any]]:
        """The body's arguments (positional, keyword) with ``arrays`` (the body
        framework's) in place of the caller's.
        """
        if len(arrays) != len(self.positions):
            raise ValueError(f"Call.run(): {len(arrays)} arrays for "
                             f"{len(self.positions)} array arguments")
        if self.tree is FLAT:  # positional arrays only
            return arrays, {}
        leaves = list(self.leaves)
        for i, array in zip(self.positions, arrays, strict=True):
            leaves[i] = array
        args, kwargs = unflatten(self.tree, leaves)
        return args, kwargs

    def shapes(self, specs: list[tuple[tuple[int, ...], Any]]
               ) -> list[tuple[tuple[int, ...], Any]]:
        """The shapes and dtypes of the body's outputs for arrays of ``specs``
        (jax.jit, tf.function and torch.compile need them before the body
        runs), its output's structure kept in ``out``: those the user gave
        (``output_shapes``), else the body framework's ``eval_shape``.
        """
        given = self.bridge.given
        if given is not None:
            self.out, found = given
            return found
        # one pass per input signature: a second trace (another jax.jit of
        # the bridge, a grad, a tf.function retrace) does not run the body again
        key = self.key("shapes", tuple(specs))
        kept = None if key is None else self.bridge.compiled.get(key)
        if kept is None:
            eval_shape = getattr(self.body(), "eval_shape", None)
            if eval_shape is None:  # a plain body: it runs on data only
                raise arg_error(NotImplementedError, "wrap", "args", "arrays with "
                                f"memory (a {self.bridge.target} body runs on data "
                                "only: give its outputs' shapes as output_shapes= "
                                "where a shape pass runs)", "arrays without memory "
                                "(meta or fake tensors, a tracer's)")
            # (its outputs are dropped: not lent, no copy made or reported)
            found = eval_shape(lambda arrays: self.run(arrays, lent=False), specs)
            kept = (self.out, found)
            if key is not None:
                self.keep(key, kept)
        self.out, found = kept
        return list(found)

    def template(self) -> list[Any]:
        """The flattened arguments with None in place of the caller's arrays."""
        leaves = list(self.leaves)
        for i in self.positions:
            leaves[i] = None
        return leaves

    def key(self, kind: str, *signature: Any) -> Any:
        """A key of :attr:`Bridge.compiled`: ``kind``, ``signature`` (the
        arrays' shapes and dtypes...) and the other arguments (the structure,
        the constants), or None where one of those is unhashable.
        """
        key = (kind, *signature, frozen(self.tree),
               tuple(map(constant_key, self.template())))
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def keep(self, key: Any, value: Any) -> Any:
        """``value`` kept on the bridge under ``key`` (the oldest dropped
        beyond ``_KEPT`` entries); returns it.
        """
        kept = self.bridge.compiled
        if len(kept) >= _KEPT:
            del kept[next(iter(kept))]
        kept[key] = value
        return value

    def result(self, arrays: list[Any]) -> Any:
        """The body's output with ``arrays`` (the caller's) in place of its own."""
        assert self.out is not None, "the body has not run"
        if self.out is ONE:
            (array,) = arrays
            return array
        if self.out is TUPLE:
            return tuple(arrays)
        out_leaves, out_tree, positions = self.out
        leaves = list(out_leaves)
        for i, array in zip(positions, arrays, strict=True):
            leaves[i] = array
        return unflatten(out_tree, leaves)

    def to_body(self, array: Any, quiet: bool = False) -> Any:
        """A caller's array as the body framework's, zero-copy where it can be
        aliased, else a copy, reported unless ``quiet`` (a cotangent, whose
        layout the caller's autodiff chose) or the bridge is quiet.
        """
        bridge = self.bridge
        target = bridge.target
        handed = bridge.handed[0]
        if handed is not None:  # the parts' own route, where it applies
            views = bridge.views
            found = (_hand(handed, array, quiet or bridge.quiet, target in _GUARDED)
                     if views is None else
                     views.view(array, handed, quiet or bridge.quiet))
            if found is not None:
                return found
        # no AliasWarning for immutable memory lent to a guarded body: the
        # caller's arrays are guarded while the body runs (Call.run), and the
        # tangents and cotangents (quiet) only the body framework's own autodiff
        # reads, which never writes into what it is given
        return lend(array, target, quiet or self.bridge.quiet, "args",
                    target in _GUARDED)

    def to_caller(self, array: Any, quiet: bool = False) -> Any:
        """A body's array as the caller framework's, as :meth:`to_body`."""
        handed = self.bridge.handed[1]
        if handed is not None:
            found = _hand(handed, array, quiet or self.bridge.quiet, False)
            if found is not None:
                return found
        return lend(array, self.bridge.source, quiet or self.bridge.quiet,
                    "func (an output of the body)")

    def plain(self) -> Any:
        """The call without differentiation: views in, body, views out."""
        return self.result(self.plain_arrays(self.arrays()))

    def _guard(self) -> tuple[list[bool], str]:
        """Which of the caller's arrays are immutable (:meth:`immutable`) and
        the reason a write into one is refused.
        """
        source = self.bridge.source
        protected = set(self.immutable(list(range(len(self.positions)))))
        mask = [i in protected for i in range(len(self.positions))]
        why = (f"{source}'s arrays are immutable" if source in IMMUTABLE else
               f"the caller's {source} array is read-only")
        return mask, why

    def immutable(self, arrays: list[Any]) -> list[Any]:
        """Those of the body's ``arrays`` whose caller's array is immutable: a
        jax or tensorflow array, or read-only memory (``np.asarray`` of a jax
        array is a read-only numpy array aliasing its memory; array_api_strict
        keeps such an array as it is).
        """
        source = self.bridge.source
        if source in IMMUTABLE:  # its own arrays, and numpy's a jax caller passes
            return [a for a, x in zip(arrays, self.arrays(), strict=True)
                    if type(x).__module__ != "numpy" or not x.flags.writeable]
        readonly = _backends.get(source, "wrap").readonly
        return [a for a, x in zip(arrays, self.arrays(), strict=True) if readonly(x)]

    def unchangeable(self, arrays: list[Any]) -> list[Any]:
        """Those of the body's ``arrays`` whose caller's memory nothing can
        change (a jax or TF caller's arrays; numpy's a jax caller passes where
        no array of their memory is writable): given back, lent as they are.
        """
        read_only = part("numpy").read_only_memory
        return [a for a, x in zip(arrays, self.arrays(), strict=True)
                if type(x).__module__ != "numpy" or read_only(x)]

    def plain_arrays(self, xs: list[Any]) -> list[Any]:
        """The body's arrays, as the caller's, for the caller's arrays ``xs``,
        without differentiation.
        """
        return [self.to_caller(y) for y in self.run([self.to_body(x) for x in xs])]

    def body(self) -> ModuleType:
        """The part of the body's framework (``_parts.part``)."""
        return part(self.bridge.target)

    def pullback(self, arrays: list[Any]
                 ) -> tuple[list[Any], Callable[[list[Any]], list[Any]]]:
        """The body on ``arrays`` (its framework's), and its pullback: the body
        framework's ``pullback`` of :meth:`run`, or, where the body's part
        compiles it (a ``jax.jit`` body: ``compiled_pullback``), its compiled
        form, made once per input signature.
        """
        body = self.body()
        # optional in a part (only jax compiles): None where it does not apply
        compiled = getattr(body, "compiled_pullback", None)
        if compiled is not None:
            found = compiled(self, arrays)
            if found is not None:
                return found
        return body.pullback(self.run, arrays, self.wrt)

    def derivative(self) -> Bridge:
        """The body's vector-Jacobian product as a bridge of the same pair:
        ``(arrays, cotangents) -> cotangents of arrays`` (None for arrays that
        are not differentiated), written in the body's framework, so that the
        caller can differentiate it again.
        """
        pullback = self.body().pullback
        run, wrt = self.run, self.wrt

        def vjp(arrays: list[Any], cotangents: list[Any]) -> list[Any]:
            return pullback(run, arrays, wrt)[1](cotangents)
        # the call it differentiates: a body's part may know a derivative of
        # its own kind of body by it (a Warp kernel's adjoint launch, which
        # has no derivative: no tape is made to differentiate it again)
        vjp.derivative_of = self  # type: ignore[attr-defined]
        return Bridge(vjp, self.bridge.source, self.bridge.target, quiet=True)

    def forward_derivative(self) -> Bridge:
        """The body's Jacobian-vector product as a bridge of the same pair:
        ``(arrays, tangents) -> tangents of the outputs`` (None for outputs that
        are not differentiated), written in the body's framework, so that the
        caller can transform it again (a jvp of a vjp: a hessian).
        """
        jvp = self.body().jvp
        run, wrt = self.run, self.wrt

        def f(arrays: list[Any], tangents: list[Any]) -> list[Any]:
            return jvp(run, arrays, tangents, wrt)
        return Bridge(f, self.bridge.source, self.bridge.target, quiet=True)

    def batched(self, dims: tuple[int | None, ...]) -> Bridge:
        """The body over a batch as a bridge of the same pair: ``arrays`` with a
        batch axis at ``dims`` (None: not batched) -> the outputs with one in
        front, in one call of the body framework's vmap.
        """
        vmap = self.body().vmap
        run = self.run

        def f(arrays: list[Any]) -> list[Any]:
            return vmap(run, arrays, dims)
        return Bridge(f, self.bridge.source, self.bridge.target,
                      quiet=self.bridge.quiet)


def _handover(giver: str, taker: str) -> Handover | None:
    """``giver``'s part's ``exported`` and ``taker``'s part's ``imported`` (both
    optional members of a part): an array of ``giver`` handed to ``taker``
    through a Buffer, without a Tensor and its cache of views, where both
    parts have them; None otherwise (every hand-over is :func:`lend`'s).
    """
    exported = getattr(part(giver), "exported", None)
    imported = getattr(part(taker), "imported", None)
    if exported is None or imported is None:
        return None
    return exported, imported


class _Views:
    """The body's views of a caller's arrays, kept from call to call (a
    training loop's data, passed unchanged at every step): made anew only
    where the caller's part's ``stamp`` of an array (its memory, layout and
    version) changed. Only for bodies whose arrays never change (jax: no body
    writes into a view), and a view made by the parts' route. A view lives
    while its caller's array does (a weak reference, which drops it) and
    holds an alias of that memory, not the caller's array itself; at most
    ``_VIEWS`` are kept, the oldest dropped.
    """

    __slots__ = ("kept", "stamp")

    def __init__(self, stamp: Callable[[Any], Any]) -> None:
        self.stamp = stamp
        # id of the caller's array -> (a weak reference to it, its stamp, the view)
        self.kept: dict[int, tuple[weakref.ref[Any], Any, Any]] = {}

    def view(self, array: Any, handed: Handover, compact: bool) -> Any:
        """The body's view of ``array``, kept or made by ``handed`` (None: not
        on that route, for lend to hand over).
        """
        stamp = self.stamp(array)
        if stamp is None:  # not an array the part can stamp
            return _hand(handed, array, compact, False)
        key = id(array)
        entry = self.kept.get(key)
        if entry is not None and entry[0]() is array and entry[1] == stamp:
            return entry[2]
        # (the part exports an alias of its memory: the view keeps that
        # memory alive, not ``array`` itself, whose death drops the view)
        found = _hand(handed, array, compact, False)
        if found is None:
            return None
        kept = self.kept
        kept.pop(key, None)
        if len(kept) >= _VIEWS:
            del kept[next(iter(kept))]

        def drop(_: Any, key: int = key) -> None:
            if kept.get(key) is new:
                del kept[key]
        new = (weakref.ref(array, drop), stamp, found)
        kept[key] = new
        return found


_VIEWS = 8


def _hand(handed: Handover, array: Any, compact: bool, guarded: bool) -> Any:
    """``array`` handed over by ``handed``, or None: not on that route (then
    :func:`lend` hands it over, copies it or says, in wrap's words, why not).
    """
    try:
        buf = handed[0](array, compact)
        return None if buf is None else handed[1](buf, guarded)
    except BufferError:  # (a dtype unitensor does not hold): lend refuses it
        return None


def _caller_arrays(source: str) -> tuple[type, ...]:
    """The types of the arguments that are the caller's arrays: its own, and for
    JAX numpy's too (JAX takes them as its arrays: ``jnp``, ``grad``, ``jit``).
    """
    kinds = _backends.get(source, "wrap").ARRAY_TYPES
    if source == "jax":
        kinds = (*kinds, *_backends.get("numpy", "wrap").ARRAY_TYPES)
    return kinds
