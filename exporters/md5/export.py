"""The MD5 exporter: build the pair (:mod:`.build`), encode both files, then write them atomically
(:func:`...formats.atomic_file.atomic_write`, each compared with the bytes read back before the rename;
not parsed again: the writer refuses whatever the reader would, see :mod:`...formats.md5.write`): ``x.md5mesh`` and
``x.md5anim`` beside it, and ``x.md5scale`` when bones scale (Q2PRO ``MD5_LoadScales`` reads it beside the
anim; an old one left there while nothing scales is reported, as Q2PRO would apply it). Nothing is
written when either file is refused. An armature without meshes (an ``.md5anim`` imported on its own
skeleton) writes ``x.md5anim`` alone; an imported ``.md5mesh`` that nothing animates writes ``x.md5mesh``
alone (no anim it did not have)."""
from __future__ import annotations

from pathlib import Path

import bpy

from ...formats.atomic_file import atomic_write
from ...formats.errors import FormatError
from ...formats.md5.scale import SCALE_SUFFIX, write_md5scale
from ...formats.md5.write import write_md5anim, write_md5mesh
from ..export_error import ExportError
from ..run_export import ExportReport
from .build import Md5Build, Md5ExportOptions, Twin, build_md5


def encoded_pair(build: Md5Build) -> tuple[bytes | None, bytes | None]:
    """The texts of the files the build writes: None for the mesh of an anim alone, the anim of a mesh alone."""
    try:
        mesh_text = None if build.anim_only else (
            build.mesh_text if build.mesh_text is not None else write_md5mesh(build.mesh))
        return mesh_text, None if build.mesh_only else write_md5anim(build.anim)
    except FormatError as exc:
        raise ExportError(f"cannot write MD5: {exc}") from exc


def write_pair(mesh_path: Path, anim_path: Path, texts: tuple[bytes | None, bytes | None]) -> None:
    for path, text in zip((mesh_path, anim_path), texts):
        if text is not None:
            atomic_write(path, text)


def encoded_scale(build: Md5Build) -> bytes | None:
    """The ``.md5scale`` of a build whose bones scale, else None."""
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
    texts = encoded_pair(build)
    anim_path = path.with_suffix(".md5anim")
    if build.mesh_only:
        write_pair(path, anim_path, texts)
        return ExportReport(build.warnings, [], build.info)
    scale = encoded_scale(build)
    scale_path = anim_path.with_suffix(SCALE_SUFFIX)
    write_pair(path, anim_path, texts)
    written = [f"wrote anim {anim_path} ({build.anim.num_frames} frames)"]
    if scale is not None:
        atomic_write(scale_path, scale)
        written.append(f"wrote joint scales {scale_path} (Q2PRO reads them beside the anim)")
    return ExportReport(build.warnings + stale_scale_note(scale_path, scale is not None), written, build.info)
