"""Many inputs: expanding directories, naming outputs, worker processes, progress and summary.

Directories are searched recursively for files of the format table's extensions, any case (``convert``
takes each row's first only: ``.md5mesh``, not the ``.md5anim`` read with it; see :func:`_in_folder`). An
output is ``<stem>.<target>`` in the output directory, below the same sub-folders as its input
under a directory argument (Quake II keeps every player in its own ``tris.md2``), or next to the
input without ``-o``. File arguments that would share an output name in ``-o``
(``players/male/tris.md2 players/female/tris.md2``) keep their folders relative to the common parent
of those inputs (``male/tris.mdl``, ``female/tris.mdl``). A job that would overwrite its input, or
another job's output, fails alone.

Jobs run in worker processes (spawned, so each loads Blender afresh; :func:`.worker.worker_main`),
each converting one file after another with Blender loaded once and the scene emptied cheaply
between files (:mod:`.scene_reset`). The parent sends the largest inputs first, and each worker its
next job before the current one ends (on a busy machine a worker then goes on without waiting for
the parent's turn), and watches it: a worker that dies (Blender can crash on what it is given) or
passes ``timeout`` fails only the job it was on and is replaced; the job waiting for it goes to
another.
"""
from __future__ import annotations

import multiprocessing
import os
import re
import shutil
import tempfile
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path
from typing import TextIO

from ..formats import table
from ..formats.message_text import quoted
from .convert import ConvertJob, ConvertResult, ConvertSettings, temporary_output
from .inspect import model_format, model_suffixes
from .worker import READY, worker_main

RATE_EVERY = 50          # plain output: a progress line at least every this many files
IN_FLIGHT = 2            # jobs sent to a worker ahead: the next one waits in its pipe


@dataclass
class Source:
    """An input file; ``root`` is the directory argument it was found under (None for a file argument)."""
    path: Path
    root: Path | None = None


def _in_folder(path: Path, side_files: bool) -> bool:
    """A file a directory argument takes: any of the table's extensions, or with ``side_files`` False
    (convert) only its row's first one: the others are read with the model (an ``.md5anim`` with its
    ``.md5mesh``), and converted alone they would fail or write the model's output again."""
    row = table.row_for_name(path.name)
    return row is not None and (side_files or path.suffix.lower() == row.extensions[0]) and path.is_file()


def expand_inputs(inputs: list[str], side_files: bool = True) -> tuple[list[Source], list[str]]:
    """Files from file and directory arguments, in argument order then path order; and the misses."""
    sources: list[Source] = []
    missing: list[str] = []
    seen: set[Path] = set()
    for text in inputs:
        path = Path(text)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if _in_folder(p, side_files))
            if not found:
                missing.append(f"{text}: no {model_suffixes()} files in this directory")
            items = [Source(p, path) for p in found]
        elif path.is_file():
            items = [Source(path)]
        else:
            missing.append(f"{text}: no such file or directory")
            items = []
        for item in items:
            key = item.path.resolve()
            if key not in seen:
                seen.add(key)
                sources.append(item)
    return sources, missing


def output_name(stem: str, target: str, suffix: str = "") -> str:
    """``stem`` with the extension a ``--to target`` export writes: its row's first (``.md5mesh``), else
    ``.<target>`` (``.blend``, ``.glb``); an input of the target's format with another of its extensions
    (``suffix``: an ``.md5anim`` converted to md5, written alone) keeps it."""
    if target in table.keys():
        extensions = table.row(target).extensions
        return stem + (suffix.lower() if suffix.lower() in extensions[1:] else extensions[0])
    return f"{stem}.{target}"


def output_path(source: Source, target: str, out_dir: Path | None, folder: Path | None = None) -> Path:
    """Where ``source`` is written; ``folder`` (from :func:`shared_name_folders`) goes under ``out_dir``."""
    name = output_name(source.path.stem, target, source.path.suffix)
    if out_dir is None:
        return source.path.with_name(name)
    if source.root is not None:
        return out_dir / source.path.parent.relative_to(source.root) / name
    return out_dir / folder / name if folder is not None else out_dir / name


