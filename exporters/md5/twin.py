"""*Enhanced Model*: the MD5 twin a classic MDL or MD2 export writes in the same step, in the layout the
source ports load, from the frames the classic file was written from (anim frame k = classic frame k:
the same frame plan and planned frames, :class:`.build.Twin`), with the classic file's skins.

- Quake re-release (ironwail ``Quake/gl_model.c`` ``loadMd5Replacement``, vkQuake ``Mod_LoadModel``):
  ``progs/x.md5mesh`` and ``progs/x.md5anim`` beside ``progs/x.mdl``; the mesh's ``shader`` is the bare
  model name and the skins are ``progs/x_<skin:02>_<frame:02>.lmp`` (``Mod_LoadMD5MeshModel``): the MDL's
  own skins and every frame of its skin groups, so in Quake's palette with its fullbright indices 224-255
  as converted for the MDL. No ``_glow``/``_luma`` image is written: the ports look for one only beside
  a truecolour skin; an 8-bit ``.lmp`` glows where its indices are 224-255 (``Mod_CheckFullbrights``).
- Quake II remaster (Q2PRO ``src/refresh/models.c`` ``MOD_LoadMD5``, ``MD5_LoadSkins``):
  ``models/x/md5/tris.md5mesh`` and ``md5/tris.md5anim`` beside ``models/x/tris.md2`` (and
  ``md5/tris.md5scale`` when bones scale, ``MD5_LoadScales``), skins the MD2's
  skin names with ``md5/`` inserted before the file name: the skin files the MD2 export writes, copied
  there. The same rule for every MD2 the game registers: a Quake II player's ``players/x/tris.md2`` and
  ``weapon.md2`` get ``players/x/md5/tris.md5mesh`` and ``md5/weapon.md5mesh`` (``MOD_LoadMD5`` builds the
  path from any model's folder and stem; the player export writes a twin for each rigged model).

Everything is encoded before anything is written; the caller writes the classic file first.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

import bpy

from ...formats.images.lmp import FRAME_SECONDS, MAX_SKIN_FRAMES, read_lmp, write_lmp
from ...formats.md5.anim import read_md5anim
from ...formats.md5.mesh import read_md5mesh
from ...formats.md5.scale import SCALE_SUFFIX
from ..export_error import ExportError
from ..image_files import SkinFile
from ..sampling.animated_mesh import export_meshes
from .build import Md5ExportOptions, Twin, build_md5
from .export import encoded_pair, encoded_scale, stale_scale_note
from .rig import find_armature

QUAKE_FOLDER = "progs"
QUAKE2_FOLDER = "md5"
FRAME_FIELDS = ("frame_source", "scale", "apply_transform", "step", "actions", "frame_rate", "standard_order")


@dataclass
class TwinFiles:
    files: list[SkinFile]          # every file of the twin, encoded
    warnings: list[str]
    info: list[str]


def rigged(objects: list[bpy.types.Object]) -> bool:
    try:
        find_armature(export_meshes(objects))
    except ExportError:
        return False
    return True


def check_rigged(objects: list[bpy.types.Object]) -> None:
    """Refuse an Enhanced Model export without an armature before the classic model is sampled."""
    try:
        find_armature(export_meshes(objects))
    except ExportError as exc:
        raise ExportError(f"Enhanced Model: {exc}") from None


def _twin_build(context, objects, options, result, shader: str):
    md5_options = Md5ExportOptions(**{name: getattr(options, name) for name in FRAME_FIELDS}, per_material=False)
    sampled = result.sampled
    twin = Twin(sampled.plan, sampled.frames, result.corner_uvs, shader, [p.topology for p in sampled.parts])
    build = build_md5(context, objects, md5_options, twin)
    texts = encoded_pair(build)
    read_md5mesh(texts[0]), read_md5anim(texts[1])          # what is written must read back
    return build, texts + (encoded_scale(build),)


def quake_twin(context, path: Path, objects, options, result) -> TwinFiles:
    """``x.md5mesh``, ``x.md5anim`` and ``x_<skin>_<frame>.lmp`` beside the MDL ``path``."""
    stem = path.stem
    build, texts = _twin_build(context, objects, options, result, stem)
    files = [SkinFile(path.with_suffix(".md5mesh"), texts[0], "MD5 mesh, Enhanced Model"),
             SkinFile(path.with_suffix(".md5anim"), texts[1], "MD5 anim, Enhanced Model")]
    for s, skin in enumerate(result.model.skins):
        for f, indices in enumerate(skin.images):
            data = write_lmp(indices)
            read_lmp(data)
            files.append(SkinFile(path.with_name(f"{stem}_{s:02d}_{f:02d}.lmp"), data,
                                  f"skin {s} frame {f} in Quake's palette"))
    info = build.info + [f"Enhanced Model: {build.anim.num_frames} MD5 frames, one per MDL frame"]
    warnings = list(build.warnings) + skin_group_notes(result.model.skins)
    if texts[2] is not None:
        warnings.append("Enhanced Model: bones scale in the animation, which only Q2PRO reads (.md5scale): the Quake "
                        "ports draw those joints unscaled; animate the scale with bone positions instead")
    slots = len(result.model.frames)
    if slots != build.anim.num_frames:      # an imported MDL's frame groups: several poses in one frame
        warnings.append(f"Enhanced Model: the MDL has {slots} frames (some are groups of poses), the MD5 anim "
                        f"{build.anim.num_frames} poses; the ports play anim frame k for the MDL's frame k")
    if path.parent.name.lower() != QUAKE_FOLDER:
        warnings.append(f"Enhanced Model: the ports load {stem}.md5mesh only as progs/{stem}.md5mesh beside "
                        f"progs/{stem}.mdl; this export went to folder {path.parent.name or '.'}")
    return TwinFiles(files, warnings, info)


def skin_group_notes(skins) -> list[str]:
    """What the ports make of the MDL's skin groups written as ``_<skin>_<frame>.lmp`` (ironwail
    ``Mod_LoadMD5MeshModel``: four frames per skin, cycled every 0.1 s; three frames are warned about and
    not played alike by the ports)."""
    notes = []
    for s, skin in enumerate(skins):
        count = len(skin.images)
        if count > MAX_SKIN_FRAMES:
            notes.append(f"Enhanced Model: skin {s} has {count} frames: the ports load the first {MAX_SKIN_FRAMES} "
                         f"(_00 to _{MAX_SKIN_FRAMES - 1:02d}); the others are written but not shown")
        elif count == 3:
            notes.append(f"Enhanced Model: skin {s} has 3 frames: the ports warn and do not play them alike "
                         "(give it 2 or 4)")
        steps = np.diff(np.concatenate([[0.0], np.asarray(skin.intervals, np.float64)])) if count > 1 else None
        if steps is not None and not np.allclose(steps, FRAME_SECONDS, atol=1e-4):
            notes.append(f"Enhanced Model: skin {s}'s frames last {', '.join(f'{x:g}' for x in steps)} s in the MDL; "
                         f"the ports play an MD5's skin frames every {FRAME_SECONDS:g} s")
    return notes


def quake2_twin(context, path: Path, objects, options, result, skin_files: list[SkinFile]) -> TwinFiles:
    """``md5/tris.md5mesh`` and ``md5/tris.md5anim`` beside the MD2 ``path``, and a copy of each skin file
    under ``md5/`` beside where the MD2's skin goes."""
    folder = path.parent / QUAKE2_FOLDER
    skins = list(result.model.skins)
    shader = skins[0].rsplit("/", 1)[-1] if skins else path.stem
    build, texts = _twin_build(context, objects, options, result, shader)
    files = [SkinFile(folder / f"{path.stem}.md5mesh", texts[0], "MD5 mesh, Enhanced Model"),
             SkinFile(folder / f"{path.stem}.md5anim", texts[1], "MD5 anim, Enhanced Model")]
    scale_path = folder / f"{path.stem}{SCALE_SUFFIX}"
    if texts[2] is not None:
        files.append(SkinFile(scale_path, texts[2], "MD5 joint scales (Q2PRO), Enhanced Model"))
    files += [SkinFile(f.target.parent / QUAKE2_FOLDER / f.target.name, f.data, f"{f.note}, for the MD5")
              for f in skin_files]
    warnings = list(build.warnings) + stale_scale_note(scale_path, texts[2] is not None)
    if not skin_files and skins:
        warnings.append("Enhanced Model: no skin files were written (Skins: Names Only); Q2PRO looks for the "
                        "MD2's skins with md5/ before the file name")
    info = build.info + [f"Enhanced Model: {build.anim.num_frames} MD5 frames, one per MD2 frame"]
    return TwinFiles(files, warnings, info)


class EnhancedModel:
    """What the MDL and MD2 exports call (through their options, so that they import no MD5 code)."""
    check = staticmethod(check_rigged)
    rigged = staticmethod(rigged)
    quake = staticmethod(quake_twin)
    quake2 = staticmethod(quake2_twin)


ENHANCED = EnhancedModel()
