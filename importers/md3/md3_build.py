"""Quake III MD3 -> Blender, one file: a model root empty, a mesh per surface, an empty per tag.

What is made and kept follows common/md3/contract.py: the root holds the file-level records
as the file's bytes, each surface mesh (:mod:`.md3_surfaces`) its own, each tag empty
(:mod:`.md3_tags`) its index and name field. File frame f is shape key f of every surface and key f
of every tag empty, all on the timeline like MD2 (:mod:`..frame_animation`); the frame table is on
the root. MD3 stores no frame rate: a plain model plays at 10 frames a second, as DarkPlaces plays
MD3 frames (model_alias.c ``Mod_IDP3_Load``: ``animscenes[i].framerate = 10``); a Quake III player
at the rate its ``animation.cfg`` gives most of its frames (:mod:`.md3_player`). Skins:
:mod:`.md3_skins`. Levels of detail (``x_1.md3``, ``x_2.md3``, named as ``R_RegisterMD3`` builds
them) are imported on request into a hidden collection, each a model root with its ``md3_lod``.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np

import bpy

from ...common.contract import MD3_ROOT
from ...common.file_counts import record_counts
from ...common.frame_table import record_frame_table
from ...common.generated_names import mark_made
from ...common.md3.contract import (
    MD3_FLAGS,
    MD3_FRAMES,
    MD3_LAYOUT,
    MD3_LOD,
    MD3_NAME,
    MD3_NUM_SKINS,
    MD3_TAGS,
    MD3_TAIL,
)
from ...formats.animations import Animation, group_animations
from ...formats.errors import FormatError
from ...formats.md3.codec import read_md3
from ...formats.md3.lods import lod_names
from ...formats.md3.records import FRAME, TAG, Md3Model
from ..file_source import ArchiveSource, LooseSource, ModelSource, remember_source
from ..frame_animation import (
    add_frame_shape_keys,
    add_markers,
    animate_frame_keys,
    animations_as_actions,
    list_animation,
    scene_frame,
)
from ..results import ImportResult
from ..scene_timing import SceneTiming, apply_timing
from .md3_skins import ShaderImages, apply_skins
from .md3_surfaces import build_surface
from .md3_tags import add_tag_empties

MD3_FPS = 10
_LOD_NAME = re.compile(r"^(.*)_([12])\.md3$", re.IGNORECASE)


@dataclass
class Md3ImportOptions:
    scale: float = 1.0
    use_file_normals: bool = True      # the file's normals of frame 0 as custom normals
    load_skins: bool = True
    assemble_player: bool = True       # lower.md3 of a Quake III player folder brings upper and head
    load_lods: bool = False            # x_1.md3 / x_2.md3 beside x.md3 into a hidden collection
    animations: str = "TIMELINE"       # or "ACTIONS": one action per animation (animation.cfg or frame names)
    merge_surfaces: bool = False       # one mesh for all surfaces (a material slot each), not one per surface
    scene_timing: str = "AUTO"         # 'AUTO', 'SET' or 'KEEP': see scene_timing.py
    exclude: tuple[str, ...] = ()      # files imported by the same call


@dataclass
class Md3Build:
    """What building one file needs besides the file: shared by the parts of a player."""
    context: bpy.types.Context
    options: Md3ImportOptions
    result: ImportResult
    timing: SceneTiming
    images: ShaderImages
    collection: bpy.types.Collection
    fps: float = MD3_FPS


def read_md3_source(source: ModelSource) -> tuple[bytes, Md3Model]:
    """The file's bytes and model; FormatError names the file (and archive member)."""
    data = source.read()
    try:
        return data, read_md3(data)
    except FormatError as exc:
        raise exc.with_filename(source.where)


def lod_of(source: ModelSource, listing: dict) -> int:
    """1 or 2 for ``x_1.md3`` / ``x_2.md3`` beside an ``x.md3``, else 0."""
    match = _LOD_NAME.match(source.name)
    return int(match.group(2)) if match and f"{match.group(1).lower()}.md3" in listing else 0


