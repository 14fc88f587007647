"""The inspection API: what the current owner supports, in unitensor's terms.

The answers are the owner's own (``__array_namespace_info__`` of its namespace),
with dtypes and devices translated, so they describe what ``unitensor`` calls
will actually produce: the owner forced by ``unitensor.owner()``, else the
default owner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _backends, _dispatch
from ._device import Device
from ._dtypes import DType

if TYPE_CHECKING:
    from ._backends._adapter import Adapter


class Info:
    """The object ``__array_namespace_info__()`` returns.

    Its answers are the owner's, with dtypes and devices in unitensor's terms.
    """

    __slots__ = ("_backend", "_info")

    def __init__(self, backend: Adapter) -> None:
        self._backend = backend
        # the adapter's fix where the owner's defaults are unitensor's own (torch)
        made = backend.FIXES.get("__array_namespace_info__")
        self._info = (made or backend.namespace().__array_namespace_info__)()

    def capabilities(self) -> dict[str, Any]:
        """Give the optional features the owner supports.

        Returns
        -------
        dict
            The standard's keys ('boolean indexing', 'data-dependent shapes',
            'max dimensions'), with the owner's answers.
        """
        return dict(self._info.capabilities())

    def default_device(self) -> Device:
        """Give the device the owner creates arrays on.

        Returns
        -------
        Device
            The owner's default device.
        """
        native = self._info.default_device()
        return self._backend.device_from_native(native).owned_by(self._backend.NAME)

    def devices(self) -> tuple[Device, ...]:
        """Give the devices the owner can hold arrays on.

        Returns
        -------
        tuple of Device
            Each once (a tuple since 2025.12, a list before); devices that hold
            no memory (torch's 'meta') left out.
        """
        found = []
        for native in self._info.devices():
            try:
                device = self._backend.device_from_native(native)
                found.append(device.owned_by(self._backend.NAME))
            except ValueError:  # a device holding no memory, like torch's 'meta'
                continue
        return tuple(dict.fromkeys(found))  # strict's simulated devices are all cpu

    def default_dtypes(self, *, device: Any = None) -> dict[str, DType]:
        """Give the owner's default dtypes.

        Parameters
        ----------
        device : Device, str or a framework's device, optional
            The device asked about; the default device if None.

        Returns
        -------
        dict
            'real floating', 'complex floating', 'integral' and 'indexing' ->
            the DType the owner uses for each.
        """
        info = self._on(device)
        native = info._info.default_dtypes(device=info._device(device))
        return {kind: info._dtype(d) for kind, d in native.items()}

    def dtypes(self, *, device: Any = None,
               kind: str | tuple[str, ...] | None = None) -> dict[str, DType]:
        """Give the dtypes the owner supports.

        Parameters
        ----------
        device : Device, str or a framework's device, optional
            The device asked about; the default device if None.
        kind : str or tuple of str, optional
            Only dtypes of this kind (as :func:`unitensor.isdtype` names kinds).

        Returns
        -------
        dict
            Dtype name -> DType, for the standard's dtypes the owner has.
        """
        info = self._on(device)
        native = info._info.dtypes(device=info._device(device), kind=kind)
        found = {name: info._backend.dtype_from_native(d) for name, d in native.items()}
        return {name: d for name, d in found.items() if d is not None}

    def _on(self, device: Any) -> Info:
        """The answers for ``device``: a Tensor's device names its owner, whose
        defaults ``ut.zeros(..., device=device)`` would use (the creation rule).
        """
        if device is None:
            return self
        backend, _ = _dispatch._choose((), {"device": device})
        return self if backend is self._backend else Info(backend)

    def _device(self, device: Any) -> Any:
        # a str ('cpu', documented) or a framework's device object read as a
        # Device first: adapters take only Devices (jax's and TF's namespaces
        # take no str at all)
        if device is None:
            return None
        return self._backend.native_device(_backends.parse_device(device, "dtypes"))

    def _dtype(self, native: Any) -> DType:
        found = self._backend.dtype_from_native(native)
        if found is None:  # unreachable: every framework's defaults are in our table
            raise TypeError(f"default_dtypes(): {native!r} has no unitensor dtype")
        return found


def __array_namespace_info__() -> Info:
    """Give the inspection namespace of the owner calls here would run in.

    Returns
    -------
    Info
        Answers for the owner forced by :func:`unitensor.owner`, else the
        default owner.
    """
    backend, _ = _dispatch._choose((), {})
    return Info(backend)


__all__ = ["__array_namespace_info__"]
