"""The classic model an ``.md5mesh`` is the enhanced twin of (:func:`.md5_files.classic_model`): its frame
names, animations and the layout's skins.

- Frames: anim frame k is classic frame k (ironwail ``loadMd5Replacement``: each anim frame becomes one
  frame of one pose, QuakeC's frame numbers; Q2PRO ``MD5_ParseAnim``: frame k drawn for MD2 frame k).
  An MDL's frame k is its k-th frame slot, named by its first pose; an MD2's frame k its frame name.
  The root's frame table (``classic_model.frames``, names only: no shape keys) holds the names; the
  animations are the classic import's (an MDL's per frame group and run of single frames sharing a name,
  :func:`...formats.animations.slot_runs`; an MD2's per run of names,
  :func:`...formats.animations.group_animations`): *Animations: Timeline* puts a marker at each and lists
  them in the sidebar, *Actions* splits the anim into one action per animation (``md5_import._animate``).
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
from ...formats.animations import Animation, group_animations, slot_runs
from ...formats.errors import FormatError
from ...formats.md2.codec import parse_md2
from ...formats.md5.layout import md5_skin_name
from ...formats.mdl.codec import parse_mdl
from ..file_source import ModelSource, load_found_image
from ..frame_animation import add_markers, scene_frame
from ..results import ImportResult
from .md5_files import classic_model, folder_files
from .quake_skins import shader_materials


@dataclass
class ClassicPair:
    name: str                                  # the classic model's member or path (MD5_CLASSIC)
    frame_names: list[str]
    animations: list[Animation]
    materials: list = field(default_factory=list)   # per mesh block (or one entry for all): its skins' materials

    def record_frames(self, root: bpy.types.Object) -> None:
        """The frame table: the classic model's frame names (names only: these frames are no shape keys)."""
        frames = root.classic_model.frames
        frames.clear()
        for name in self.frame_names:
            item = frames.add()
            item.name = item.file_name = name

    def place(self, scene: bpy.types.Scene, root: bpy.types.Object, start: int, step: float) -> None:
        """Markers and the animation list for anim frames from ``start`` every ``step`` (one action)."""
        settings = root.classic_model
        settings.animation_mode = "TIMELINE"
        add_markers(scene, self.animations, start, step)
        for anim in self.animations:
            item = settings.animations.add()
            item.name = anim.name
            item.frame_start = scene_frame(start, anim.first, step)
            item.frame_end = scene_frame(start, anim.last, step, True)


def _animations(model, names: list[str], is_mdl: bool, count: int) -> list[Animation]:
    """The classic model's animations over its frames (anim frames) as its own import makes them: an MDL's
    per frame group and per run of single frames sharing a name (frame slots), an MD2's per run of names;
    cut to the anim's ``count`` frames."""
    if is_mdl:
        found = [Animation(animation.name, slots[0], slots[-1]) for animation, slots in slot_runs(model)]
    else:
        found = group_animations(names)
    return [Animation(a.name, a.first, min(a.last, count - 1)) for a in found if a.first < count]


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
    count = anim.num_frames if anim is not None else 0
    shown = names[:count]
    pair = ClassicPair(found.member or found.where, shown, _animations(model, names, is_mdl, count))
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

