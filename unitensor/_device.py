"""A framework-independent device: a kind ('cpu', 'cuda', ...) and an index.

The rule: this module knows DLPack's device types and unitensor's own spellings
of a device (a ``Device``, 'cpu', 'cuda:1'), never a framework's: a framework's
device object is read by that framework's adapter, which the callers ask
through the registry (``_backends.parse_device``).
"""

from __future__ import annotations

from typing import Final

from ._errors import arg_error, describe

# DLPack device type codes (DLDeviceType, ext/dlpack.h) that the code names.
KDL_CPU: Final = 1
KDL_CUDA: Final = 2
KDL_CUDA_HOST: Final = 3
KDL_ROCM_HOST: Final = 11
KDL_CUDA_MANAGED: Final = 13

# DLPack device type code -> name: the one table of device kinds.
DEVICE_TYPES: Final[dict[int, str]] = {
    KDL_CPU: "cpu", KDL_CUDA: "cuda", KDL_CUDA_HOST: "cuda_host", 4: "opencl",
    7: "vulkan", 8: "metal", 9: "vpi", 10: "rocm", KDL_ROCM_HOST: "rocm_host",
    12: "ext_dev", KDL_CUDA_MANAGED: "cuda_managed", 14: "oneapi", 15: "webgpu",
    16: "hexagon", 17: "maia",
}
_CODES: Final = {name: code for code, name in DEVICE_TYPES.items()}
# Device types whose memory the CPU can read directly.
CPU_READABLE: Final = frozenset({KDL_CPU, KDL_CUDA_HOST, KDL_ROCM_HOST,
                                 KDL_CUDA_MANAGED})
# Device types whose memory CUDA kernels can read directly.
CUDA_READABLE: Final = frozenset({KDL_CUDA, KDL_CUDA_MANAGED})


class Device:
    """Where memory lives, and which framework made the arrays there.

    Prints like ``cpu`` or ``cuda:0``; compares equal by kind and index alone.
    A Tensor's ``device`` also carries its ``owner``, so that arrays created with
    ``device=x.device`` (the standard's way to create "where x is") belong to
    ``x``'s framework: ``ut.zeros(3, device=torch_tensor.device)`` is torch's.

    Parameters
    ----------
    kind : str
        A DLPack device kind: 'cpu', 'cuda', 'cuda_host', 'rocm', ...
    index : int, optional
        The device's index among its kind.
    owner : str, optional
        The framework whose arrays live there: creation functions given this
        device make that framework's arrays.

    Attributes
    ----------
    kind : str
        The device kind.
    index : int
        The device's index.
    owner : str or None
        The framework it was taken from (a Tensor's, an inspection answer's).
    """

    __slots__ = ("index", "kind", "owner")

    def __init__(self, kind: str, index: int = 0, *, owner: str | None = None) -> None:
        if kind not in _CODES:
            raise arg_error(ValueError, "Device", "kind",
                            f"one of {sorted(_CODES)}", describe(kind))
        self.kind: Final = kind
        self.index: Final = index
        self.owner: Final = owner

    def owned_by(self, owner: str) -> Device:
        """Give the same device, as ``owner``'s.

        Parameters
        ----------
        owner : str
            The framework whose arrays live there.

        Returns
        -------
        Device
            Equal to this one; one object per kind, index and owner.
        """
        key = (self.kind, self.index, owner)
        device = _OWNED.get(key)
        if device is None:
            device = _OWNED[key] = Device(self.kind, self.index, owner=owner)
        return device

    @classmethod
    def from_dlpack(cls, device: tuple[int, int]) -> Device:
        """Make the Device a DLPack ``(device_type, device_id)`` pair names.

        Parameters
        ----------
        device : tuple of int
            What ``__dlpack_device__()`` returns.

        Returns
        -------
        Device
            The CPU for every CPU pair (producers disagree on its index).
        """
        code, index = device
        # CPU memory has one device; DLPack producers disagree on its index.
        return CPU if code == KDL_CPU else cls(DEVICE_TYPES[code], index)

    @property
    def dlpack(self) -> tuple[int, int]:
        """The DLPack ``(device_type, device_id)`` pair of this device."""
        return (_CODES[self.kind], self.index)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Device) and self.kind == other.kind
                and self.index == other.index)

    def __hash__(self) -> int:
        return hash((self.kind, self.index))

    def __str__(self) -> str:
        return "cpu" if self.kind == "cpu" else f"{self.kind}:{self.index}"

    def __repr__(self) -> str:
        owner = "" if self.owner is None else f", owner={self.owner!r}"
        return f"Device('{self}'{owner})"


_OWNED: dict[tuple[str, int, str], Device] = {}


CPU: Final = Device("cpu")


def parse(device: object, func: str) -> Device:
    """Accept a Device, 'cpu', 'cuda' or 'cuda:1'; refuse anything else (a
    framework's device object reaches here only where its adapter did not read
    it: ``_backends.parse_device``).
    """
    if isinstance(device, Device):
        return device
    if isinstance(device, str):
        kind, _, index = device.lower().partition(":")
        if kind in _CODES and (index == "" or index.isdigit()):
            if kind != "cpu":
                return Device(kind, int(index or 0))
            if int(index or 0) == 0:  # one CPU: 'cpu:7' names none
                return CPU
    raise arg_error(ValueError, func, "device",
                    "a unitensor Device, 'cpu', 'cuda' or 'cuda:N', or a "
                    "framework's device object", describe(device))
