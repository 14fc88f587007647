"""Memory controls for every framework at once: configure, report, flush.

Every framework keeps a device memory cache, and they fight over one GPU: JAX
preallocates 75 % of it when it starts, TensorFlow nearly all of it unless memory
growth is on, torch and CuPy keep the blocks they freed. This module sets each
framework's own controls the way that framework honours them (environment
variables before it starts, API calls where they exist), reports each one's
usage by its allocator's own counters, and empties the caches that can be
emptied. Importing it imports no framework; neither does any of its functions:
a framework the user has not imported is configured through the environment,
and is left out of ``stats()`` and ``flush()``.

``python -m unitensor.memory [options] script.py [args]`` (or ``-m module``)
configures first and then runs the script as ``python`` would: for scripts that
import their frameworks before they could call :func:`configure`. See
docs/memory.md, per framework: what can be configured, when, and what can be
released.
"""

from __future__ import annotations

import gc
import importlib
import math
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping
from numbers import Integral, Real
from typing import TYPE_CHECKING, TypeVar, cast

from . import _backends
from ._backends._memory import (
    FRAMEWORKS,
    Flushed,
    MemoryStats,
    Request,
    loaded,
)
from ._device import Device
from ._errors import TooLateError, TooLateWarning, arg_error, describe

if TYPE_CHECKING:
    from ._backends._adapter import Memory

__all__ = ["FRAMEWORKS", "Flushed", "MemoryStats", "TooLateError", "TooLateWarning",
           "configure", "flush", "stats"]


def __dir__() -> list[str]:
    """The public names only, for completion (not ``os``, ``sys``, ``gc``, ...)."""
    return sorted(__all__)

# framework -> its memory module (none of them imports its framework).
_PARTS: dict[str, Memory] = {
    name: cast("Memory", importlib.import_module(f"unitensor._backends.{name}.memory"))
    for name in FRAMEWORKS}
_FRAMEWORK_NAMES = f"one of {FRAMEWORKS}"
_CONFIGURING = threading.RLock()


def _check_bool(func: str, arg: str, value: object) -> None:
    if value is not None and not isinstance(value, bool):
        raise arg_error(TypeError, func, arg, "True, False or None", describe(value))


def _check_framework(func: str, arg: str, name: object) -> str:
    if not isinstance(name, str):
        raise arg_error(TypeError, func, arg, f"framework names ({_FRAMEWORK_NAMES})",
                        describe(name))
    if name not in FRAMEWORKS:
        raise arg_error(ValueError, func, arg, f"framework names ({_FRAMEWORK_NAMES})",
                        describe(name))
    return name


