"""What ``info`` reads of an MD5 (``.md5mesh``, ``.md5anim``) and the lines it adds (its row's ``info`` and
``describe``), without Blender: counts, the anim beside a
mesh (same name, the layouts of both re-releases) and whether the engines take the pair
(:func:`..formats.md5.limits.pair_problems`), the paired classic model's frame count against the anim's
(anim frame k is classic frame k), and the re-release skins the layout names."""
from __future__ import annotations

from pathlib import Path

from ...formats.animations import Animation
from ...formats.errors import FormatError
from ...formats.md2.codec import parse_md2
from ...formats.md5.anim import read_md5anim
from ...formats.md5.layout import QUAKE_SKIN_EXTENSIONS, quake_skin_stem
from ...formats.md5.limits import anim_problems, mesh_problems, pair_problems, unheld_numbers
from ...formats.md5.mesh import read_md5mesh
from ...formats.mdl.codec import parse_mdl
from ...formats.message_text import quoted
from ..inspect import ModelInfo, Problem, SkinInfo, note_limit, note_warning, skin_section

ENGINES = "ironwail, Q2PRO and FTE"


def _beside(path: Path, name: str) -> Path | None:
    """The file ``name`` in ``path``'s folder, any case."""
    try:
        return next((p for p in sorted(path.parent.iterdir()) if p.name.lower() == name.lower() and p.is_file()), None)
    except OSError:
        return None


def _classic(path: Path) -> Path | None:
    """``progs/x.mdl`` beside ``progs/x.md5mesh``, or ``models/x/tris.md2`` above ``models/x/md5/tris.md5mesh``."""
    found = _beside(path, path.stem + ".mdl")
    if found is None and path.parent.name.lower() == "md5":
        found = _beside(path.parent, path.stem + ".md2")
    return found


def _classic_frames(info: ModelInfo, classic: Path) -> int | None:
    try:
        data = classic.read_bytes()
        model = parse_mdl(data) if classic.suffix.lower() == ".mdl" else parse_md2(data)
    except (FormatError, OSError) as exc:
        note_warning(info, f"the classic model {classic.name} beside it cannot be read: {exc}", "classic")
        return None
    return len(model.frames) if classic.suffix.lower() == ".mdl" else model.num_frames


def _anim_facts(info: ModelInfo, anim) -> None:
    info.details["frame_rate"] = float(anim.frame_rate)
    info.details["frames"] = anim.num_frames


def inspect_md5(info: ModelInfo, path: Path, data: bytes, load_skins: bool, name_encoding: str = "AUTO") -> None:
    """What ``info`` says about an ``.md5mesh`` (with its anim and classic model) or an ``.md5anim``."""
    info.details["engine"] = ENGINES
    if path.suffix.lower() == ".md5anim":
        anim = read_md5anim(data)
        info.version = anim.header.version or 10      # read as version 10 (a warning says it is absent)
        info.counts = {"joints": anim.num_joints, "frames": anim.num_frames,
                       "animated_components": anim.num_components}
        _anim_facts(info, anim)
        info.animations = [Animation(path.stem, 0, anim.num_frames - 1)]
        info.joints = [{"name": n, "parent": int(p)} for n, p in zip(anim.joint_names, anim.joint_parents)]
        _report(info, anim, anim_problems(anim))
        mesh_path = _beside(path, path.stem + ".md5mesh")
        if mesh_path is not None:
            _pair(info, _read_mesh(info, mesh_path), anim, mesh_path.name)
        return
    mesh = read_md5mesh(data)
    info.version = mesh.header.version or 10
    info.counts = {"joints": mesh.num_joints, "meshes": len(mesh.meshes),
                   "vertices": sum(p.num_verts for p in mesh.meshes),
                   "triangles": sum(len(p.triangles) for p in mesh.meshes),
                   "weights": sum(len(p.weight_bias) for p in mesh.meshes)}
    info.details["meshes"] = [{"shader": p.shader, "vertices": p.num_verts, "triangles": len(p.triangles),
                               "weights": len(p.weight_bias)} for p in mesh.meshes]
    info.joints = [{"name": n, "parent": int(p)} for n, p in zip(mesh.joint_names, mesh.joint_parents)]
    _report(info, mesh, mesh_problems(mesh))
    anim_path = _beside(path, path.stem + ".md5anim")
    anim = None
    if anim_path is not None:
        try:
            anim = read_md5anim(anim_path.read_bytes())
        except (FormatError, OSError) as exc:
            note_warning(info, f"{anim_path.name} beside it cannot be read: {exc}", "anim")
    if anim is not None:
        for line in unheld_numbers(anim):      # the import of the mesh takes its anim, and refuses it
            info.problems.append(Problem("error", f"{anim_path.name} beside it: {line}"))
        info.details["anim"] = anim_path.name
        _anim_facts(info, anim)
        info.animations = [Animation(anim_path.stem, 0, anim.num_frames - 1)]
        _pair(info, mesh, anim, anim_path.name)
    classic = _classic(path)
    if classic is not None:
        info.details["classic"] = str(classic)
        frames = _classic_frames(info, classic)
        info.details["classic_frames"] = frames
        if anim is None:
            note_warning(info, f"no {path.stem}.md5anim beside it: the engines draw {classic.name} instead", "anim")
        elif frames is not None and frames != anim.num_frames:
            note_warning(info, f"the anim has {anim.num_frames} frames, {classic.name} {frames}: the ports draw anim "
                         "frame k for classic frame k, so " + (
                             f"the classic frames from {anim.num_frames} on show another pose (Q2PRO warns and "
                             "wraps them to the anim's first frames)" if anim.num_frames < frames else
                             f"the anim's last {anim.num_frames - frames} frame(s) are never drawn"), "frames")
        if classic.suffix.lower() == ".mdl" and load_skins:
            _lmp_skins(info, path, mesh)


