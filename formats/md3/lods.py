"""The file names of an MD3's levels of detail, as ioquake3 looks them up (renderergl1 tr_model.c
``R_RegisterMD3``): the name is cut at its first '.', and LOD ``n`` (1 .. MD3_MAX_LODS - 1) is
``<stem>_<n>.<extension>`` (``models/players/major/lower.md3`` -> ``lower_1.md3``, ``lower_2.md3``).
The engine tries the highest LOD first and stops at the first file that exists but fails to load; a
missing LOD takes the next better one's model.
"""
from __future__ import annotations

from .records import MD3_MAX_LODS


def lod_names(name: str) -> list[str]:
    """[name of LOD 0 (``name`` itself), LOD 1, LOD 2] as the engine builds them."""
    stem, dot, extension = name.partition(".")
    extension = extension if dot else "md3"
    return [name] + [f"{stem}_{lod}.{extension}" for lod in range(1, MD3_MAX_LODS)]
