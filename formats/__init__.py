"""Binary codecs for classic game model formats, free of Blender.

Each module parses bytes into dataclasses of numpy arrays and serializes them back:
``md2`` (Quake II), ``pcx`` (8/24-bit PCX skins), ``anorms`` (the shared normal table).
Everything raises :class:`FormatError` on bad input and nothing else.
"""
from .errors import FormatError

__all__ = ["FormatError"]