def shared_name_folders(sources: list[Source], target: str, out_dir: Path | None) -> dict[Path, Path]:
    """File arguments (resolved path -> folder) whose outputs would share a name in ``out_dir``: each
    one's folder relative to the common parent of the inputs sharing that name."""
    if out_dir is None:
        return {}
    by_name: dict[str, list[Path]] = {}
    for source in sources:
        if source.root is None:
            by_name.setdefault(output_name(source.path.stem, target, source.path.suffix), []).append(source.path.resolve())
    folders: dict[Path, Path] = {}
    for paths in by_name.values():
        if len(paths) > 1:
            common = Path(os.path.commonpath([p.parent for p in paths]))
            folders.update({p: p.parent.relative_to(common) for p in paths})
    return folders


def plan(sources: list[Source], settings: ConvertSettings, out_dir: Path | None,
         skip_existing: bool) -> tuple[list[ConvertJob], list[ConvertResult]]:
    """The jobs to run, and the results already known (refused or skipped), in input order."""
    jobs: list[ConvertJob] = []
    known: list[ConvertResult] = []
    claimed: dict[Path, str] = {}
    inputs = {s.path.resolve() for s in sources}
    folders = shared_name_folders(sources, settings.target, out_dir)
    for source in sources:
        output = output_path(source, settings.target, out_dir, folders.get(source.path.resolve()))
        key = output.resolve()
        fmt = model_format(source.path)
        error = None
        if fmt is None:
            error = f"unknown extension {quoted(source.path.suffix)}"
        elif key in inputs:
            error = f"the output {output} would overwrite an input; choose another directory with -o"
        elif key in claimed:
            error = f"the output {output} is also the output of {claimed[key]}"
        if error:
            known.append(ConvertResult(str(source.path), None, ok=False, error=error))
            continue
        claimed[key] = str(source.path)
        if skip_existing and output.exists():
            known.append(ConvertResult(str(source.path), str(output), ok=True, skipped=True))
            continue
        jobs.append(ConvertJob(str(source.path), fmt, str(output), settings))
    return jobs, known


