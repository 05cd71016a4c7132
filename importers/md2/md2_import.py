"""Quake II MD2 -> Blender: one mesh object per file, a shape key per frame, skins as materials.

Vertex i of the file is mesh vertex i and triangle i is polygon i, with the corner order reversed
(MD2 stores triangles clockwise seen from the front; docs/dev/format-facts.md, "Shared by MD2 and MDL"). UVs sit at texel
centres: ``u = (s + 0.5) / skinwidth``, ``v = 1 - (t + 0.5) / skinheight``.
The file's packed frames, ST table and GL commands are kept on the mesh (``md2_frames``,
``md2_st``, ``md2_glcmds``, corner attribute ``md2_st_index``) so an untouched export writes the
same data back (only junk bytes after the NUL of a name are not kept).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

import bpy

from ...common.file_counts import record_counts
from ...common.generated_names import mark_made
from ...common.import_shading import record_import_shading
from ...common.md2.contract import (
    DEGENERATE_MD2,
    MD2_DEGENERATE,
    MD2_FRAMES,
    MD2_GLCMDS,
    MD2_SCALE,
    MD2_SKIN,
    MD2_SKIN_FIELDS,
    MD2_SKIN_FOUND,
    MD2_SKINS,
    MD2_ST,
    MD2_TAIL,
    ST_INDEX_ATTRIBUTE,
)
from ...common.skin_images import has_holes, skin_material
from ...formats.animations import group_animations
from ...formats.anorms import anorms
from ...formats.archives.skin_lookup import unsafe_skin_name
from ...formats.errors import FormatError
from ...formats.images.palette import TRANSPARENT_INDEX, quake2_palette
from ...formats.md2.codec import Md2Model, frame_records, parse_md2
from ...formats.message_text import quoted
from ...formats.report_lines import Message, stored_base
from ..build_mesh import build_triangle_mesh, faced_triangles, set_custom_normals
from ..file_source import FoundFile, ModelSource, OwnFound, as_source, load_found_image, loose_file, remember_source
from ..frame_animation import play_frames_on_timeline
from ..results import ImportResult
from ..scene_timing import SceneTiming, plan_timing, timing_note
from ..transaction import datablock_transaction

MD2_FPS = 10


@dataclass
class Md2ImportOptions:
    scale: float = 1.0
    use_file_normals: bool = False
    load_skins: bool = True
    animations: str = "TIMELINE"     # or "ACTIONS": one shape-key action per animation
    load_weapons: bool = True        # with a Quake II player's tris.md2, the weapon models beside it
    exclude: tuple[str, ...] = ()    # files imported by the same call (not brought in again as weapons)
    skin_image: str = ""          # an image to show instead of the lookup's; empty = automatic
    pcx_colours: str = "FILE"     # 8-bit PCX: 'FILE' its own palette, 'GAME' Quake II's
    scene_timing: str = "AUTO"    # 'AUTO', 'SET' or 'KEEP': see scene_timing.py


def _player(source: ModelSource) -> bool:
    """A Quake II player's model: ``tris.md2``, its weapon models beside it."""
    return source.name.lower() == "tris.md2"


def _weapon(name: str) -> bool:
    """``weapon.md2`` and ``w_*.md2`` (lower-case names): the weapon models of a Quake II player's folder."""
    stem, _, ext = name.rpartition(".")
    return ext == "md2" and (stem == "weapon" or stem.startswith("w_"))


def read_md2(path: Path | ModelSource) -> Md2Model:
    source = as_source(path)
    try:
        return parse_md2(source.read())
    except FormatError as exc:
        raise exc.with_filename(source.where)


def md2_corner_uvs(model: Md2Model, tri_st: np.ndarray) -> np.ndarray:
    """(num_tris * 3, 2) UVs at texel centres for the given (already reordered) ST indices."""
    st = model.st[tri_st].reshape(-1, 2).astype(np.float64)
    u = (st[:, 0] + 0.5) / model.skin_width
    v = 1.0 - (st[:, 1] + 0.5) / model.skin_height
    return np.column_stack([u, v]).astype(np.float32)


