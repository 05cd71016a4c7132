"""What an MD3 model holds beyond the engine's limits, as lines for people (one line per kind of
problem, with a count).

:func:`limit_problems` checks the format's limits of ioquake3 ``qfiles.h`` (``MD3_MAX_FRAMES`` ...):
the exporter refuses to write a model that breaks one. :func:`renderer_problems` checks what
renderergl1 ``R_LoadMD3`` refuses (a surface of ``SHADER_MAX_VERTEXES`` vertices or more, or
``SHADER_MAX_INDEXES`` indexes or more). The reader reports both as warnings, never refuses a file
for them, and adds non-finite floats.
"""
from __future__ import annotations

import numpy as np

from ..report_lines import over_limit, parts_over
from .records import (
    MD3_MAX_FRAMES,
    MD3_MAX_SHADERS,
    MD3_MAX_SURFACES,
    MD3_MAX_TAGS,
    MD3_MAX_TRIANGLES,
    MD3_MAX_VERTS,
    SHADER_MAX_INDEXES,
    SHADER_MAX_VERTEXES,
    Md3Model,
)


def _surfaces_over(counts: list[int], what: str, limit: int, name: str) -> list[str]:
    return parts_over(counts, ("surface", "surfaces"), what, limit, name)


def limit_problems(model: Md3Model) -> list[str]:
    """The qfiles.h limits ``model`` breaks: frames, tags, surfaces per model; shaders, vertices,
    triangles per surface."""
    surfaces = model.surfaces
    return (over_limit(model.num_frames, "frames", MD3_MAX_FRAMES, "MD3_MAX_FRAMES")
            + over_limit(model.num_tags, "tags", MD3_MAX_TAGS, "MD3_MAX_TAGS")
            + over_limit(len(surfaces), "surfaces", MD3_MAX_SURFACES, "MD3_MAX_SURFACES")
            + _surfaces_over([len(s.shaders) for s in surfaces], "shaders", MD3_MAX_SHADERS, "MD3_MAX_SHADERS")
            + _surfaces_over([s.num_verts for s in surfaces], "vertices", MD3_MAX_VERTS, "MD3_MAX_VERTS")
            + _surfaces_over([len(s.triangles) for s in surfaces], "triangles", MD3_MAX_TRIANGLES,
                             "MD3_MAX_TRIANGLES"))


def renderer_problems(model: Md3Model) -> list[str]:
    """Surfaces ioquake3's renderergl1 refuses to load (``R_LoadMD3``: numVerts >= SHADER_MAX_VERTEXES,
    numTriangles * 3 >= SHADER_MAX_INDEXES): the whole model then fails to load in that renderer."""
    verts = [s.num_verts for s in model.surfaces if s.num_verts >= SHADER_MAX_VERTEXES]
    tris = [len(s.triangles) for s in model.surfaces if len(s.triangles) * 3 >= SHADER_MAX_INDEXES]
    out = []
    if verts:
        out.append(f"{len(verts)} surface{'s' if len(verts) > 1 else ''} with {SHADER_MAX_VERTEXES} vertices or "
                   f"more (the largest has {max(verts)}): ioquake3's renderer refuses the model (SHADER_MAX_VERTEXES)")
    if tris:
        out.append(f"{len(tris)} surface{'s' if len(tris) > 1 else ''} with {SHADER_MAX_INDEXES // 3} triangles or "
                   f"more (the largest has {max(tris)}): ioquake3's renderer refuses the model (SHADER_MAX_INDEXES)")
    return out


def _non_finite(model: Md3Model) -> list[str]:
    out = []
    frames = int(np.count_nonzero(~np.isfinite(model.frame_bounds).all(axis=(1, 2))
                                  | ~np.isfinite(model.frame_origin).all(axis=1) | ~np.isfinite(model.frame_radius)))
    if frames:
        out.append(f"{frames} frame{'s' if frames > 1 else ''} with non-finite bounds, origin or radius")
    tags = int(np.count_nonzero(~np.isfinite(model.tag_origin).all(axis=-1)
                                | ~np.isfinite(model.tag_axis).all(axis=(-1, -2))))
    if tags:
        out.append(f"{tags} tag position{'s' if tags > 1 else ''} (tag x frame) with non-finite origin or axis")
    st = sum(int(np.count_nonzero(~np.isfinite(s.st).all(axis=1))) for s in model.surfaces)
    if st:
        out.append(f"{st} texture coordinate{'s' if st > 1 else ''} not finite")
    return out


def read_warnings(model: Md3Model) -> list[str]:
    """What the reader reports about a model it reads whole: limits, renderer limits, non-finite floats."""
    return limit_problems(model) + renderer_problems(model) + _non_finite(model)
