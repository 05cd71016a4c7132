"""Quake ``.lmp`` pictures (``qpic_t``), the re-release's enhanced-model skins
``progs/<model>_<skin:02>_<frame:02>.lmp``.

Layout (little-endian; ironwail ``Quake/image.c`` ``lmpheader_t`` and ``Image_LoadLMP``)::

    uint32 width
    uint32 height
    width * height bytes   palette indices, row by row from the top (Quake's palette.lmp)

ironwail loads the picture only when the file is exactly ``8 + width * height`` bytes (``com_filesize !=
sizeof (qpic) + pix`` returns NULL) and looks it up after ``.png``, ``.tga``, ``.jpg`` and ``.pcx`` of
the same name (``Image_LoadImage``); its MD5 loader (``Quake/gl_model.c`` ``Mod_LoadMD5MeshModel``) makes
the indices above 223 a fullbright mask (:data:`~.palette.FULLBRIGHT_START`). FTE counts the skins by
the ``.lmp`` names that exist (``engine/common/com_mesh.c`` ``Mod_ParseMD5MeshModel``). The reader
refuses a file whose size disagrees with its header, as the engine does, before allocating anything.
"""
from __future__ import annotations

import numpy as np

from ..errors import FormatError

HEADER_SIZE = 8
MAX_SKIN_FRAMES = 4          # frames per skin the ports load (ironwail: countof(surf->gltextures[0]))
FRAME_SECONDS = 0.1          # they cycle a skin's frames ten times a second


def read_lmp(data: bytes) -> np.ndarray:
    """(height, width) uint8 palette indices of a ``.lmp`` picture."""
    data = bytes(data)
    if len(data) < HEADER_SIZE:
        raise FormatError(f"the file is {len(data)} bytes, shorter than the 8-byte width and height",
                          field="header", offset=0)
    width, height = (int(v) for v in np.frombuffer(data, "<u4", 2))
    expected = HEADER_SIZE + width * height
    if len(data) != expected:
        raise FormatError(f"{width} x {height} pixels need {expected} bytes, the file has {len(data)} "
                          "(Quake refuses a picture whose size disagrees)", field="pixels", offset=HEADER_SIZE)
    return np.frombuffer(data, np.uint8, width * height, HEADER_SIZE).reshape(height, width).copy()


def write_lmp(indices: np.ndarray) -> bytes:
    """The ``.lmp`` bytes of (height, width) palette indices."""
    indices = np.asarray(indices)
    if indices.ndim != 2 or indices.dtype != np.uint8:
        raise FormatError(f"pixels must be a (height, width) uint8 array, got {indices.dtype} {indices.shape}",
                          field="pixels")
    height, width = indices.shape
    if width == 0 or height == 0:
        raise FormatError(f"a picture of {width} x {height} pixels holds nothing", field="pixels")
    return np.array([width, height], "<u4").tobytes() + np.ascontiguousarray(indices).tobytes()


def skin_name(model: str, skin: int, frame: int = 0) -> str:
    """``progs/<model>_<skin:02>_<frame:02>.lmp`` as ironwail builds it (``progs/%s_%02u_%02u`` with the
    mesh's shader, the bare model name) and FTE (``%s_%02d_%02d.lmp`` beside the model)."""
    return f"progs/{model}_{skin:02d}_{frame:02d}.lmp"
