"""A framework-independent device: a kind ('cpu', 'cuda', ...) and an index."""

from __future__ import annotations

from typing import Final

from ._errors import arg_error, describe

# DLPack device type code -> name: the one table of device kinds.
DEVICE_TYPES: Final[dict[int, str]] = {
    1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan", 8: "metal",
    9: "vpi", 10: "rocm", 11: "rocm_host", 12: "ext_dev", 13: "cuda_managed",
    14: "oneapi", 15: "webgpu", 16: "hexagon", 17: "maia",
}
_CODES: Final = {name: code for code, name in DEVICE_TYPES.items()}
# Device types whose memory the CPU can read directly.
CPU_READABLE: Final = frozenset({1, 3, 11, 13})


class Device:
    """Where memory lives. Prints like ``cpu`` or ``cuda:0``."""

    __slots__ = ("kind", "index")

    def __init__(self, kind: str, index: int = 0) -> None:
        if kind not in _CODES:
            raise arg_error(ValueError, "Device", "kind",
                            f"one of {sorted(_CODES)}", describe(kind))
        self.kind: Final = kind
        self.index: Final = index

    @classmethod
    def from_dlpack(cls, device: tuple[int, int]) -> Device:
        code, index = device
        # CPU memory has one device; DLPack producers disagree on its index.
        return CPU if code == 1 else cls(DEVICE_TYPES[code], index)

    @property
    def dlpack(self) -> tuple[int, int]:
        return (_CODES[self.kind], self.index)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Device) and self.kind == other.kind
                and self.index == other.index)

    def __hash__(self) -> int:
        return hash((self.kind, self.index))

    def __str__(self) -> str:
        return "cpu" if self.kind == "cpu" else f"{self.kind}:{self.index}"

    def __repr__(self) -> str:
        return f"Device('{self}')"


CPU: Final = Device("cpu")


def parse(device: object, func: str) -> Device:
    """Accept a Device, 'cpu', 'cuda', 'cuda:1', or a framework's device object."""
    if isinstance(device, Device):
        return device
    text = device if isinstance(device, str) else None
    if text is None and type(device).__module__.split(".")[0] in (
            "torch", "jaxlib", "jax", "cupy"):
        text = _framework_device_text(device)
    if text is not None:
        kind, _, index = text.lower().partition(":")
        if kind in _CODES and (index == "" or index.isdigit()):
            return CPU if kind == "cpu" else Device(kind, int(index or 0))
    raise arg_error(ValueError, func, "device",
                    "a unitensor Device, 'cpu', 'cuda' or 'cuda:N', or a "
                    "framework's device object", describe(device))


def _framework_device_text(device: object) -> str | None:
    platform = getattr(device, "platform", None)  # jax devices
    if platform is not None:
        return f"{'cuda' if platform == 'gpu' else platform}:{device.id}"
    kind = getattr(device, "type", None)  # torch.device
    if isinstance(kind, str):
        index = getattr(device, "index", None)
        return kind if index is None else f"{kind}:{index}"
    ident = getattr(device, "id", None)  # cupy.cuda.Device
    return None if ident is None else f"cuda:{ident}"
