"""An imported IQM written back with its file's own bytes (``common/contract.py`` ``# IQM``).

The import keeps the ``.iqm`` bytes on the model's root (``IQM_SOURCE``) and a digest of everything it
built (``IQM_DIGEST``, :mod:`...common.iqm.digest`). An export whose objects are that model (the root,
its meshes, or both; no other object) while the digest computed again equals the stored one is the
untouched import: those bytes are the file, and the ``.iqm.framegroups`` the import read
(``IQM_FRAMEGROUPS``) is written beside it again. Anything else (an edit anywhere, another object, a
model made in Blender) is built from Blender by ``build.py``, given the stored model decoded
(:func:`kept_model`) so that it can keep what Blender does not hold.
"""
from __future__ import annotations

from dataclasses import dataclass

import bpy

from ...common.iqm.contract import IQM_DIGEST, IQM_FRAMEGROUPS, IQM_SOURCE
from ...common.iqm.digest import scene_digest
from ...common.stored_records import stored_bytes
from ...formats.errors import FormatError
from ...formats.iqm.codec import read_iqm
from ...formats.iqm.records import IqmModel


@dataclass
class Untouched:
    """The files an untouched import writes: the ``.iqm`` bytes and the ``.framegroups`` (None: none)."""
    data: bytes
    framegroups: bytes | None


def model_root(obj: bpy.types.Object) -> bpy.types.Object | None:
    """The imported IQM's root ``obj`` belongs to: itself, its parent, or the armature its Armature
    modifier names, whichever keeps the file's bytes; None for an object of no imported IQM."""
    candidates = [obj, obj.parent] + [m.object for m in getattr(obj, "modifiers", ()) if m.type == "ARMATURE"]
    return next((c for c in candidates if c is not None and stored_bytes(c, IQM_SOURCE) is not None), None)


def find_root(objects: list[bpy.types.Object]) -> bpy.types.Object | None:
    """The one imported IQM root every exported object belongs to, else None (a model made in Blender,
    or objects of several models or none)."""
    roots = {id(r): r for r in (model_root(o) for o in objects)}
    if len(roots) != 1 or None in roots.values():
        return None
    return next(iter(roots.values()))


def kept_model(root: bpy.types.Object | None) -> IqmModel | None:
    """The model the import of ``root`` read, decoded from its stored bytes (None: no root, or bytes a
    script replaced with something that is no IQM)."""
    data = stored_bytes(root, IQM_SOURCE) if root is not None else None
    if data is None:
        return None
    try:
        return read_iqm(data)
    except FormatError:
        return None


def untouched(root: bpy.types.Object | None, objects: list[bpy.types.Object]) -> Untouched | None:
    """The stored files when ``objects`` are the whole imported model under ``root`` as the import left
    it (module docstring), else None."""
    data = stored_bytes(root, IQM_SOURCE) if root is not None else None
    if data is None or not isinstance(root.get(IQM_DIGEST), str):
        return None
    meshes = {o.as_pointer() for o in root.children if o.type == "MESH"}
    exported = {o.as_pointer() for o in objects if o.type == "MESH"}
    if exported and exported != meshes:
        return None
    if scene_digest(root) != root[IQM_DIGEST]:
        return None
    return Untouched(data, stored_bytes(root, IQM_FRAMEGROUPS))
