"""Types of unitensor._xla (ext/_xla.c): the XLA FFI handler of ``jax.jit`` calls.

Kept in step with ext/_xla.c by hand: its PyMethodDef and PyGetSetDef tables
are the source of truth.
"""

from typing import Any, Final, final

#: the handler's address, as jax.ffi.register_ffi_target takes it (a capsule)
handler: Final[Any]
#: the XLA FFI API version the handler reports (ext/xla_ffi.h)
API_MAJOR: Final[int]
API_MINOR: Final[int]

def calls() -> int:
    """How many bridged calls the handler has run (its execute stage)."""

def fills() -> int:
    """How many results Lent.fill has written."""

def snapshot(lents: tuple[Lent, ...], /) -> bytes:
    """The bytes of the arguments ``lents``, one after another."""

def lend(lents: tuple[Lent, ...], type: type, /) -> list[Any]:
    """An array of ``type``'s framework over each argument, through its DLPack
    C exchange API.
    """

def fill(outs: tuple[Lent, ...], ys: list[Any], type: type, most: int, /) -> bool:
    """Write each result from ``ys`` in C where all are compact CPU arrays of
    exactly ``type``, of the results' dtypes and shapes and of fewer than
    ``most`` elements; False (nothing refused) where one is not.
    """

def held(lents: tuple[Lent, ...], /) -> int:
    """The index of the first argument still held besides ``lents``, or -1."""

def restore(lents: tuple[Lent, ...], snapshot: bytes, /) -> int:
    """Set back every argument whose bytes changed since ``snapshot(lents)``;
    the index of the first, or -1.
    """

@final
class Lent:
    """A buffer XLA lends to a bridged call, for that call only."""

    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def writeable(self) -> bool: ...
    @property
    def expired(self) -> bool: ...
    @property
    def address(self) -> int:
        """The buffer's address, while the call runs."""
    def zero(self) -> None:
        """Set this result's bytes to zero."""
    def __dlpack__(self, *, stream: Any = None,
                   max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None,
                   copy: bool | None = None) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...
    def fill(self, address: int, nbytes: int, /) -> None:
        """Copy ``nbytes`` at ``address`` into this result (its whole size)."""
