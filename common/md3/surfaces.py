"""The MD3 surfaces one imported mesh stands for (:mod:`.contract`), read by index.

A mesh made for one surface holds that surface's records; a mesh made with *Merge Surfaces* holds the
records of every surface of its file, one after the other in file order (``MD3_SURFACE``: one 108-byte
header per surface; ``MD3_SHADERS``, ``MD3_ST``, ``MD3_XYZ_NORMALS``: each surface's block, of the
sizes its header gives), its vertices surface after surface (surface s owns the ``numVerts`` vertices
after the previous surfaces'), its faces surface after surface with material slot (``material_index``)
s for surface s, and its degenerate triangles numbered in that merged order (triangle index and vertex
indexes offset by the previous surfaces' counts). Nothing here reads a Blender name.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from ...formats.md3.records import SHADER, ST, SURFACE, XYZ_NORMAL
from ..contract import DEGENERATE_MD3
from ..stored_records import stored_bytes
from .contract import MD3_DEGENERATE, MD3_SHADERS, MD3_ST, MD3_SURFACE, MD3_XYZ_NORMALS


@dataclass
class SurfaceRecords:
    """One surface's records as kept, and where its vertices and triangles lie in the mesh."""
    index: int                 # its place among the mesh's surfaces (its material slot when merged)
    header: bytes              # the SURFACE record
    shaders: bytes | None      # its SHADER records (None: not kept)
    st: bytes | None
    xyz_normals: bytes | None
    first_vertex: int          # mesh vertex of its vertex 0
    first_triangle: int        # merged triangle number of its triangle 0
    degenerate: np.ndarray     # DEGENERATE_MD3 rows in its own numbering

    @property
    def record(self) -> np.void:
        return np.frombuffer(self.header, SURFACE)[0]

    @property
    def num_verts(self) -> int:
        return int(self.record["num_verts"])

    @property
    def num_triangles(self) -> int:
        return int(self.record["num_triangles"])

    @property
    def vertices(self) -> range:
        return range(self.first_vertex, self.first_vertex + self.num_verts)


def surface_count(mesh) -> int:
    """How many surfaces' headers the mesh keeps (0: none, a mesh made in Blender)."""
    header = stored_bytes(mesh, MD3_SURFACE)
    return len(header) // SURFACE.itemsize if header and len(header) % SURFACE.itemsize == 0 else 0


def mesh_surfaces(mesh) -> list[SurfaceRecords]:
    """The surfaces ``mesh`` keeps, in file order: one for a mesh made per surface (its blobs as they
    are), every one of a merged mesh (the blobs cut by the headers' counts); [] when there are none or
    a merged mesh's blobs do not add up to its headers."""
    count = surface_count(mesh)
    if not count:
        return []
    header = stored_bytes(mesh, MD3_SURFACE) or b""          # (count > 0: kept)
    blobs = [stored_bytes(mesh, key) for key in (MD3_SHADERS, MD3_ST, MD3_XYZ_NORMALS)]
    heads = np.frombuffer(header, SURFACE)
    degenerate = stored_bytes(mesh, MD3_DEGENERATE) or b""
    rows = np.frombuffer(degenerate, DEGENERATE_MD3) if len(degenerate) % DEGENERATE_MD3.itemsize == 0 \
        else np.zeros(0, DEGENERATE_MD3)
    if count == 1:
        return [SurfaceRecords(0, header, blobs[0], blobs[1], blobs[2], 0, 0, rows)]
    sizes = np.stack([heads["num_shaders"] * SHADER.itemsize, heads["num_verts"] * ST.itemsize,
                      heads["num_frames"] * heads["num_verts"] * XYZ_NORMAL.itemsize], axis=1).astype(np.int64)
    if (sizes < 0).any() or any(b is None or len(b) != int(s) for b, s in zip(blobs, sizes.sum(axis=0))):
        return []
    ends = np.cumsum(sizes, axis=0)
    vertex_ends = np.cumsum(heads["num_verts"].astype(np.int64))
    triangle_ends = np.cumsum(heads["num_triangles"].astype(np.int64))
    out = []
    for s in range(count):
        first_vertex = int(vertex_ends[s] - heads["num_verts"][s])
        first_triangle = int(triangle_ends[s] - heads["num_triangles"][s])
        own = rows[(rows["index"] >= first_triangle) & (rows["index"] < triangle_ends[s])].copy()
        own["index"] -= first_triangle
        own["indexes"] -= first_vertex
        cut = [cast(bytes, blob)[int(end - size):int(end)] for blob, end, size in zip(blobs, ends[s], sizes[s])]
        out.append(SurfaceRecords(s, header[s * SURFACE.itemsize:(s + 1) * SURFACE.itemsize], cut[0], cut[1], cut[2],
                                  first_vertex, first_triangle, own))
    return out
