"""Levels of detail written back beside the model: ``x_1.md3`` and ``x_2.md3`` (the names ioquake3's
``R_RegisterMD3`` looks up, :func:`...formats.md3.lods.lod_names`).

An MD3 import with *Levels of Detail* makes each LOD file a model root of its own (``MD3_LOD`` 1 or 2,
common/md3/contract.py) parented to the root of ``x.md3`` and kept in a hidden collection
``<x> LODs``; that is the form the export reads: the LOD roots under the exported model's root. Each
is built like any model (:func:`.build.build_md3`, its own kept records, so an untouched LOD comes back
byte for byte), in its own frame (:func:`own_frame`: shown and standing alone while it is sampled).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import bpy

from ...common.contract import ARCHIVE_MEMBER, ARCHIVE_PATH, SOURCE_FILE
from ...common.md3.contract import MD3_LOD
from ...common.stored_records import stored_int
from ...formats.archives.archive import open_archive
from ...formats.errors import FormatError
from ...formats.md3.lods import lod_names
from ...formats.md3.records import MD3_MAX_LODS
from ...formats.report_lines import Message
from .build import BuildResult, Md3ExportOptions, build_md3
from .objects import is_root

# the parts of a player whose levels of detail were left out are one line (each part's own line below it)
LEFT_OUT_KIND = "levels of detail left out at import, none written for {n} model{s}"


def lod_roots(root: bpy.types.Object | None) -> dict[int, bpy.types.Object]:
    """LOD number (1 .. MD3_MAX_LODS - 1) -> the model root an import made for that file under ``root``
    (``root`` itself a LOD 0 root); the first by name where several claim one number."""
    if root is None or not is_root(root) or stored_int(root, MD3_LOD, 0) != 0:
        return {}
    out: dict[int, bpy.types.Object] = {}
    for child in sorted(root.children, key=lambda o: o.name):
        lod = stored_int(child, MD3_LOD, 0) if is_root(child) else 0
        if 0 < lod < MD3_MAX_LODS and lod not in out:
            out[lod] = child
    return dict(sorted(out.items()))


def _hierarchy(obj: bpy.types.Object) -> list[bpy.types.Object]:
    return [obj] + [o for child in obj.children for o in _hierarchy(child)]


@contextmanager
def own_frame(root: bpy.types.Object):
    """While inside: ``root``'s hierarchy enabled in the viewport (collections and objects) and ``root`` itself
    standing alone, unparented with its own transform, so Blender evaluates it (a hidden collection is not
    evaluated: its tags would keep the pose they had when it was hidden) and nothing above it moves it (an
    assembled player part rides its parent's tag; the export takes it in its root's frame all the same,
    and a root that stands still lets the sampling read its meshes and tags once instead of stepping every
    frame). Everything is as it was afterwards."""
    objects = _hierarchy(root)
    collections = {c for o in objects for c in o.users_collection}
    saved = ([(c, c.hide_viewport) for c in collections], [(o, o.hide_viewport) for o in objects])
    parent = (root.parent, root.parent_type, root.parent_bone, root.matrix_parent_inverse.copy())
    try:
        for item, _ in saved[0] + saved[1]:
            item.hide_viewport = False
        if parent[0] is not None:
            root.parent = None
        bpy.context.view_layer.update()          # matrix_world as it stands now, for what reads it unevaluated
        yield
    finally:
        if parent[0] is not None:
            root.parent, root.parent_type, root.parent_bone = parent[:3]
            root.matrix_parent_inverse = parent[3]
        for item, hidden in saved[0] + saved[1]:
            item.hide_viewport = hidden
        bpy.context.view_layer.update()


def left_out_lods(root: bpy.types.Object | None, file_name: str, folder: Path) -> list[str]:
    """A warning when ``root`` (a model an import made from ``x.md3``, loose or an archive member, without
    *Levels of Detail*) has no LOD roots while ``x_1.md3`` / ``x_2.md3`` lie beside the file it came from (in
    its folder, or in the archive's directory beside the member: only the directory is read): the export
    writes none, and any of those names already in the export's ``folder`` stay there, which the game draws
    at a distance (``R_RegisterMD3`` loads ``x_2``, ``x_1`` and ``x`` as one model)."""
    if root is None or not is_root(root) or stored_int(root, MD3_LOD, 0) != 0 or lod_roots(root):
        return []
    found, source = _lods_beside(root)
    if not found:
        return []
    try:
        here = {p.name.lower() for p in folder.iterdir() if p.is_file()}
    except OSError:
        here = set()
    stale = [n for n in lod_names(file_name)[1:] if n.lower() in here]
    return [Message(f"{file_name}: levels of detail {', '.join(found)} lie beside {source}, which this model was "
                    "imported from, but were not imported (import it with Levels of Detail to write them back): none "
                    "written" + (f"; the {', '.join(stale)} already in {folder} stay, and the game draws them at a "
                                 "distance (delete them, or write levels of detail)" if stale else ""),
                    LEFT_OUT_KIND, file_name)]


def _lods_beside(root: bpy.types.Object) -> tuple[list[str], str]:
    """(the LOD file names beside the file ``root`` was imported from, that file as the report names it): a
    loose file's folder is listed, an archive's directory (never its members' bytes)."""
    source = root.get(SOURCE_FILE)
    if isinstance(source, str) and source:
        source_path = Path(source)
        try:
            beside = {p.name.lower(): p.name for p in source_path.parent.iterdir() if p.is_file()}
        except OSError:
            return [], ""
        return [beside[n.lower()] for n in lod_names(source_path.name)[1:] if n.lower() in beside], source_path.name
    archive_path, member = root.get(ARCHIVE_PATH), root.get(ARCHIVE_MEMBER)
    if not (isinstance(archive_path, str) and archive_path and isinstance(member, str) and member):
        return [], ""
    folder, _, name = member.replace("\\", "/").rpartition("/")
    try:
        with open_archive(archive_path) as archive:
            found = [archive.find(f"{folder}/{n}" if folder else n) for n in lod_names(name)[1:]]
    except (FormatError, OSError):
        return [], ""
    return ([m.name.replace("\\", "/").rpartition("/")[2] for m in found if m is not None],
            f"{member} in {Path(archive_path).name}")


def build_lods(context: bpy.types.Context, root: bpy.types.Object | None, file_name: str,
               options: Md3ExportOptions) -> dict[str, BuildResult]:
    """File name (beside ``file_name``) -> the build of each LOD under ``root``, in the LOD root's frame."""
    names = lod_names(file_name)
    folder = options.model_name.rpartition("/")[0]
    out = {}
    for lod, lod_root in lod_roots(root).items():
        lod_options = replace(options, model_name=f"{folder}/{names[lod]}" if folder else names[lod])
        with own_frame(lod_root):
            out[names[lod]] = build_md3(context, [lod_root], lod_options)
    return out
