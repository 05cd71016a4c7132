"""What ``info`` and ``check`` read of an IQM (its row's ``info``, ``describe`` and ``member_files``), without
Blender: the counts of the header's blocks, each mesh with its material, each anim with its frames, rate and
loop flag (iqm.h ``IQM_LOOP``), the ``.iqm.framegroups`` beside it (DarkPlaces plays its groups instead of the
anims: :mod:`...formats.iqm.framegroups`), and what DarkPlaces, FTE and Warsow would refuse or ignore
(:mod:`...formats.iqm.limits`, listed as limits the file exceeds)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePosixPath

from ...formats.animations import Animation
from ...formats.iqm.codec import read_iqm
from ...formats.iqm.framegroups import SUFFIX, parse_framegroups
from ...formats.iqm.limits import darkplaces_problems, skeleton_problems
from ...formats.iqm.records import LOOP, TYPE_NAMES, IqmModel
from ...formats.message_text import quoted
from ..inspect import ModelInfo, note_limit, note_warning

ENGINES = "DarkPlaces, FTE and Warsow"


def _beside(path: Path, name: str) -> Path | None:
    """The file ``name`` in ``path``'s folder, any case."""
    try:
        return next((p for p in sorted(path.parent.iterdir()) if p.name.lower() == name.lower() and p.is_file()), None)
    except OSError:
        return None


def _anims(model: IqmModel) -> list[dict[str, object]]:
    return [{"name": model.text_at(int(a["name"])), "first": int(a["first_frame"]), "frames": int(a["num_frames"]),
             "rate": float(a["framerate"]), "loop": bool(int(a["flags"]) & LOOP)} for a in model.anims]


def inspect_iqm(info: ModelInfo, path: Path, data: bytes, load_skins: bool, name_encoding: str = "AUTO") -> None:
    """What ``info`` says about an ``.iqm`` (and the ``.iqm.framegroups`` beside it)."""
    model = read_iqm(data)
    info.version = 2
    info.details["engine"] = ENGINES
    info.counts = {"joints": len(model.joints), "meshes": len(model.meshes), "vertices": model.num_vertexes,
                   "triangles": len(model.triangles), "poses": len(model.poses), "frames": model.num_frames,
                   "anims": len(model.anims)}
    info.details["meshes"] = [{"name": model.text_at(int(m["name"])), "material": model.text_at(int(m["material"])),
                               "vertices": int(m["num_vertexes"]), "triangles": int(m["num_triangles"])}
                              for m in model.meshes]
    info.details["anims"] = _anims(model)
    info.details["vertex_arrays"] = [TYPE_NAMES.get(a.type, f"custom {a.type}") for a in model.vertex_arrays]
    info.details["extensions"] = len(model.extensions)
    info.joints = [{"name": model.text_at(int(j["name"])), "parent": int(j["parent"])} for j in model.joints]
    info.animations = [Animation(a["name"], a["first"], a["first"] + a["frames"] - 1) for a in info.details["anims"]
                       if a["frames"]]
    limits = darkplaces_problems(model) + skeleton_problems(model)
    for line in limits:
        note_limit(info, line)
    for line in model.warnings:
        if line not in limits:
            note_warning(info, line)
    groups_path = _beside(path, path.name + SUFFIX)
    if groups_path is not None:
        _framegroups(info, groups_path, model.num_frames)


def _framegroups(info: ModelInfo, path: Path, num_frames: int) -> None:
    try:
        groups, warnings = parse_framegroups(path.read_bytes(), num_frames)
    except OSError as exc:
        note_warning(info, f"{path.name} beside it cannot be read: {exc.strerror or exc}", "framegroups")
        return
    for line in warnings:
        note_warning(info, f"{path.name}: {line}", "framegroups")
    info.details["framegroups"] = path.name
    info.details["groups"] = [{"name": g.name, "first": g.first, "frames": g.count, "rate": g.fps, "loop": g.loop}
                              for g in groups]
    if groups:       # DarkPlaces plays these instead of the file's anims
        info.animations = [Animation(g.name, g.first, g.first + g.count - 1) for g in groups]


def _anim_line(anim: dict) -> str:
    loop = "loops" if anim["loop"] else "plays once"
    return f"{quoted(anim['name'])}: frames {anim['first']}-{anim['first'] + anim['frames'] - 1} " \
           f"({anim['frames']}) at {anim['rate']:g} fps, {loop}"


def describe_lines(info: ModelInfo) -> list[str]:
    """The vertex arrays, each mesh, each anim (rate and loop) and the framegroups of ``info``."""
    details = info.details
    lines = []
    if details.get("vertex_arrays"):
        lines.append("  vertex arrays: " + ", ".join(details["vertex_arrays"]))
    for m, mesh in enumerate(details.get("meshes", [])):
        material = quoted(mesh["material"]) if mesh["material"] else "no material"
        lines.append(f"    mesh {m} {quoted(mesh['name'])}: {material}, {mesh['vertices']} vertices, "
                     f"{mesh['triangles']} triangles")
    for a, anim in enumerate(details.get("anims", [])):
        lines.append(f"    anim {a} {_anim_line(anim)}")
    if "framegroups" in details:
        lines.append(f"  {details['framegroups']}: {len(details['groups'])} groups (DarkPlaces plays them instead "
                     "of the anims)")
        lines += [f"    group {g} {_anim_line(group)}" for g, group in enumerate(details["groups"])]
    return lines


def member_files(name: str, data: bytes, folder_files: Callable[[], list[str]]) -> list[str]:
    """Game paths an ``.iqm`` member needs beside it: its ``.iqm.framegroups`` (DarkPlaces, Xonotic)."""
    return [str(PurePosixPath(name.replace("\\", "/"))) + SUFFIX]
