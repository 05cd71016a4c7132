"""Beside a vertex-animation export (MD2, MDL, MD3), on request: ``<model>.qc`` (QuakeC ``$frame`` lines) and
``<model file>.framegroups`` (DarkPlaces/FTE animations), both read back from the written file's
frame table (:mod:`...formats.frame_scripts`), so they name exactly what the file holds. The format's
operator says how its written file's animations are read back (``animations(data, fps)``)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bpy

from ..formats.atomic_file import atomic_write
from ..formats.frame_scripts import ScriptAnimation, framegroups_text, qc_name_problems, qc_text
from .export_error import ExportError
from .run_export import Exporter, ExportReport
from .sampling.frame_plan import model_rate
from .sampling.frame_rate import scene_fps


def qc_path(model: Path) -> Path:
    return model.with_suffix(".qc")


def framegroups_path(model: Path) -> Path:
    """``soldier.mdl`` -> ``soldier.mdl.framegroups`` (DarkPlaces appends to the model's name)."""
    return model.with_name(model.name + ".framegroups")


def frame_rate(context: bpy.types.Context, frame_source: str, sampling: str) -> float:
    """Model frames per second of game time, as the frame plan has it (:func:`.sampling.frame_plan.model_rate`):
    10 when sampled at the game's rate (and for shape keys, one frame each), else the scene's rate."""
    return model_rate(scene_fps(context.scene), frame_source, sampling)


def write_frame_scripts(path: Path, qc: bool, framegroups: bool, fps: float,
                        read_animations: Callable[[bytes, float], list[ScriptAnimation]]) -> ExportReport:
    """Read the model written at ``path`` (``read_animations(data, fps)``) and write the files asked for next to it."""
    animations = read_animations(path.read_bytes(), fps)
    report = ExportReport()
    if qc:
        report.warnings += [f"{qc_path(path).name}: {p}" for p in qc_name_problems(animations)]
        _write(path, qc_path(path), qc_text(animations, path.name))
        report.written.append(f"wrote QuakeC frames {qc_path(path)}")
    if framegroups:
        _write(path, framegroups_path(path), framegroups_text(animations))
        report.written.append(f"wrote frame groups {framegroups_path(path)}")
    return report


def _write(model: Path, target: Path, text: str) -> None:
    """Write ``text`` at ``target``; the model is on disk already, and the error says so."""
    try:
        atomic_write(target, text.encode("utf-8"))
    except OSError as exc:
        raise ExportError(f"{model.name} was written, but {target} could not be written: "
                          f"{exc.strerror or exc}") from exc


@dataclass(frozen=True)
class WithFrameScripts:
    """An exporter that, after writing the model, writes its ``.qc`` and/or ``.framegroups``."""
    exporter: Exporter
    qc: bool
    framegroups: bool
    fps: float
    read_animations: Callable[[bytes, float], list[ScriptAnimation]]

    def __call__(self, context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
                 options: Any) -> ExportReport:
        report = self.exporter(context, path, objects, options)
        if not isinstance(report, ExportReport):
            report = ExportReport(report)
        if self.qc or self.framegroups:
            extra = write_frame_scripts(path, self.qc, self.framegroups, self.fps, self.read_animations)
            report.warnings += extra.warnings
            report.written += extra.written
        return report
