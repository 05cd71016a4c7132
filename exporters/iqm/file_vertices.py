"""An IQM export's meshes found back in the imported file by index, numpy only.

An import makes Blender vertex ``v`` of a mesh object from the file's vertex ``first_vertex + v`` of
the mesh the object stores (``IQM_MESH_INDEX``); a merged object (``IQM_MERGED``) holds mesh s in
material slot s, its vertices after the previous meshes' (``importers/iqm/iqm_meshes.py``). So an
export mesh of such an object (its only slot, or slot s) is the file's mesh, found without a name
(:func:`file_meshes`).
"""
from __future__ import annotations

import numpy as np

from ...common.iqm.contract import IQM_MERGED, IQM_MESH_INDEX
from ...common.stored_records import stored_int
from ...formats.iqm.records import IqmModel


def file_meshes(slots: list, kept: IqmModel) -> list[tuple[int, int] | None]:
    """For each export mesh (object, material slot): (the file's mesh, what to add to a Blender vertex
    index to make it the file's vertex index) where the import made it, else None."""
    firsts = kept.meshes["first_vertex"].astype(np.int64)
    counts = kept.meshes["num_vertexes"].astype(np.int64)
    out: list[tuple[int, int] | None] = []
    for obj, slot in slots:
        merged = stored_int(obj, IQM_MERGED, 0)
        index = slot if merged else (stored_int(obj, IQM_MESH_INDEX, -1) if slot == 0 else -1)
        if not 0 <= index < (min(merged, len(kept.meshes)) if merged else len(kept.meshes)):
            out.append(None)
        else:
            out.append((index, int(firsts[index] - (counts[:index].sum() if merged else 0))))
    return out
