"""What ``info`` reads of a Quake III MD3 and the lines it adds (its row's ``info`` and ``describe``),
without Blender: counts, surfaces with their shaders, tags, frames, skin sets, and whether each
shader's image is where the game looks (:mod:`...formats.md3.shader_lookup`, as the importer finds
it). The codec's warnings (qfiles.h limits, the renderer's SHADER_MAX_VERTEXES / SHADER_MAX_INDEXES,
non-finite floats) are limit findings."""
from __future__ import annotations

from pathlib import Path

from ...formats.animations import group_animations
from ...formats.errors import FormatError
from ...formats.frame_scripts import ScriptAnimation
from ...formats.md3.animation_cfg import parse_animation_cfg
from ...formats.md3.codec import read_md3
from ...formats.md3.limits import limit_problems, renderer_problems
from ...formats.md3.player import PART_KINDS, part_animations
from ...formats.md3.records import VERSION
from ...formats.md3.shader_lookup import (
    default_set,
    find_in_folders,
    image_candidates,
    search_folders,
    skin_set_files,
    unsafe_shader,
)
from ...formats.md3.skin_file import parse_skin
from ...formats.message_text import quoted
from ..inspect import ModelInfo, SkinInfo, degenerate_triangles, note_drawable, note_limit, note_warning, skin_section


def inspect_md3(info: ModelInfo, path: Path, data: bytes, load_skins: bool, name_encoding: str = "AUTO") -> None:
    model = read_md3(data)
    info.version = VERSION
    surfaces = model.surfaces
    info.counts = {"surfaces": len(surfaces), "tags": model.num_tags, "frames": model.num_frames,
                   "vertices": sum(s.num_verts for s in surfaces),
                   "triangles": sum(len(s.triangles) for s in surfaces),
                   "shaders": sum(len(s.shaders) for s in surfaces)}
    info.details = {"engine": "Quake III",
                    "surfaces": [{"name": s.name, "vertices": s.num_verts, "triangles": len(s.triangles),
                                  "shaders": [sh.name for sh in s.shaders]} for s in surfaces],
                    "tags": list(model.tag_names), "trailing_bytes": len(model.trailing)}
    if model.num_frames > 1:
        info.animations = group_animations(model.frame_names)
    _player_animations(info, path, model)
    limits = set(limit_problems(model) + renderer_problems(model))
    for warning in model.warnings:
        (note_limit if warning in limits else note_warning)(info, warning)
    drawable = 0
    for i, surface in enumerate(surfaces):
        degenerate = degenerate_triangles(surface.triangles)
        drawable += len(surface.triangles) - len(degenerate)
        if len(degenerate):
            note_warning(info, f"surface {quoted(surface.name)}: dropped {len(degenerate)} degenerate triangle(s) that use "
                        "a vertex twice", f"surface {i} triangles")
    total = sum(len(s.triangles) for s in surfaces)
    note_drawable(info, drawable, f"all {total} triangle(s) use a vertex twice" if total else "the model has no triangles",
              "num_surfaces", 84)
    _skins(info, path, model, load_skins)


def _player_animations(info: ModelInfo, path: Path, model) -> None:
    """A player's ``lower.md3`` or ``upper.md3`` with ``animation.cfg`` beside it: the animations the
    file gives that part (its frames as the game numbers them in the part, its rate), as the import
    lists them (:func:`...formats.md3.player.part_animations`), in place of the runs of frame names."""
    part = path.name.lower()[:-len(".md3")]
    if part not in PART_KINDS:
        return
    try:
        cfg_path = next((p for p in path.parent.iterdir() if p.name.lower() == "animation.cfg"), None)
    except OSError:
        return
    try:
        cfg = parse_animation_cfg(cfg_path.read_bytes()) if cfg_path is not None else None
    except (OSError, FormatError) as exc:
        note_warning(info, f"animation.cfg beside it not used: {getattr(exc, 'strerror', None) or exc}")
        return
    found = part_animations(cfg, part, model.num_frames)
    if not found:
        return
    info.animations = [anim for anim, _ in found]
    info.details["animation_cfg"] = {anim.name: {"first": line.first, "frames": line.num, "looping": line.looping,
                                                 "fps": line.game_fps} for anim, line in found}
    names = model.frame_names
    info.frame_table = [ScriptAnimation(anim.name, anim.first, names[anim.first:anim.last + 1], anim.first,
                                        names[anim.first:anim.last + 1], line.game_fps) for anim, line in found]


def _skins(info: ModelInfo, path: Path, model, load_skins: bool) -> None:
    """Each shader name of the surfaces and of the ``.skin`` files beside the model, and its image."""
    listing = {}
    try:
        listing = {p.name.lower(): p for p in path.parent.iterdir() if p.is_file()}
    except OSError:
        pass
    sets = skin_set_files(path.name, listing)
    shaders: dict[str, str] = {}
    for surface in model.surfaces:
        for shader in surface.shaders:
            shaders.setdefault(shader.name, f"surface {quoted(surface.name)}")
    info.details["skin_sets"] = sorted(sets)
    info.details["default_skin_set"] = default_set(list(sets))
    for name, skin_path in sets.items():
        try:
            skin = parse_skin(skin_path.read_bytes())
        except OSError as exc:
            note_warning(info, f"{skin_path.name} cannot be read: {exc.strerror or exc}")
            continue
        for entry in skin.entries:
            shaders.setdefault(entry.shader, f"skin {quoted(name)}")
    if not load_skins:
        info.skins += [SkinInfo(s, False, None, "not looked up") for s in shaders]
        return
    folders = search_folders(path)
    try:
        for shader, where in shaders.items():
            found = None if unsafe_shader(shader) else find_in_folders(folders, shader)
            if found is None:
                info.skins.append(SkinInfo(shader, False, None, f"{where}; tried {', '.join(image_candidates(shader))}"
                                           if shader.strip() else f"{where}; empty name"))
                if sets and where.startswith("surface"):     # a skin set applied: the file's shader is not used
                    info.skins[-1].note += "; not shown while a skin set is applied"
                else:
                    note_warning(info, f"shader {quoted(shader)} ({where}): no image found")
                continue
            folder, file = found
            shown = f"{(file.root or folder.root) / file.name}" if file.archive is None else f"{file.archive}:{file.name}"
            info.skins.append(SkinInfo(shader, True, shown, where))
    finally:
        for folder in folders:
            folder.close()


def describe_lines(info: ModelInfo) -> list[str]:
    """Each surface with its counts and shaders, the tags, the skin sets, then the shaders' images."""
    details = info.details
    lines = [f"  surface {quoted(s['name'])}: {s['vertices']} vertices, {s['triangles']} triangles, shaders "
             f"{', '.join(map(quoted, s['shaders'])) or 'none'}" for s in details["surfaces"]]
    if details["tags"]:
        lines.append(f"  tags: {', '.join(map(quoted, details['tags']))}")
    if details.get("animation_cfg"):
        rates = sorted({f"{v['fps']:g}" for v in details["animation_cfg"].values()}, key=float)
        lines.append(f"  animations from animation.cfg beside it (this part's frames; the game plays them at "
                     f"{', '.join(rates)} frames a second)")
    if details.get("skin_sets"):
        lines.append(f"  skin sets: {', '.join(details['skin_sets'])} (shown at import: {details['default_skin_set']})")
    return lines + skin_section(info, "shaders", missing_notes=True)
