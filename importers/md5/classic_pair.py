"""The classic model an ``.md5mesh`` is the enhanced twin of (:func:`.md5_files.classic_model`): its frame
names, animations and the layout's skins.

- Frames: anim frame k is classic frame k (ironwail ``loadMd5Replacement``: each anim frame becomes one
  frame of one pose, QuakeC's frame numbers; Q2PRO ``MD5_ParseAnim``: frame k drawn for MD2 frame k).
  An MDL's frame k is its k-th frame slot, named by its first pose; an MD2's frame k its frame name.
  The root's frame table (``classic_model.frames``, names only: no shape keys) holds the names, a
  marker starts each animation (:func:`...formats.animations.group_animations`) and the sidebar's
  animation list holds them, as the MD2 and MDL imports make them.
- Skins, Quake re-release: ``progs/<shader>_<skin:02>_<frame:02>`` beside the mesh (:mod:`.quake_skins`:
  every skin and skin frame, ``.lmp`` in Quake's palette with indices 224-255 fullbright, truecolour
  images with their ``_glow``/``_luma``): shown as the MDL import shows MDL skins and skin groups
  (:mod:`...common.mdl_skins`: the colour images, a fullbright mask each, the group's intervals).
  Quake II remaster: the MD2's skin names with ``md5/`` put before the file name (Q2PRO
  ``MD5_LoadSkins``), looked up as the MD2 import looks up skins.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

import bpy

from ...common.skin_images import has_holes, skin_material
from ...formats.animations import Animation, group_animations
from ...formats.errors import FormatError
from ...formats.md2.codec import parse_md2
from ...formats.mdl.codec import parse_mdl
from ..file_source import ModelSource, load_found_image
from ..frame_animation import add_markers, scene_frame
from ..results import ImportResult
from ...formats.md5.layout import md5_skin_name
from .md5_files import classic_model, folder_files
from .quake_skins import shader_materials


@dataclass
class ClassicPair:
    name: str                                  # the classic model's member or path (MD5_CLASSIC)
    frame_names: list[str]
    animations: list[Animation]
    materials: list = field(default_factory=list)   # per mesh block (or one entry for all): its skins' materials

    def place(self, scene: bpy.types.Scene, root: bpy.types.Object, start: int, step: float) -> None:
        """Markers, the animation list and the frame table for anim frames from ``start`` every ``step``."""
        settings = root.classic_model
        settings.animation_mode = "TIMELINE"
        frames = settings.frames
        frames.clear()
        for name in self.frame_names:
            item = frames.add()
            item.name = item.file_name = name
        add_markers(scene, self.animations, start, step)
        for anim in self.animations:
            item = settings.animations.add()
            item.name = anim.name
            item.frame_start = scene_frame(start, anim.first, step)
            item.frame_end = scene_frame(start, anim.last, step, True)


def _mdl_frame_names(model) -> list[str]:
    return [model.pose_names[slot.first_pose] for slot in model.frames]


def find_pair(source: ModelSource, mesh, anim, options, result: ImportResult) -> ClassicPair | None:
    """The classic model beside ``source`` read (None without one; a broken one is a warning)."""
    found = classic_model(source)
    if found is None:
        return None
    is_mdl = found.name.lower().endswith(".mdl")
    try:
        model = (parse_mdl if is_mdl else parse_md2)(found.read())
    except (FormatError, OSError) as exc:
        result.warnings.append(f"{source.label}: the classic model {found.where} beside it cannot be read ({exc}): "
                               "frames are not named from it")
        return None
    names = _mdl_frame_names(model) if is_mdl else list(model.frame_names)
    if anim is not None and anim.num_frames != len(names):
        result.warnings.append(f"{source.label}: the anim has {anim.num_frames} frames, {found.name} {len(names)}: "
                               "anim frame k is drawn for classic frame k")
    shown = names[:anim.num_frames] if anim is not None else []
    pair = ClassicPair(found.member or found.where, shown, group_animations(shown))
    if options.load_skins:
        pair.materials = (_lmp_materials(source, mesh, result) if is_mdl
                          else _md2_materials(source, model.skins, result))
    return pair


def _lmp_materials(source: ModelSource, mesh, result: ImportResult) -> list:
    """Per mesh block, a material per skin of its shader (:mod:`.quake_skins`: every skin and skin frame
    the ports load, with fullbright or glow; the first is the one the block shows)."""
    listing = folder_files(source)
    palette = source.palette(False).palette
    made: dict[str, list] = {}
    out = []
    for part in mesh.meshes:
        shader = PurePosixPath((part.shader or source.stem).replace("\\", "/")).name
        if shader not in made:
            made[shader] = shader_materials(source, listing, shader, palette, result)
        out.append(made[shader])
    return out


def _md2_materials(source: ModelSource, skins: list[str], result: ImportResult) -> list:
    """The material of the MD2's first skin under ``md5/``, for every mesh block."""
    for stored in skins[:1]:
        name = md5_skin_name(stored)
        lookup = source.skin(name)
        if lookup.file is None:
            result.warnings.append(f"{source.label}: skin {name} not found" + (f" ({lookup.warning})"
                                                                               if lookup.warning else ""))
            return []
        try:
            image = load_found_image(lookup.file, None, 255)
        except (FormatError, OSError) as exc:
            result.warnings.append(f"{source.label}: skin {lookup.file.where} could not be loaded: {exc}")
            return []
        return [[skin_material(PurePosixPath(name).stem, image, has_holes(image))]]
    return []

