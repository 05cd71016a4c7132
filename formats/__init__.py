"""Binary codecs for classic game model formats, free of Blender.

Grouped by format: ``md2/``, ``mdl/``, ``ms3d/`` (each with its ``codec``), ``archives/`` (pak, pk3,
the game folder), ``images/`` (PCX, palettes, PNG/TGA, skin atlas); what several formats share stays
here (``anorms``, ``animations``, ``binary``, ``errors``, ``quantize``, ``triangles``, ``atomic_file``).
Codecs parse bytes into dataclasses of numpy arrays and serialize them back.
Everything raises :class:`FormatError` on bad input and nothing else.
"""
from .errors import FormatError

__all__ = ["FormatError"]
