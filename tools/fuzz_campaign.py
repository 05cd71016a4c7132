"""The long fuzz campaign: many seeded cases through the parsers, then through the import operators.

    .venvs/bpy-5.0/bin/python tools/fuzz_campaign.py --cases 20000 --blender-cases 500 \\
        [--seed N] [--format md2|mdl|ms3d|md5|md3|pak|pk3|all] [--out out/fuzz] [--time-limit SECONDS] [--markdown] [--verbose]

The cases are those of ``tests/support/fuzzing.py`` and, for the archives (``pak``, ``pk3``: the reader only,
no Blender phase), ``tests/support/fuzzing_archives.py``, and for ``md5`` (a mesh with its anim beside it, text
mutations) and ``md3``, ``tests/support/fuzzing_md5_md3.py`` (the test suite runs the first few hundred of the same
streams). Codec phase, per format: ``--cases`` cases; each must parse or raise FormatError, within
2 s and 20x its size + 1 MB of memory, and a parsed model must serialize (or raise FormatError)
into bytes that parse again. Blender phase (only where ``bpy`` imports; ``--blender-cases 0`` skips
it): the first ``--blender-cases`` cases of each format are imported through
``bpy.ops.import_scene.<format>``: the operator must finish, or report an ERROR and leave every
``bpy.data`` count, the markers and the scene timing as they were; a finished import, deleted and
purged, must leave nothing. The corpus skins are copied next to the cases, so skin lookup and image
decoding run too. A format whose operator is not registered is reported and skipped.

Every failure is written to ``<out>/<format>/<phase>-<outcome>-<n>.<format>`` (at most 20 per kind)
with a ``.txt`` beside it naming the case and the error; what Blender prints during the imports goes
to ``<out>/blender-<format>.log`` (``--verbose`` keeps it on the terminal). The run stops by itself:
after the given counts, or at ``--time-limit`` (default one hour) with what it has. Also the
codec phase with a plain ``python3`` (numpy, no bpy). Exit status 1 if anything failed. MDL cases come
in all three flavours (IDPO, MD16, RAPO); the codec line per flavour says how many of each parsed.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from tests.support import fuzzing, fuzzing_archives, fuzzing_blender, fuzzing_md5_md3  # noqa: E402

CASE_TIMEOUT = 30.0
MAX_REPRODUCERS = 20


class CaseTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise CaseTimeout(f"no result after {CASE_TIMEOUT:g} s")


@dataclass
class Tally:
    """What one phase of one format saw."""
    run: int = 0
    outcomes: Counter = field(default_factory=Counter)
    slowest: float = 0.0
    slowest_case: str = ""
    worst_memory: float = 0.0            # peak / file size, over files of 64 KiB or more
    written: Counter = field(default_factory=Counter)
    note: str = ""
    flavours: Counter = field(default_factory=Counter)   # MDL: "<ident>/<outcome>" (IDPO, MD16, RAPO)

    def failures(self, ok: tuple[str, ...]) -> int:
        return sum(n for outcome, n in self.outcomes.items() if outcome not in ok)


class Reproducers:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.paths: list[Path] = []

    def write(self, tally: Tally, phase: str, case: fuzzing.Case, outcome: str, detail: str) -> None:
        kind = f"{phase}-{outcome}"
        if tally.written[kind] >= MAX_REPRODUCERS:
            return
        tally.written[kind] += 1
        folder = self.root / case.format
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{kind}-{tally.written[kind]:02d}.{case.format}"
        if case.format in fuzzing_md5_md3.KINDS:     # an MD5 mesh with its anim beside it
            path = fuzzing_md5_md3.write_case(case, folder, path.stem)
        else:
            path.write_bytes(case.data)
        path.with_suffix(".txt").write_text(f"case: {case.name}\noutcome: {outcome}\n\n{detail}\n",
                                            encoding="utf-8")
        self.paths.append(path)


def _streams(fmt: str, seed: int, tally: Tally) -> Iterator[fuzzing.Case]:
    """The fair mix of :func:`fuzzing.iter_cases`, surviving a generator that raises: a builder's
    serializer crashing is counted as a codec crash and the generator restarts from a new seed."""
    make = (fuzzing_archives.generators if fmt in fuzzing_archives.KINDS else
            fuzzing_md5_md3.generators if fmt in fuzzing_md5_md3.KINDS else fuzzing.generators)
    streams = make(fmt, seed)
    restarts = 0
    while True:
        for name in list(streams):
            try:
                yield next(streams[name])
            except Exception as exc:  # noqa: BLE001 - a crash inside a structure-aware builder
                restarts += 1
                tally.outcomes["crash"] += 1
                tally.note += f" generator {name} crashed: {fuzzing.describe(exc)};"
                streams[name] = make(fmt, seed + 1_000_003 * restarts)[name]


def codec_phase(fmt: str, count: int, seed: int, deadline: float, out: Reproducers) -> Tally:
    tally = Tally()
    run_case = (fuzzing_archives.run_archive_case if fmt in fuzzing_archives.KINDS else
                fuzzing_md5_md3.run_codec_case if fmt in fuzzing_md5_md3.KINDS else fuzzing.run_codec_case)
    for case in _streams(fmt, seed, tally):
        if tally.run >= count:
            break
        if time.monotonic() > deadline:
            tally.note += " stopped at the time limit;"
            break
        tally.run += 1
        signal.setitimer(signal.ITIMER_REAL, CASE_TIMEOUT)
        try:
            result = run_case(case)
        except CaseTimeout as exc:
            result = fuzzing.CodecResult("hang", str(exc), CASE_TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - the harness itself must not stop the campaign
            result = fuzzing.CodecResult("harness-error", fuzzing.describe(exc))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        tally.outcomes[result.outcome] += 1
        if fmt == "mdl":
            ident = case.data[:4]
            flavour = ident.decode("ascii") if ident in (b"IDPO", b"MD16", b"RAPO") else "other"
            tally.flavours[f"{flavour}/{result.outcome}"] += 1
        if result.seconds > tally.slowest:
            tally.slowest, tally.slowest_case = result.seconds, case.name
        if len(case.data) >= 65536:
            tally.worst_memory = max(tally.worst_memory, result.peak / len(case.data))
        if result.outcome not in ("parsed", "refused"):
            out.write(tally, "codec", case, result.outcome, result.detail)
    return tally


@contextmanager
def _output_to(log: Path | None) -> Iterator[None]:
    """Send this process's stdout and stderr (Blender prints every operator report) to ``log``."""
    if log is None:
        yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)