class Progress:
    """A bar on a terminal (stderr), plain lines otherwise; problems are always printed.

    The bar shows the files done, the total and the rate (files a second since :meth:`start`); plain
    output prints that as a ``progress:`` line after every tenth of the files (at least every
    :data:`RATE_EVERY`, at most every 10) and after the last. ``clock`` is where the seconds come from."""

    def __init__(self, total: int, out: TextIO, err: TextIO, quiet: bool = False, verbose: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.clock = clock
        self.started = clock()
        self.verbose = verbose     # every message, not one line per kind of problem
        self.done = 0
        self.failed = 0
        self.out = out
        self.err = err
        self.quiet = quiet
        self.tty = err.isatty()
        self._bar_shown = False

    def start(self, workers: int) -> None:
        self.started = self.clock()
        if not self.tty and not self.quiet:
            self._line(f"converting {self.total} file(s) with {workers} worker(s)")
        self._draw("")

    def update(self, result: ConvertResult) -> None:
        self.done += 1
        self.failed += not result.ok
        lines = []
        if not result.ok:
            lines.append(f"[{self.done}/{self.total}] FAILED {result.source}: {_first_line(result.error)}")
        elif not self.tty:
            state = "skipped (exists)" if result.skipped else f"ok {result.seconds:.1f} s"
            state += ", EMPTY: no drawable triangles" if result.empty else ""
            lines.append(f"[{self.done}/{self.total}] {result.source} -> {result.output} ({state})")
        elif (result.warnings and not self.quiet) or result.empty:
            lines.append(f"[{self.done}/{self.total}] {result.source} -> {result.output}"
                         + (" (EMPTY: no drawable triangles)" if result.empty else ""))
        if not self.quiet:
            lines += [f"    warning: {w}" for w in (result.warnings if self.verbose else result.lines)]
        step = min(RATE_EVERY, max(10, -(-self.total // 10)))
        if not self.tty and not self.quiet and (self.done % step == 0 or self.done == self.total):
            lines.append(f"progress: {self.counts()}")
        for line in lines:
            self._line(line)
        self._draw(Path(result.source).name)

    def rate(self) -> float:
        """Files done a second since :meth:`start`."""
        return self.done / max(self.clock() - self.started, 1e-6)

    def counts(self) -> str:
        """``12/276 files, 9.8 files/s, 1 failed``."""
        return (f"{self.done}/{self.total} files, {self.rate():.1f} files/s"
                + (f", {self.failed} failed" if self.failed else ""))

    def finish(self) -> None:
        if self._bar_shown:
            self.err.write("\r\x1b[K")
            self.err.flush()
            self._bar_shown = False

    def _line(self, text: str) -> None:
        self.finish()
        print(text, file=self.out, flush=True)

    def _draw(self, last: str) -> None:
        if not self.tty:
            return
        columns = shutil.get_terminal_size((80, 20)).columns
        width = 24
        filled = width * self.done // max(self.total, 1)
        bar = "#" * filled + "-" * (width - filled)
        text = f"[{bar}] {self.done}/{self.total}" + (f" failed {self.failed}" if self.failed else "")
        text += f" {self.rate():.1f} files/s"
        text = f"{text}  {last}"[:max(columns - 1, 10)]
        self.err.write(f"\r\x1b[K{text}")
        self.err.flush()
        self._bar_shown = True


def _first_line(text: str | None) -> str:
    return (text or "failed").splitlines()[0]


class _Worker:
    """One worker process, the jobs sent to it (the first is the one it works on, the next waits in
    the pipe so the worker never waits for the parent) and since when it works on the first."""

    def __init__(self, context, work_dir: Path, number: int) -> None:
        self.dir = work_dir / f"worker{number}"
        self.dir.mkdir()
        self.conn, child = context.Pipe()
        self.process = context.Process(target=worker_main, args=(child, str(self.dir)), daemon=True)
        self.process.start()
        child.close()
        self.jobs: deque[tuple[int, ConvertJob]] = deque()
        self.ready = False
        self.since = time.monotonic()

    def send(self, index: int, job: ConvertJob) -> None:
        if not self.jobs:
            self.since = time.monotonic()
        self.jobs.append((index, job))
        self.conn.send(job)

    def receive(self) -> tuple[int, ConvertResult] | None:
        """The first job's index and result, or None after the ``ready`` message (the first job's
        clock starts then, as the next job's starts with each result)."""
        message = self.conn.recv()
        self.since = time.monotonic()
        if message == READY:
            self.ready = True
            return None
        index, _ = self.jobs.popleft()
        return index, message

    def overdue(self, timeout: float | None) -> bool:
        return timeout is not None and self.ready and bool(self.jobs) and time.monotonic() - self.since > timeout

    def failure(self, timeout: float | None, overdue: bool) -> tuple[int, ConvertResult]:
        """Stop the process and say why its first job has no result (the others go back to the queue:
        :attr:`jobs` keeps them). Not ``overdue``: the process ended (its pipe did first)."""
        index, job = self.jobs.popleft()
        if overdue:
            self.process.kill()
            self.process.join()
            reason = f"gave up after {timeout:g} s (--timeout)"
        else:
            self.process.join(10)
            if self.process.is_alive():
                self.process.kill()
                self.process.join()
            reason = f"the worker process died (exit code {self.process.exitcode})"
            words = self.last_words()
            if words:
                reason += f"; its last output: {words}"
        self.conn.close()
        temporary_output(Path(job.output), self.process.pid).unlink(missing_ok=True)
        return index, ConvertResult(job.source, job.output, ok=False, error=reason,
                                    seconds=time.monotonic() - self.since)

    def last_words(self) -> str:
        try:
            lines = (self.dir / "output.log").read_text("utf-8", "replace").strip().splitlines()
        except OSError:
            return ""
        return lines[-1].strip() if lines else ""

    def stop(self, graceful: bool) -> None:
        if graceful:
            try:
                self.conn.send(None)
            except (OSError, ValueError):
                pass
            self.process.join(10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


def _input_size(job: ConvertJob) -> int:
    try:
        return os.path.getsize(job.source)
    except OSError:
        return 0


def run_jobs(jobs: list[ConvertJob], workers: int, progress: Progress,
             timeout: float | None = None) -> list[ConvertResult]:
    """Run every job in ``workers`` processes; results in job order. Never raises for a job.

    The largest inputs go first: the long conversions then overlap the many short ones, and the
    workers finish together instead of one converting the last big model alone."""
    if not jobs:
        return []
    results: list[ConvertResult | None] = [None] * len(jobs)
    context = multiprocessing.get_context("spawn")
    pending = deque(sorted(enumerate(jobs), key=lambda item: -_input_size(item[1])))
    work_dir = Path(tempfile.mkdtemp(prefix="classic_models_batch_"))
    pool: list[_Worker] = []
    spawned = 0
    finished = False
    try:
        while pending or pool:
            for worker in [w for w in pool if not w.jobs and not w.process.is_alive()]:
                worker.stop(graceful=False)         # ended between two jobs: no job lost
                pool.remove(worker)
            while pending and len(pool) < workers:
                pool.append(_Worker(context, work_dir, spawned))
                spawned += 1
            for worker in pool:
                while pending and len(worker.jobs) < IN_FLIGHT:
                    worker.send(*pending.popleft())
            wait_for = None
            if timeout is not None and any(w.ready and w.jobs for w in pool):
                wait_for = max(0.0, min(w.since for w in pool if w.ready and w.jobs) + timeout - time.monotonic())
            ready = wait([w.conn for w in pool] + [w.process.sentinel for w in pool], wait_for)
            for worker in list(pool):
                alive = True
                while worker.jobs and worker.conn.poll():
                    try:
                        received = worker.receive()
                    except (EOFError, OSError):
                        alive = False
                        break
                    if received is not None:
                        results[received[0]] = received[1]
                        progress.update(received[1])
                overdue = worker.overdue(timeout)
                if worker.jobs and (not alive or worker.process.sentinel in ready or overdue):
                    index, result = worker.failure(timeout, overdue and alive and worker.process.sentinel not in ready)
                    results[index] = result
                    progress.update(result)
                    pending.extendleft(reversed(worker.jobs))      # sent but not started: to another worker
                    pool.remove(worker)
                elif not worker.jobs and not pending:
                    worker.stop(graceful=True)
                    pool.remove(worker)
        finished = True
    finally:
        for worker in pool:
            worker.stop(graceful=finished)
        progress.finish()
        shutil.rmtree(work_dir, ignore_errors=True)
    return [r for r in results if r is not None]


def summary(results: list[ConvertResult], seconds: float, workers: int, target: str) -> list[str]:
    ok = [r for r in results if r.ok and not r.skipped]
    skipped = [r for r in results if r.skipped]
    failed = [r for r in results if not r.ok]
    warned = [r for r in results if r.ok and r.warnings]
    parts = [f"{len(ok)} converted"]
    if skipped:
        parts.append(f"{len(skipped)} skipped (output exists)")
    parts.append(f"{len(failed)} failed")
    if warned:
        parts.append(f"{len(warned)} with warnings")
    empty = [r for r in results if r.ok and r.empty]
    if empty:
        parts.append(f"{len(empty)} empty (no drawable triangles)")
    done = len(results) - len(skipped)
    lines = [f"{len(results)} file(s) to {target}: " + ", ".join(parts)
             + f" in {seconds:.1f} s, {done / max(seconds, 1e-6):.1f} files/s"
             + f" ({workers} worker{'s' if workers != 1 else ''})"]
    if failed:
        lines.append("failed:")
        lines += [f"  {line}" for line in failure_lines(failed)]
    if empty:
        lines.append("empty (no drawable triangles):")
        lines += [f"  {r.source} -> {r.output}" for r in empty]
    return lines


def failure_kinds(failed: list[ConvertResult]) -> list[tuple[str, list[ConvertResult]]]:
    """The failed results grouped by kind of problem (their first error lines with the file's own
    name and the numbers left out), each kind with its text: the error itself when every file of the
    kind has the same one, else the kind (``<name>`` for the file's name, ``N`` for numbers)."""
    groups: dict[str, list[ConvertResult]] = {}
    for result in failed:
        groups.setdefault(_problem_kind(result), []).append(result)
    kinds = []
    for kind, members in groups.items():
        texts = {_first_line(r.error) for r in members}
        kinds.append((texts.pop() if len(texts) == 1 else kind, members))
    return kinds


def failure_lines(failed: list[ConvertResult], examples: int = 3) -> list[str]:
    """One line per kind of problem: ``path: error`` for a kind of one file, else ``N files: error
    (a, b, c and N more)``."""
    lines = []
    for text, members in failure_kinds(failed):
        if len(members) == 1:
            lines.append(f"{members[0].source}: {text}")
            continue
        shown = ", ".join(r.source for r in members[:examples])
        more = len(members) - examples
        lines.append(f"{len(members)} files: {text} ({shown}" + (f" and {more} more)" if more > 0 else ")"))
    return lines


def _problem_kind(result: ConvertResult) -> str:
    text = _first_line(result.error).replace(result.source, "<file>")
    name = Path(result.source).name
    text = text.replace(name, "<file>") if name else text
    stem = Path(name).stem
    if stem:       # a file named after it (no idle.md5mesh lies beside it)
        text = re.sub(rf"(?<![\w.]){re.escape(stem)}(?=\.\w)", "<name>", text)
    return re.sub(r"\b\d+\b", "N", text)


def default_workers() -> int:
    return os.cpu_count() or 1