def _read_mesh(info: ModelInfo, path: Path):
    try:
        return read_md5mesh(path.read_bytes())
    except (FormatError, OSError) as exc:
        note_warning(info, f"{path.name} beside it cannot be read: {exc}", "mesh")
        return None


def _pair(info: ModelInfo, mesh, anim, other: str) -> None:
    if mesh is None:
        return
    info.details["pair"] = other
    for problem in pair_problems(mesh, anim):
        note_warning(info, f"with {other}: {problem}", "joints")


def _report(info: ModelInfo, model, limits: list[str]) -> None:
    """``model``'s limits and warnings; its numbers Blender cannot hold are an error (the import refuses them)."""
    errors = unheld_numbers(model)
    for line in errors:
        info.problems.append(Problem("error", line))
    for line in limits:
        note_limit(info, line)
    for line in model.warnings:
        if line not in limits and line not in errors:
            note_warning(info, line)


def _lmp_skins(info: ModelInfo, path: Path, mesh) -> None:
    """The re-release's skin 0 of each shader: ``progs/<shader>_00_00`` beside the mesh, with the first of
    the ports' extensions found (shown as ``.lmp`` when none is)."""
    for shader in dict.fromkeys(Path((p.shader or path.stem).replace("\\", "/")).name for p in mesh.meshes):
        stem = quake_skin_stem(shader, 0, 0)
        found = next((f for f in (_beside(path, stem + ext) for ext in QUAKE_SKIN_EXTENSIONS) if f is not None), None)
        name = found.name if found is not None else stem + ".lmp"
        info.skins.append(SkinInfo(name, found is not None, str(found) if found else None))
        if found is None:
            note_warning(info, f"skin {quoted(name)} not found beside it (nor as .png, .tga, .jpg or .pcx: the "
                               f"re-release's skin of shader {quoted(shader)})", "shader")


def describe_lines(info: ModelInfo) -> list[str]:
    """The anim, mesh block and classic model lines of ``info``, then the re-release skins."""
    details = info.details
    lines = []
    if "frame_rate" in details:
        anim = f" ({details['anim']})" if "anim" in details else ""
        lines.append(f"  anim{anim}: {details['frames']} frames at {details['frame_rate']:g} fps")
    for m, part in enumerate(details.get("meshes", [])):
        shader = quoted(part["shader"]) if part["shader"] is not None else "no shader"
        lines.append(f"    mesh {m}: {shader}, {part['vertices']} vertices, {part['triangles']} triangles, "
                     f"{part['weights']} weights")
    if "classic" in details:
        frames = details.get("classic_frames")
        lines.append(f"  classic model {details['classic']}" + (f": {frames} frames" if frames is not None else ""))
    return lines + skin_section(info)
