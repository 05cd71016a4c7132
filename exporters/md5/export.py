"""The MD5 exporter: build the pair (:mod:`.build`), encode every file, then write them atomically
(:func:`...formats.atomic_file.atomic_write`, each compared with the bytes read back before the rename;
not parsed again: the writer refuses whatever the reader would, see :mod:`...formats.md5.write`): ``x.md5mesh`` and
``x.md5anim`` beside it (an imported MD5's several anims: each under its own name, :mod:`.anim_files`), and
``<anim>.md5scale`` when bones scale (Q2PRO ``MD5_LoadScales`` reads it beside the anim; an old one left
there while nothing scales is reported, as Q2PRO would apply it). Nothing is written when any file is
refused. An armature without meshes (an ``.md5anim`` imported on its own skeleton) writes ``x.md5anim``
alone; an imported ``.md5mesh`` that nothing animates writes ``x.md5mesh`` alone (no anim it did not
have)."""
from __future__ import annotations

from pathlib import Path

import bpy

from ...formats.atomic_file import atomic_write
from ...formats.errors import FormatError
from ...formats.md5.scale import SCALE_SUFFIX, write_md5scale
from ...formats.md5.write import write_md5anim, write_md5mesh
from ..export_error import ExportError
from ..run_export import ExportReport
from .build import BuiltAnim, Md5Build, Md5ExportOptions, Twin, build_md5
from .untouched import KeptText


def encoded_pair(build: Md5Build) -> tuple[bytes | None, bytes | None]:
    """The mesh's text (None for an anim alone) and the first anim's (None without one)."""
    mesh_text, anims = encoded_files(build, build.anims[:1])
    return mesh_text, anims[0] if anims else None


def encoded_files(build: Md5Build, anims: list[BuiltAnim]) -> tuple[bytes | None, list[bytes]]:
    """The mesh's text (None for an anim alone) and each of ``anims``'s."""
    try:
        mesh_text = None if build.anim_only else (
            build.mesh_text if build.mesh_text is not None else write_md5mesh(build.mesh))
        return mesh_text, [built.anim.text if isinstance(built.anim, KeptText) else write_md5anim(built.anim)
                           for built in anims]
    except FormatError as exc:
        raise ExportError(f"cannot write MD5: {exc}") from exc


def encoded_scale(build: Md5Build | BuiltAnim) -> bytes | None:
    """The ``.md5scale`` of an anim (a build's first) whose bones scale, else None."""
    if build.scale is None:
        return None
    try:
        return write_md5scale(list(build.anim.joint_names), build.scale)
    except FormatError as exc:
        raise ExportError(f"cannot write the joint scales: {exc}") from exc


def stale_scale_note(scale_path: Path, written: bool) -> list[str]:
    """A warning when an old ``.md5scale`` stays beside an anim that has none."""
    if written or not scale_path.is_file():
        return []
    return [f"{scale_path.name} lies beside the anim from before: Q2PRO applies its scales to this anim, in which "
            "no bone scales; delete it"]


def export_md5(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
               options: Md5ExportOptions, twin: Twin | None = None) -> ExportReport:
    build = build_md5(context, objects, options, twin)
    mesh_text, anim_texts = encoded_files(build, build.anims)
    scales = [encoded_scale(built) for built in build.anims]
    anim_paths = [path.with_suffix(".md5anim") if built.name is None else path.with_name(built.name)
                  for built in build.anims]
    if mesh_text is not None:
        atomic_write(path, mesh_text)
    written, warnings = [], list(build.warnings)
    for built, anim_path, text, scale in zip(build.anims, anim_paths, anim_texts, scales):
        atomic_write(anim_path, text)
        written.append(f"wrote anim {anim_path} ({built.anim.num_frames} frames)")
        scale_path = anim_path.with_suffix(SCALE_SUFFIX)
        if scale is not None:
            atomic_write(scale_path, scale)
            written.append(f"wrote joint scales {scale_path} (Q2PRO reads them beside the anim)")
        warnings += stale_scale_note(scale_path, scale is not None)
    return ExportReport(warnings, written, build.info, main=anim_paths[0] if build.anim_only else None)