def blender_phase(fmt: str, count: int, seed: int, deadline: float, out: Reproducers, work: Path) -> Tally:
    import bpy
    tally = Tally()
    bpy.ops.wm.read_homefile(use_empty=True)
    operator = fuzzing_blender.import_operator(bpy, fmt)
    if operator is None:
        tally.note = f"bpy.ops.import_scene.{fmt} is not registered: skipped"
        return tally
    work = work / fmt
    work.mkdir(exist_ok=True)
    for image in fuzzing.skin_files(fmt):
        shutil.copyfile(image, work / image.name)
    fuzzing_blender.purge_orphans(bpy)
    for case in _streams(fmt, seed, Tally()):
        if tally.run >= count:
            break
        if time.monotonic() > deadline:
            tally.note += " stopped at the time limit;"
            break
        tally.run += 1
        path = work / f"case{tally.run:05d}.{fmt}"
        if fmt in fuzzing_md5_md3.KINDS:
            path = fuzzing_md5_md3.write_case(case, work, path.stem)
        else:
            path.write_bytes(case.data)
        started = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, CASE_TIMEOUT)
        try:
            outcome, detail = fuzzing_blender.import_outcome(bpy, operator, path)
        except CaseTimeout as exc:
            outcome, detail = "hang", str(exc)
        except Exception as exc:  # noqa: BLE001
            outcome, detail = "harness-error", fuzzing.describe(exc)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = time.perf_counter() - started
        path.unlink(missing_ok=True)
        fuzzing_md5_md3.remove_case(path)
        tally.outcomes[outcome] += 1
        if elapsed > tally.slowest:
            tally.slowest, tally.slowest_case = elapsed, case.name
        if outcome not in ("finished", "error"):
            out.write(tally, "blender", case, outcome, detail)
            bpy.ops.wm.read_homefile(use_empty=True)
            fuzzing_blender.purge_orphans(bpy)
            operator = fuzzing_blender.import_operator(bpy, fmt)
    return tally


def _bpy_available() -> bool:
    try:
        from tools.load_extension import enable_extension
        enable_extension()
    except ImportError:
        return False
    return True


