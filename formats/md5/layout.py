"""The file names of the re-releases' enhanced-model layouts (bpy-free; docs/dev/format-facts.md, "MD5").

- Quake re-release (ironwail ``Quake/gl_model.c`` ``Mod_LoadMD5MeshModel``, ``Quake/image.c``
  ``Image_LoadImage``): skin ``s`` frame ``f`` of a mesh block is ``progs/<shader>_<s:02>_<f:02>`` with the
  first of :data:`QUAKE_SKIN_EXTENSIONS` found; a truecolour one may have ``<name>_glow`` or ``_luma``.
- Quake II remaster (Q2PRO ``src/refresh/models.c`` ``MD5_LoadSkins``): an MD2 skin name with ``md5/``
  put before its file name.
"""
from __future__ import annotations

QUAKE_SKIN_EXTENSIONS = (".png", ".tga", ".jpg", ".pcx", ".lmp")      # Image_LoadImage's order


def quake_skin_stem(shader: str, skin: int, frame: int) -> str:
    """``<shader>_<skin:02>_<frame:02>``, the name before the extension (``progs/%s_%02u_%02u``)."""
    return f"{shader}_{skin:02d}_{frame:02d}"


def md5_skin_name(stored: str) -> str:
    """``models/x/skin.pcx`` -> ``models/x/md5/skin.pcx`` (Q2PRO ``MD5_LoadSkins``)."""
    folder, _, base = stored.replace("\\", "/").rpartition("/")
    return f"{folder}/md5/{base}" if folder else f"md5/{base}"