def import_md2(context: bpy.types.Context, path: Path | ModelSource, options: Md2ImportOptions) -> ImportResult:
    """Read ``path`` (a file, or a :class:`..file_source.ModelSource` such as an archive member) and build
    its object in the active collection; all or nothing. A Quake II player's ``tris.md2`` also brings
    in the weapon models beside it, parented to the player."""
    source = as_source(path)
    model = read_md2(source)
    result = ImportResult()
    timing = plan_timing(context.scene, options.scene_timing)     # before the player makes the scene animated
    with datablock_transaction(context.scene):
        obj = _add_model(context, model, source, options, result, timing)
        weapons = source.siblings(_weapon, options.exclude) if options.load_weapons and _player(source) else []
        weapon_options = replace(options, skin_image="")     # the chosen image is the body's
        loaded = []
        for weapon_source in weapons:
            try:
                weapon = _add_model(context, read_md2(weapon_source), weapon_source, weapon_options, result, timing)
            except FormatError as exc:
                result.warnings.append(f"{source.label}: weapon model not loaded: {exc}")
                continue
            weapon.parent = obj
            loaded.append(weapon.name)
    if loaded:   # children of the player, left unselected: exporting the selection writes the body alone
        result.infos.append(f"{source.label}: weapon models {', '.join(loaded)} imported as children of "
                            f"{obj.name} (not selected)")
    if note := timing_note(source.label, timing, MD2_FPS):
        result.infos.append(note)
    result.objects.append(obj)
    return result


def _add_model(context: bpy.types.Context, model: Md2Model, source: ModelSource, options: Md2ImportOptions,
               result: ImportResult, timing: SceneTiming) -> bpy.types.Object:
    positions = model.positions()
    if options.scale != 1.0:
        positions *= np.float32(options.scale)
    obj = _build_object(model, source, positions[0], options, result)
    play_frames_on_timeline(context, obj, "MD2", model.frame_names, positions,
                            group_animations(model.frame_names), MD2_FPS, f"{source.stem}_frames",
                            timing, mode=options.animations)
    obj.classic_model.skin_width, obj.classic_model.skin_height = model.skin_width, model.skin_height
    remember_source(obj, source)
    context.view_layer.active_layer_collection.collection.objects.link(obj)
    return obj


def _build_object(model: Md2Model, source: ModelSource, first_frame: np.ndarray, options: Md2ImportOptions,
                  result: ImportResult) -> bpy.types.Object:
    keep = faced_triangles(source.label, model.tri_xyz, result.warnings)
    corners = model.tri_xyz[keep][:, ::-1]
    uvs = md2_corner_uvs(model, model.tri_st[keep][:, ::-1])
    mesh = build_triangle_mesh(source.stem, first_frame, corners, uvs)
    st_index = mesh.attributes.new(ST_INDEX_ATTRIBUTE, "INT", "CORNER")
    st_index.data.foreach_set("value", model.tri_st[keep][:, ::-1].astype(np.int32).ravel())
    mesh[MD2_ST] = np.ascontiguousarray(model.st, dtype="<i2").tobytes()
    if options.use_file_normals:
        set_custom_normals(mesh, anorms()[model.frame_normals[0]])
    record_import_shading(mesh)
    mesh[MD2_FRAMES] = frame_records(model).tobytes()
    record_counts(mesh, vertices=model.frame_verts.shape[1], triangles=len(model.tri_xyz),
                  frames=len(model.frame_names), skins=len(model.skins))
    mesh[MD2_GLCMDS] = np.asarray(model.glcmds, dtype="<i4").tobytes()
    mesh[MD2_SKINS] = list(model.skins)
    mesh[MD2_SKIN_FIELDS] = b"".join(model.skin_fields())
    mesh[MD2_SCALE] = options.scale
    if model.tail_record is not None:
        mesh[MD2_TAIL] = model.tail_record
    if not keep.all():
        kept = np.zeros(int((~keep).sum()), dtype=DEGENERATE_MD2)
        kept["index"], kept["xyz"], kept["st"] = np.flatnonzero(~keep), model.tri_xyz[~keep], model.tri_st[~keep]
        mesh[MD2_DEGENERATE] = kept.tobytes()
    obj = bpy.data.objects.new(source.stem, mesh)
    mark_made(obj)
    if options.load_skins:
        for material in _skin_materials(model, source, options, result):
            mesh.materials.append(material)
    return obj