def _row(fmt: str, codec: Tally, blender: Tally | None) -> list[str]:
    crashes = codec.failures(("parsed", "refused"))
    row = [fmt, str(codec.run), str(codec.outcomes["parsed"]), str(codec.outcomes["refused"]), str(crashes),
           f"{codec.slowest * 1e3:.1f}", f"{codec.worst_memory:.1f}x" if codec.worst_memory else "-"]
    if blender is None or not blender.run:
        row += [blender.note if blender is not None and blender.note else "not run", "", "", ""]
    else:
        row += [str(blender.run), str(blender.outcomes["finished"]), str(blender.outcomes["error"]),
                str(blender.failures(("finished", "error")))]
    return row


HEADER = ["format", "cases", "parsed", "FormatError", "crashes", "slowest parse ms", "worst memory",
          "Blender imports", "finished", "error reported", "crashes or leftovers"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20000, help="codec cases per format")
    parser.add_argument("--blender-cases", type=int, default=500, help="operator imports per format (0: none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--format", choices=[*fuzzing.FORMATS, *fuzzing_md5_md3.KINDS, *fuzzing_archives.KINDS, "all"],
                        default="all")
    parser.add_argument("--out", type=Path, default=CHECKOUT / "out" / "fuzz", help="where reproducers go")
    parser.add_argument("--time-limit", type=float, default=3600.0, help="stop after this many seconds")
    parser.add_argument("--markdown", action="store_true", help="print the summary as a Markdown table")
    parser.add_argument("--json", type=Path, help="also write the table as a record for tools/figures.py")
    parser.add_argument("--verbose", action="store_true",
                        help="let Blender print its reports instead of logging them to <out>/blender-<format>.log")
    args = parser.parse_args(argv)

    formats = (fuzzing.FORMATS + fuzzing_md5_md3.KINDS + fuzzing_archives.KINDS if args.format == "all"
               else (args.format,))
    started = time.monotonic()
    deadline = started + args.time_limit
    signal.signal(signal.SIGALRM, _alarm)
    out = Reproducers(args.out)
    use_blender = args.blender_cases > 0 and _bpy_available()
    rows, failed = [], 0
    with tempfile.TemporaryDirectory(prefix="fuzz_campaign_") as work:
        for fmt in formats:
            codec = codec_phase(fmt, args.cases, args.seed, deadline, out)
            blender = None
            if use_blender and fmt not in fuzzing_archives.KINDS:   # archives: the reader alone
                with _output_to(None if args.verbose else args.out / f"blender-{fmt}.log"):
                    blender = blender_phase(fmt, args.blender_cases, args.seed, deadline, out, Path(work))
            failed += codec.failures(("parsed", "refused"))
            if blender is not None:
                failed += blender.failures(("finished", "error"))
            rows.append(_row(fmt, codec, blender))
            print(f"{fmt}: codec {dict(codec.outcomes)} slowest {codec.slowest * 1e3:.1f} ms "
                  f"({codec.slowest_case}){codec.note}", file=sys.stderr)
            if codec.flavours:
                print(f"{fmt}: by flavour {dict(sorted(codec.flavours.items()))}", file=sys.stderr)
            if blender is not None:
                print(f"{fmt}: blender {dict(blender.outcomes)} slowest {blender.slowest:.2f} s "
                      f"({blender.slowest_case}) {blender.note}", file=sys.stderr)
    elapsed = time.monotonic() - started
    if args.markdown:
        print("| " + " | ".join(HEADER) + " |")
        print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(HEADER))) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        blender_note = "" if use_blender else "; Blender phase not run (no bpy)"
        print(f"\nseed {args.seed}, {elapsed:.0f} s{blender_note}")
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADER)]
        for line in (HEADER, *rows):
            print("  ".join(cell.rjust(w) for cell, w in zip(line, widths)))
        print(f"seed {args.seed}, {elapsed:.0f} s")
    for path in out.paths:
        print(f"reproducer: {path}", file=sys.stderr)
    if args.json:
        from tools.figures import write_record
        write_record(args.json, script="tools/fuzz_campaign.py",
                     command=f"bash tools/dev.sh fuzz --cases {args.cases} --blender-cases {args.blender_cases} "
                             f"--seed {args.seed} --markdown",
                     environment=f"Python {sys.version.split()[0]}, seed {args.seed}, {elapsed:.0f} s"
                                 + ("" if use_blender else ", Blender phase not run (no bpy)"),
                     headers=list(HEADER), rows=rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
