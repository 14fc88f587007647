"""``ut.wrap``: bridges between frameworks (see ``_bridge``)."""

from ._bridge import wrap

__all__ = ["wrap"]