def _check_fraction(arg: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise arg_error(TypeError, "configure", arg, "a float in (0, 1]",
                        describe(value))
    number = float(value)
    if math.isnan(number) or not 0.0 < number <= 1.0:
        raise arg_error(ValueError, "configure", arg, "a float in (0, 1]",
                        describe(value))
    return number


_V = TypeVar("_V")


def _per_framework(arg: str, value: object, check: Callable[[str, object], _V]
                   ) -> dict[str, tuple[_V, str]]:
    """framework -> (``value`` checked, the argument that gave it): one value
    for every framework, or a dict of them per framework.
    """
    if value is None:
        return {}
    if isinstance(value, Mapping):
        found = {}
        for name, each in value.items():
            _check_framework("configure", arg, name)
            place = f"{arg}[{name!r}]"
            found[name] = (check(place, each), place)
        return found
    return dict.fromkeys(FRAMEWORKS, (check(arg, value), arg))


_MIB = 2**20


def _check_limit(arg: str, value: object) -> int:
    # at least 1 MiB: TensorFlow takes whole MiB, and a share of even a large GPU
    # stays above the 6 decimals written for torch and JAX
    accepted = f"a whole number of bytes, at least 1 MiB ({_MIB}), below 2**64"
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise arg_error(TypeError, "configure", arg, accepted, describe(value))
    number = int(value)
    if not _MIB <= number < 2**64:  # (the frameworks take a 64-bit size)
        raise arg_error(ValueError, "configure", arg, accepted, describe(value))
    return number


def _allocators(allocator: object) -> dict[str, tuple[str, str]]:
    """framework -> (allocator name, the argument that gave it)."""
    if allocator is None:
        return {}
    if not isinstance(allocator, Mapping):
        raise arg_error(TypeError, "configure", "allocator",
                        "a dict of framework name -> allocator name "
                        "({'jax': 'platform'})", describe(allocator))
    found = {}
    for name, value in allocator.items():
        _check_framework("configure", "allocator", name)
        arg = f"allocator[{name!r}]"
        if not isinstance(value, str):
            raise arg_error(TypeError, "configure", arg, "an allocator name (str)",
                            describe(value))
        accepted = _PARTS[name].check_allocator(value)
        if accepted is not None:
            raise arg_error(ValueError, "configure", arg, accepted, describe(value))
        found[name] = (value, arg)
    return found


def configure(*, preallocate: bool | None = None, growth: bool | None = None,
              fraction: float | Mapping[str, float] | None = None,
              limit: int | Mapping[str, int] | None = None,
              allocator: Mapping[str, str] | None = None,
              best_effort: bool = False) -> dict[str, tuple[str, ...]]:
    """Set every framework's memory controls the way that framework honours them.

    A framework that has not started (imported or not) gets the environment
    variables it reads when it starts, or the API call made right after its
    import; one that has started gets the API calls that still work. Where a
    setting can no longer take effect (JAX's backends or TensorFlow's devices
    initialised, torch's CUDA allocator backend chosen), nothing is changed and
    :class:`TooLateError` names the framework and the setting; with
    ``best_effort=True`` a :class:`TooLateWarning` says so instead and the other
    settings are applied. Never a silent no-op: the result says what was done.

    Parameters
    ----------
    preallocate : bool, optional
        False: no framework reserves memory up front (JAX's preallocation off,
        TensorFlow's memory growth on); True: JAX preallocates and TensorFlow
        takes nearly all of each GPU, as they do by default. torch and CuPy never
        preallocate.
    growth : bool, optional
        The same switch seen from the other side: ``growth=True`` is
        ``preallocate=False``. Giving both with the same value is a ValueError.
    fraction : float or dict, optional
        The share in (0, 1] of each GPU that a framework may take: one float for
        every framework, or a budget per framework (``{'torch': 0.4, 'jax': 0.3,
        'tensorflow': 0.2}``).
    limit : int or dict, optional
        The bytes of each GPU that a framework may take (at least 1 MiB), one
        int for every framework or a budget per framework; a fraction or a
        limit per framework, not both. TensorFlow gets a memory limit in whole
        MiB per GPU, CuPy the bytes; torch and JAX take only shares, so the
        limit becomes a share of the largest GPU (its size read through NVML,
        starting no framework), or, without an NVIDIA GPU, nothing is set and
        the result says so.
    allocator : dict, optional
        Framework -> allocator: jax 'platform', 'bfc', 'cuda_async', 'default' or
        'vmm' (``XLA_PYTHON_CLIENT_ALLOCATOR``); tensorflow 'cuda_malloc_async' or
        'bfc'; torch 'native', 'cudaMallocAsync' or options
        ('expandable_segments:True,...', ``PYTORCH_CUDA_ALLOC_CONF``); cupy
        'pool', 'async' or 'managed'.
    best_effort : bool, optional
        Warn instead of raising for the settings that come too late.

    Returns
    -------
    dict
        Framework -> what was done for it, in words (the variables set, the
        calls made, or why a setting means nothing to it).
    """
    for arg, value in (("preallocate", preallocate), ("growth", growth)):
        _check_bool("configure", arg, value)
    if not isinstance(best_effort, bool):
        raise arg_error(TypeError, "configure", "best_effort", "True or False",
                        describe(best_effort))
    if preallocate is not None and growth is not None and preallocate == growth:
        raise arg_error(ValueError, "configure", "growth",
                        f"{not preallocate} or None, since preallocate={preallocate} "
                        "(no preallocation is what growth means)", describe(growth))
    switch = preallocate if preallocate is not None else (
        None if growth is None else not growth)
    switch_arg = "preallocate" if preallocate is not None else "growth"
    fractions = _per_framework("fraction", fraction, _check_fraction)
    allocators = _allocators(allocator)
    limits = _per_framework("limit", limit, _check_limit)
    requests: dict[str, Request] = {}
    args: dict[tuple[str, str], tuple[str, object]] = {}
    for name in FRAMEWORKS:
        share, share_arg = fractions.get(name, (None, ""))
        kind, kind_arg = allocators.get(name, (None, ""))
        size, size_arg = limits.get(name, (None, ""))
        if share is not None and size is not None:  # two budgets for one framework
            raise arg_error(ValueError, "configure", size_arg,
                            f"no limit for {name}, since {share_arg} gives it a "
                            "fraction (a fraction or a limit, not both)",
                            describe(size))
        request = Request(switch, share, kind, size)
        if request.given():
            requests[name] = request
            args[name, "preallocate"] = (switch_arg,
                                         preallocate if preallocate is not None
                                         else growth)
            args[name, "fraction"] = (share_arg, share)
            args[name, "allocator"] = (kind_arg, kind)
            args[name, "limit"] = (size_arg, size)
    # one configure() at a time: each reads, merges and writes environment
    # variables, and checks what is too late before it applies
    with _CONFIGURING:
        refused: dict[str, list[str]] = {}
        messages, moot = [], []
        for name, request in requests.items():
            late = _PARTS[name].too_late(request)
            # too late, but on a framework that runs without a GPU, where no
            # setting can matter: said, not refused
            gpu_less = _PARTS[name].without_gpu() if late else None
            for setting, why in late.items():
                refused.setdefault(name, []).append(setting)
                arg, given = args[name, setting]
                message = str(arg_error(
                    TooLateError, "configure", arg, f"a setting {name} can still "
                    f"take (configure before {name} starts, or run the script with "
                    "python -m unitensor.memory)",
                    f"{given!r} for {name}, too late: {why}"))
                if gpu_less is None:
                    messages.append(message)
                else:
                    moot.append(f"{message}; not applied, and it cannot matter: "
                                f"{gpu_less}")
        if messages and not best_effort:
            raise TooLateError("; ".join(messages))
        for message in moot + messages:
            warnings.warn(message, TooLateWarning, stacklevel=2)
        done = {}
        for name, request in requests.items():
            request = request.without(refused.get(name, ()))
            if request.given():
                done[name] = tuple(_PARTS[name].apply(request))
        return done


def stats(device: Device | str | object | None = None) -> dict[str, MemoryStats]:
    """Each loaded framework's memory on one device, by its allocator's counters.

    Only frameworks already imported are reported, and none is started: a
    framework that has not started yet (JAX's backends, TensorFlow's devices,
    torch's CUDA) gets a record of None with the reason. On a CPU, what the
    framework counts (TensorFlow's bytes in use and peak, the bytes of JAX's live
    arrays) and None elsewhere.

    Parameters
    ----------
    device : Device, str or framework device, optional
        'cpu', 'cuda:0', a unitensor Device or a framework's device object;
        None: each framework's first accelerator, else its CPU.

    Returns
    -------
    dict
        Framework name -> :class:`MemoryStats`.
    """
    where = None if device is None else _backends.parse_device(device, "stats")
    return {name: part.stats(where) for name, part in _PARTS.items() if loaded(name)}


def _framework_names(frameworks: object) -> list[str]:
    if frameworks is None:
        return [name for name in FRAMEWORKS if loaded(name)]
    if isinstance(frameworks, str):
        return [_check_framework("flush", "frameworks", frameworks)]
    if not isinstance(frameworks, Iterable) or isinstance(frameworks, bytes):
        raise arg_error(TypeError, "flush", "frameworks", "a framework name or a "
                        f"sequence of them ({_FRAMEWORK_NAMES})", describe(frameworks))
    return [_check_framework("flush", "frameworks", name) for name in frameworks]


def flush(frameworks: str | Iterable[str] | None = None) -> dict[str, Flushed]:
    """Release every cache that can be released, and measure what was.

    Runs ``gc.collect()`` (arrays kept alive only by reference cycles hold
    memory too), then: torch empties its CUDA and pinned-host caches; CuPy its
    pools and cuFFT plan caches; JAX frees the buffers of dead arrays, but its
    BFC pool cannot shrink in-process (set ``preallocate=False`` or the
    'platform' allocator before it starts); TensorFlow cannot return anything
    in-process. The bytes reported are the fall of each framework's own counter
    (torch's reserved bytes, CuPy's pool, JAX's and TensorFlow's bytes in use)
    across the flush: measured, not estimated.

    Parameters
    ----------
    frameworks : str or iterable of str, optional
        The frameworks to flush; None: every loaded one.

    Returns
    -------
    dict
        Framework name -> :class:`Flushed` (bytes released, and what was done).
    """
    names = _framework_names(frameworks)
    present = [name for name in names if loaded(name)]
    before = {name: _PARTS[name].held() for name in present}
    gc.collect()
    notes = {name: _PARTS[name].release() for name in present}
    result = {}
    for name in names:
        if name not in notes:
            result[name] = Flushed(0, f"{name} is not loaded")
            continue
        start, end = before[name], _PARTS[name].held()
        released = max(0, start - end) if start is not None and end is not None else 0
        result[name] = Flushed(released, notes[name])
    return result


# -- python -m unitensor.memory ------------------------------------------------------
_USAGE = """\
usage: python -m unitensor.memory [options] (script.py | -m module) [args ...]

Configure every framework's memory, then run the script (or module) as python
would: for scripts that import their frameworks before they could call
unitensor.memory.configure().

options:
  --preallocate, --no-preallocate
                 let JAX and TensorFlow reserve memory up front, or not
  --growth, --no-growth
                 the same switch: --growth is --no-preallocate
  --fraction F   every framework's share of each GPU (0 < F <= 1), or a budget
                 per framework: --fraction torch=0.4,jax=0.3,tensorflow=0.2
  --limit BYTES  every framework's bytes of each GPU (at least 1 MiB), or a
                 budget per framework: --limit torch=4294967296,jax=2147483648
  --allocator FRAMEWORK=NAME
                 an allocator (repeatable): jax=platform,
                 torch=expandable_segments:True, tensorflow=cuda_malloc_async
  --best-effort  warn instead of failing for a setting that comes too late
  --verbose      print what was configured (to stderr)
  -h, --help     show this help
"""


class _UsageError(Exception):
    pass


def _pairs(option: str, text: str) -> list[tuple[str, str]]:
    """'fw=value,...' as (framework, value) pairs, each framework once."""
    pairs = [(name.strip(), value) for name, _, value in
             (item.partition("=") for item in text.split(",") if item)]
    names = [name for name, _ in pairs]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise _UsageError(f"{option}: expected each framework once, got "
                          f"{', '.join(repeated)} more than once in {text!r}")
    return pairs


def _parse_budget(option: str, text: str, number: Callable[[str], _V], wanted: str
                  ) -> _V | dict[str, _V]:
    """``--fraction`` or ``--limit``'s value: one number, or framework=number,..."""
    try:
        if "=" not in text:
            return number(text)
        return {name: number(value) for name, value in _pairs(option, text)}
    except ValueError:
        raise _UsageError(f"{option}: expected {wanted} or framework={wanted},..., "
                          f"got {text!r}") from None


def _parse_launcher(argv: list[str]) -> tuple[dict[str, object], list[str], bool]:
    """The configure() arguments, the command to run ([script, args...] or
    ['-m', module, args...]) and whether to be verbose.
    """
    kwargs: dict[str, object] = {}
    allocators: dict[str, str] = {}
    verbose = False
    flags = {"--preallocate": ("preallocate", True),
             "--no-preallocate": ("preallocate", False),
             "--growth": ("growth", True), "--no-growth": ("growth", False),
             "--best-effort": ("best_effort", True)}
    i = 0
    while i < len(argv):
        arg = argv[i]
        option, equals, value = arg.partition("=")
        if option in ("--fraction", "--limit", "--allocator"):
            if not equals:
                if i + 1 >= len(argv):
                    raise _UsageError(f"{option}: expected a value")
                i, value = i + 1, argv[i + 1]
            if option == "--fraction":
                kwargs["fraction"] = _parse_budget(option, value, float, "a float")
            elif option == "--limit":
                kwargs["limit"] = _parse_budget(option, value, int, "bytes")
            else:
                name, sep, kind = value.partition("=")
                if not sep:
                    raise _UsageError(f"--allocator: expected FRAMEWORK=NAME, "
                                      f"got {value!r}")
                allocators[name.strip()] = kind.strip()
        elif arg in flags:
            key, flag = flags[arg]
            kwargs[key] = flag
        elif arg == "--verbose":
            verbose = True
        elif arg in ("-h", "--help"):
            print(_USAGE, end="")
            raise SystemExit(0)
        elif arg == "-m" or not arg.startswith("-"):
            command = argv[i:]
            if command[0] == "-m" and len(command) < 2:
                raise _UsageError("-m: expected a module name")
            if allocators:
                kwargs["allocator"] = allocators
            return kwargs, command, verbose
        else:
            raise _UsageError(f"unknown option {arg!r}")
        i += 1
    raise _UsageError("expected a script or -m module to run")


def _run(command: list[str]) -> None:
    """Run ``command`` as ``python`` would, in this process, as ``__main__``:
    its errors, exit statuses and tracebacks (from its own first frame) too.
    """
    import functools
    import importlib.util
    import runpy
    if command[0] == "-m":
        name = command[1]
        try:
            spec = importlib.util.find_spec(name)
            why = f"No module named {name}"
            if spec is not None and spec.submodule_search_locations is not None:
                # a package runs as its __main__ module, as python -m runs it
                spec = importlib.util.find_spec(f"{name}.__main__")
                why = (f"No module named {name}.__main__; {name!r} is a package "
                       "and cannot be directly executed")
        except (ImportError, ValueError) as exc:
            spec, why = None, f"{type(exc).__name__}: {exc}"
        if spec is None:
            print(f"{sys.executable}: {why}", file=sys.stderr)
            raise SystemExit(1)
        sys.argv = [spec.origin or name, *command[2:]]
        target = spec.origin
        run = functools.partial(runpy.run_module, name, run_name="__main__",
                                alter_sys=True)
    else:
        target = os.path.abspath(command[0])
        if not os.path.exists(target):
            print(f"{sys.executable}: can't open file {target!r}: [Errno 2] No such "
                  "file or directory", file=sys.stderr)
            raise SystemExit(2)
        sys.argv = command
        sys.path[0] = os.path.dirname(target)
        run = functools.partial(runpy.run_path, target, run_name="__main__")
    try:
        run()
    except KeyboardInterrupt as exc:  # python prints it, then dies of SIGINT
        _print_from(exc, target)
        import signal
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except Exception as exc:
        _print_from(exc, target)
        raise SystemExit(1) from None


def _print_from(exc: BaseException, target: str | None) -> None:
    """Print ``exc`` as python prints it: its traceback from the script's first
    frame (the launcher's are not the user's).
    """
    traceback = exc.__traceback__
    while traceback is not None and traceback.tb_frame.f_code.co_filename != target:
        traceback = traceback.tb_next
    # none of the script's frames (a SyntaxError in it): python prints the error
    # alone
    exc.with_traceback(traceback)
    sys.excepthook(type(exc), exc, exc.__traceback__)


def _main(argv: list[str] | None = None) -> None:
    """``python -m unitensor.memory``: configure, then run the script."""
    try:
        kwargs, command, verbose = _parse_launcher(
            sys.argv[1:] if argv is None else argv)
        done = configure(**kwargs)  # type: ignore[arg-type]
    except _UsageError as exc:
        print(f"{_USAGE}\npython -m unitensor.memory: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except (TypeError, ValueError, TooLateError) as exc:
        print(f"python -m unitensor.memory: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if verbose:
        for name, actions in done.items():
            print(f"unitensor.memory: {name}: {'; '.join(actions)}", file=sys.stderr)
    _run(command)


if __name__ == "__main__":
    # Run as the package's module, not as this __main__ copy, so that the script
    # sees one unitensor.memory (one set of pending settings, one TooLateError).
    from unitensor.memory import _main as main
    main()
