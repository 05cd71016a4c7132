"""Which Blender objects make the MD3: its surfaces (mesh objects), its tags (empties) and the model root.

* A model root is the empty an MD3 import made for its file (``MD3_ROOT``, :mod:`...common.contract`),
  else the top parent the exported objects share when it is an empty that is not a tag (a rig's
  armature is not a root: its bones move tags). Exporting an empty that is not a tag (a root) exports
  every mesh and empty under it, up to another model's root.
* Surfaces: the mesh objects, the imported ones in their file order (``MD3_SURFACE_INDEX``), then the
  others by name (the selection has no order of its own).
* Tags: the empties an import made for tags (``MD3_TAG_INDEX``), in file order, then every other empty
  named ``tag_*`` (Quake III's convention: ``tag_weapon``, ``tag_torso``, ``tag_head``, ``tag_floor``),
  by name. Other empties (helpers, the root) are not tags.
* Names: an imported surface or tag keeps the name its file gave it (the 64-byte field as read) while
  the object keeps the name the import made (Blender may have added ``.001`` to a name a file used
  twice); a renamed object's new name is written.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import bpy

from ...common.contract import MD3_ROOT, MD3_TAG_INDEX
from ...common.generated_names import is_made
from ...common.md3.contract import MD3_SURFACE_INDEX, MD3_TAG_NAME
from ...common.md3.surfaces import SurfaceRecords, mesh_surfaces, surface_count
from ...common.stored_records import stored_bytes, stored_int
from ...formats.binary import decode_name
from ...formats.md3.records import SURFACE

TAG_PREFIX = "tag_"


@dataclass
class Md3Objects:
    root: bpy.types.Object | None       # the model root (imported or the shared top empty), if any
    meshes: list[bpy.types.Object]      # in surface order
    tags: list[bpy.types.Object]        # in tag order
    ignored: list[str]                  # empties that are not tags (names, for the report)


def _descendants(obj: bpy.types.Object) -> list[bpy.types.Object]:
    """Everything under ``obj`` but another model's root and what hangs under it (an assembled Quake III
    player: upper.md3's root hangs on lower.md3's tag_torso)."""
    out = []
    for child in obj.children:
        if not is_root(child):
            out += [child] + _descendants(child)
    return out


def _top(obj: bpy.types.Object) -> bpy.types.Object:
    while obj.parent is not None:
        obj = obj.parent
    return obj


def is_root(obj: bpy.types.Object) -> bool:
    return obj.type == "EMPTY" and obj.get(MD3_ROOT) is not None


def _is_tag(obj: bpy.types.Object) -> bool:
    return obj.type == "EMPTY" and not is_root(obj) and (obj.get(MD3_TAG_INDEX) is not None
                                                          or obj.name.lower().startswith(TAG_PREFIX))


def collect(objects: list[bpy.types.Object]) -> Md3Objects:
    """The surfaces, tags and root among ``objects`` (a model root brings its children)."""
    chosen: list[bpy.types.Object] = []
    for obj in objects:
        for each in [obj] + (_descendants(obj) if obj.type == "EMPTY" and not _is_tag(obj) else []):
            if each not in chosen:
                chosen.append(each)
    roots = [o for o in chosen if is_root(o)]
    root = roots[0] if roots else None
    if root is None:
        tops = {_top(o) for o in chosen if o.type in ("MESH", "EMPTY")}
        top = tops.pop() if len(tops) == 1 else None
        if top is not None and top.type == "EMPTY" and not _is_tag(top):
            root = top
    meshes = [o for o in chosen if o.type == "MESH"]
    meshes.sort(key=lambda o: _file_order(o, MD3_SURFACE_INDEX))
    tags = [o for o in chosen if _is_tag(o)]
    tags.sort(key=lambda o: _file_order(o, MD3_TAG_INDEX))
    ignored = [o.name for o in chosen if o.type == "EMPTY" and o is not root and o not in tags]
    return Md3Objects(root, meshes, tags, ignored)


def _file_order(obj: bpy.types.Object, key: str) -> tuple[bool, int, str]:
    """Sort key: objects by the index the import recorded under ``key`` (in the file's order), then the
    others (made in Blender, or a record of another type) by name."""
    index = stored_int(obj, key, None)
    return index is None, index or 0, obj.name


def _kept_name(obj: bpy.types.Object, raw: bytes | None) -> str | None:
    """The name in the file's field while the object keeps the name the import gave it."""
    if not raw:
        return None
    name = decode_name(raw)
    if is_made(obj) or obj.name == name or re.fullmatch(re.escape(name) + r"\.\d{3,}", obj.name):
        return name
    return None


def tag_name(obj: bpy.types.Object) -> tuple[str, bytes | None]:
    """The tag's name and the 64-byte field it was read from (None for a new or renamed tag)."""
    raw = stored_bytes(obj, MD3_TAG_NAME)
    kept = _kept_name(obj, raw)
    return (kept, raw) if kept is not None else (obj.name, None)


def surface_name(obj: bpy.types.Object, records: SurfaceRecords | None = None) -> tuple[str, bytes | None]:
    """The surface's name and its 64-byte field as read (None for a surface made in Blender or renamed).
    A surface of a merged mesh (:mod:`...common.md3.surfaces`) keeps its file's name: the object's
    name is the model's, not the surface's."""
    if records is None:
        kept = mesh_surfaces(obj.data)
        records = kept[0] if len(kept) == 1 else None
    raw = None
    if records is not None:
        start, size = SURFACE.fields["name"][1], SURFACE.fields["name"][0].itemsize
        raw = records.header[start:start + size]
        if surface_count(obj.data) > 1:
            return decode_name(raw), raw
    kept = _kept_name(obj, raw)
    return (kept, raw) if kept is not None else (obj.name, None)