def add_model(build: Md3Build, source: ModelSource, data: bytes, model: Md3Model, part: str = "",
              animations: list[Animation] | None = None, lod: int | None = None) -> bpy.types.Object:
    """The model root of one file with its surfaces and tags, animated on the timeline."""
    context, options, result = build.context, build.options, build.result
    label = source.label
    result.warnings += [f"{label}: {w}" for w in model.warnings]
    root = bpy.data.objects.new(source.stem, None)
    mark_made(root)
    root.empty_display_type = "PLAIN_AXES"
    root.empty_display_size = 8.0 * options.scale
    build.collection.objects.link(root)
    _keep_records(root, data, model, part, lod_of(source, build.images.beside()) if lod is None else lod)
    scene = context.scene
    start = scene.frame_start
    step = build.timing.step(build.fps)
    names = model.frame_names
    key_names = [n or f"frame {i + 1}" for i, n in enumerate(names)]
    first_keys = None
    surfaces, surface_keys = [], []
    if animations is None:
        animations = [Animation(a.name or "frames", a.first, a.last) for a in group_animations(names)] \
            if model.num_frames > 1 else []
    by_actions = options.animations == "ACTIONS" and bool(animations)    # a part without any: the timeline
    groups = [list(range(len(model.surfaces)))] if options.merge_surfaces and model.surfaces \
        else [[index] for index in range(len(model.surfaces))]
    for group in groups:
        obj, positions = build_surface(data, model, group, label, options.scale, options.use_file_normals,
                                       result.warnings, f"{source.stem}_surfaces" if len(group) > 1 else "")
        build.collection.objects.link(obj)
        obj.parent = root
        keys = add_frame_shape_keys(obj, key_names, positions)
        if not by_actions:
            animate_frame_keys(obj.data.shape_keys, keys, start, f"{source.stem}_{obj.name}_frames", step)
        surface_keys.append((obj, keys))
        first_keys = first_keys or keys
        remember_source(obj, source)
        surfaces += [(obj, model.surfaces[index]) for index in group]
    record_frame_table(root, names, first_keys or [_Named(n) for n in key_names])
    settings = root.classic_model
    settings.source_format = "MD3"
    settings.frame_offset = start
    frames = start + np.arange(model.num_frames, dtype=np.float64) * step
    add_tag_empties(model, root, build.collection, frames, options.scale, source.stem,
                    animations if by_actions else None)
    if by_actions:
        _play_as_actions(root, surface_keys, animations, start, step)
        apply_timing(scene, build.timing, start, start + ((animations[0].frames if animations else 1) - 1) * step,
                     build.fps)
    else:
        settings.animation_mode = "TIMELINE"
        add_markers(scene, animations, start, step)
        apply_timing(scene, build.timing, start, start + (model.num_frames - 1) * step, build.fps)
        for anim in animations:
            item = settings.animations.add()
            item.name = anim.name
            item.frame_start = scene_frame(start, anim.first, step)
            item.frame_end = scene_frame(start, anim.last, step, True)
    if options.load_skins:
        apply_skins(root, surfaces, build.images, source.name, label, result.warnings, result.infos)
    remember_source(root, source)
    return root


def _play_as_actions(root: bpy.types.Object, surface_keys: list, animations: list[Animation], start: int,
                     step: float) -> None:
    """Actions mode: each surface mesh plays each animation as its own shape-key action (as MD2 and MDL
    do, :func:`..frame_animation.animations_as_actions`), the tags theirs (:mod:`.md3_tags`); the root
    lists the animations, and picking one there makes every surface's and tag's action of that name
    active (:func:`...common.actions.activate_animation`)."""
    root.classic_model.animation_mode = "ACTIONS"
    for obj, keys in surface_keys:
        obj.classic_model.animation_mode = "ACTIONS"
        animations_as_actions(obj, keys, animations, start, step)
    for anim in animations:
        list_animation(root, anim, start, step, None)


class _Named:
    """Stands for a shape key in the frame table of a model without surfaces (its frames' names)."""
    def __init__(self, name: str) -> None:
        self.name = name


def _keep_records(root: bpy.types.Object, data: bytes, model: Md3Model, part: str, lod: int) -> None:
    """The file-level records on the root, as the file holds them (contract ``# MD3``)."""
    offsets = model.layout.offsets
    frames_size = model.num_frames * FRAME.itemsize
    tags_size = model.num_frames * model.num_tags * TAG.itemsize
    root[MD3_ROOT] = part
    root[MD3_NAME] = bytes(model.name_raw or b"")
    root[MD3_FLAGS] = model.flags
    root[MD3_NUM_SKINS] = model.num_skins
    root[MD3_FRAMES] = bytes(data[offsets["ofs_frames"]:offsets["ofs_frames"] + frames_size])
    root[MD3_TAGS] = bytes(data[offsets["ofs_tags"]:offsets["ofs_tags"] + tags_size])
    layout = model.layout
    root[MD3_LAYOUT] = json.dumps({"offsets": layout.offsets, "surfaces": layout.surfaces, "sizes": layout.sizes,
                                   "filler": [[offset, chunk.hex()] for offset, chunk in layout.filler]})
    if model.tail_record is not None:
        root[MD3_TAIL] = model.tail_record
    root[MD3_LOD] = lod
    record_counts(root, frames=model.num_frames, tags=model.num_tags, surfaces=len(model.surfaces))


def sibling_source(source: ModelSource, found) -> ModelSource:
    """A file found beside ``source`` (a FoundFile of its folder) as a model source of its own."""
    if found.path is not None:
        return LooseSource(found.path)
    return ArchiveSource(None, found.member, source.game, source.files, found)


def add_lods(build: Md3Build, source: ModelSource, root: bpy.types.Object) -> list[bpy.types.Object]:
    """``x_1.md3``, ``x_2.md3`` beside ``source`` as model roots (``md3_lod`` 1, 2) parented to ``root``,
    in a hidden collection ``<x> LODs``; a LOD that cannot be read is a warning."""
    listing = build.images.beside()
    found = [(lod, listing.get(name.rpartition("/")[2].lower()))
             for lod, name in enumerate(lod_names(source.name)) if lod]
    found = [(lod, f) for lod, f in found if f is not None]
    if not found:
        return []
    collection = bpy.data.collections.new(f"{source.stem} LODs")
    build.collection.children.link(collection)
    collection.hide_viewport = collection.hide_render = True
    lod_build = Md3Build(build.context, build.options, build.result, build.timing, build.images, collection,
                         build.fps)
    roots = []
    for lod, file in found:
        lod_source = sibling_source(source, file)
        try:
            data, model = read_md3_source(lod_source)
        except FormatError as exc:
            build.result.warnings.append(f"{source.label}: level of detail {lod} not loaded: {exc}")
            continue
        lod_root = add_model(lod_build, lod_source, data, model, root.get(MD3_ROOT, ""), lod=lod)
        build.result.files += 1
        lod_root.parent = root
        roots.append(lod_root)
    return roots