def _skin_materials(model: Md2Model, source: ModelSource, options: Md2ImportOptions,
                    result: ImportResult) -> list[bpy.types.Material]:
    """One material per stored skin name; when none of them is found (or there are none), the
    model's own images beside it (:func:`find_own_skins`, then :func:`find_sized_skin`: looser names,
    only at the header's skin size) or the *Skin Image* option fill in.
    Materials for images the file does not name are flagged ``MD2_SKIN_FOUND`` (never exported).
    PCX index 255 is shown with alpha 0 and cut out by the material, as Quake II's GL renderer does
    (``ref_gl/gl_image.c`` GL_Upload8 gives it alpha 0; ``gl_rmisc.c`` GL_SetDefaultState alpha-tests)."""
    palette = quake2_palette() if options.pcx_colours == "GAME" else None
    named = list(dict.fromkeys(model.skins))
    lookups = [source.skin(skin) for skin in named]
    found = [lookup.file is not None for lookup in lookups]
    if options.skin_image:
        given = Path(bpy.path.abspath(options.skin_image))
        own = OwnFound([loose_file(given)], f"{given.name} given as Skin Image")
    else:
        own = None if any(found) else source.own_skins(model.skin_width, model.skin_height)
    for skin, lookup in zip(named, lookups):
        if lookup.warning and not (own is not None and lookup.file is None):
            result.warnings.append(_skin_warning(source, skin, lookup))
        if lookup.note and own is None:
            result.infos.append(f"{source.label}: {lookup.note}")
    images = []
    for skin, lookup in zip(named, lookups):
        images.append(_load(source, lookup.file, palette, result) if lookup.file is not None and own is None else None)
    extra = []
    if own is not None:
        loaded = [_load(source, f, palette, result) for f in own.files]
        missing = ("the file names no skin" if not named else "instead of the skins the file names" if any(found)
                   else f"the file names {', '.join(quoted(s) for s in named)}, not found")
        result.infos.append(f"{source.label}: skin {own.reason}; {missing}")
        images[:len(loaded)] = loaded[:len(images)]
        extra = loaded[len(images):]
    elif not any(found):
        result.infos.append(f"{source.label}: no skin image found "
                            f"({'the file names none' if not named else 'the names it stores are missing'} "
                            "and no image of its own lies beside it)")
    materials = []
    for skin, image in zip(named, images):
        material = skin_material(Path(skin.replace("\\", "/")).stem or "skin", image, has_holes(image))
        material[MD2_SKIN] = skin
        materials.append(material)
    for image in extra:
        material = skin_material(Path(image.name).stem if image is not None else "skin", image, has_holes(image))
        material[MD2_SKIN_FOUND] = True
        materials.append(material)
    return materials


def _load(source: ModelSource, image: FoundFile, palette, result: ImportResult) -> bpy.types.Image | None:
    try:
        return load_found_image(image, palette, TRANSPARENT_INDEX)
    except (FormatError, OSError) as exc:
        result.warnings.append(Message(f"{source.label}: skin {image.name} could not be loaded: {exc}",
                                       f"{source.label}: {{n}} skin{{s}} could not be loaded", image.name))
        return None


def _skin_warning(source: ModelSource, skin: str, lookup) -> str:
    """A missed or refused skin is one item of its kind (``tris.md2: 12 skins not found: a.pcx, ...``);
    a note on a skin that was found stays a line of its own."""
    text = f"{source.label}: {lookup.warning}"
    if lookup.file is not None:
        return text
    kind = "skin name{s} refused" if unsafe_skin_name(skin.strip()) else "skin{s} not found"
    return Message(text, f"{source.label}: {{n}} {kind}", stored_base(skin))
