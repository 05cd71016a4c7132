"""The worker process of ``convert``: Blender loaded once, then one job after another.

:func:`worker_main` enables this package in ``bpy`` (:func:`.convert.enable_package`), reads the empty
home file once (:class:`.scene_reset.SceneReset`) and answers each :class:`.convert.ConvertJob` the
parent sends with a :class:`.convert.ConvertResult`, emptying the scene cheaply before each job.

What the operators report as warnings Blender prints on stdout; the worker sends its stdout and
stderr to a log file and hands each job the warnings printed while it ran (:func:`reported_warnings`):
the operators' folded lines (one per kind of problem, :mod:`..formats.report_lines`) with the full
messages behind them, and the glTF exporter's log lines, identical ones counted on one line.
"""
from __future__ import annotations

import ctypes
import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from ..formats.report_lines import Folded, fold, full_list, unfold_reported
from .convert import NO_DRAWABLE, ConvertError, ConvertJob, ConvertResult, convert, enable_package

READY = "ready"   # what a worker sends once bpy is set up, before its first result


def _flush_c_stdio() -> None:
    """Flush C ``stdout`` (where Blender prints reports), so the log holds them now."""
    for name in (None, "ucrtbase", "msvcrt"):
        try:
            ctypes.CDLL(name).fflush(None)
            return
        except (OSError, AttributeError, TypeError):
            continue


class OutputLog:
    """The worker's stdout and stderr (file descriptors 1 and 2) sent to the file ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = open(self.path, "ab")  # noqa: SIM115 - the worker's stdout and stderr for its life
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(self._file.fileno(), 1)
        os.dup2(self._file.fileno(), 2)

    def position(self) -> int:
        self.flush()
        return os.path.getsize(self.path)

    def flush(self) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        _flush_c_stdio()

    def text_since(self, position: int) -> str:
        self.flush()
        with open(self.path, "rb") as stream:
            stream.seek(position)
            return stream.read().decode("utf-8", "replace")


def reported_warnings(log_text: str) -> list[Folded]:
    """The ``Warning:`` reports Blender printed, each with the full messages reported after it as
    ``Info: \u2022 ...`` lines, and the glTF exporter's ``| WARNING:`` log lines, identical ones folded
    into one line with a count (it repeats a warning per animation it merges)."""
    reports, gltf = [], []
    for line in log_text.splitlines():
        level, sep, text = line.partition(": ")
        if sep and level in ("Warning", "Info"):
            reports.append((level.upper(), text.strip()))
        elif "| WARNING: " in line:
            gltf.append("glTF exporter: " + line.split("| WARNING: ", 1)[1].strip())
    return unfold_reported(reports) + fold(gltf, None)


def run_job(job: ConvertJob, log: OutputLog | None, setup_error: str | None,
            empty_scene: Callable[[], object] | None = None) -> ConvertResult:
    """One job with every failure turned into a result: a bad file never stops the batch.
    ``empty_scene``: what empties the scene first (:func:`.convert.convert`)."""
    started = time.perf_counter()
    result = ConvertResult(job.source, job.output, ok=False)
    if setup_error:
        result.error = setup_error
        return result
    position = log.position() if log else 0
    try:
        notes = convert(job, empty_scene)
    except ConvertError as exc:
        result.error = str(exc).removeprefix(f"{job.source}: ")
    except MemoryError:
        result.error = "not enough memory"
    except Exception as exc:  # a bug in an operator must not end the batch: report it with its trace
        result.error = f"internal error: {type(exc).__name__}: {exc}\n{traceback.format_exc()}"
    else:
        result.ok = True
        result.empty = any(note.startswith(NO_DRAWABLE) for note in notes)
    folded = (reported_warnings(log.text_since(position)) if log else []) + fold(notes if result.ok else [], None)
    # a terminal wraps: a line that stands for one message shows that message whole
    result.lines = [f.details[0] if len(f.details) == 1 else f.line for f in folded]
    result.warnings = full_list(folded)
    result.seconds = time.perf_counter() - started
    return result


def worker_main(conn, work_dir: str) -> None:
    """Process entry point: set up bpy once, then answer each job sent on ``conn`` until ``None``.

    ``work_dir`` (made and removed by the parent) receives Blender's user resources and
    ``output.log``, where the parent reads the last words of a worker that crashed.
    """
    work = Path(work_dir)
    log = OutputLog(work / "output.log")
    setup_error = None
    empty_scene = None
    try:
        enable_package(work)
        from .scene_reset import SceneReset  # bpy is there now
        empty_scene = SceneReset().clean
    except ImportError as exc:
        setup_error = f"convert needs the bpy module (Blender as a Python module): {exc}"
    except ConvertError as exc:
        setup_error = str(exc)
    conn.send(READY)
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        conn.send(run_job(job, log, setup_error, empty_scene))
