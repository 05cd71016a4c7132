"""Faces of an MDL that Quake draws black: painted in the colour its load fills from each skin's
top-left texel (:mod:`...formats.images.corner_fill`, ironwail ``gl_model.c`` ``Mod_FloodFillSkin``
on every skin image, groups' frames too). Hexen II's loader is not checked here (RAPO: no line)."""
from __future__ import annotations

from ..images.corner_fill import QUAKE, corner_hits, corner_note
from .codec import MdlModel
from .texcoords import sampled_texels
from .variants import RAPO


def corner_fill_note(model: MdlModel) -> list[str]:
    """One warning line when faces are painted in a skin's filled corner region, else none."""
    if model.variant == RAPO or not len(model.triangles):
        return []
    skins = [(f"{number}" if len(skin.images) == 1 else f"{number} image {frame}", image)
             for number, skin in enumerate(model.skins) for frame, image in enumerate(skin.images)]
    texels = sampled_texels(model.onseam, model.s, model.t, model.triangles, model.facesfront, model.skin_width)
    return corner_note(corner_hits(skins, texels), len(model.triangles), QUAKE)
