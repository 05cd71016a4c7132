"""Batch conversion speed: ``convert`` of many corpus files, files per second, before and after.

    python tools/benchmark_batch.py [--base CHECKOUT] [--files small|all] [--to glb,md2,mdl] [-j 2]
                                    [--python BPY_PYTHON] [--json PATH]

Runs ``python -m classic_models convert FILES --to T -o TMP -j N --json`` as a user does (a
``classic_models`` link to the checkout on ``PYTHONPATH``), once per target, for this checkout and,
with ``--base CHECKOUT`` (``git worktree add --detach /tmp/batch-base main``), for the older one first,
and prints per target: the files, the CPU seconds of the whole command (the parent and its worker
processes: ``resource.getrusage(RUSAGE_CHILDREN)``, worker start-up included), files per CPU second,
what that makes on two free cores (twice it), the wall-clock rate the run had on this machine, and
how many outputs of the two checkouts are byte for byte the same.

``--files small`` (the default): the corpus model files under 100 KB; ``all``: every corpus model
file. ``.md5anim`` files are left out (an animation, not a model: converted alone it fails and names
its mesh). CPU seconds do not grow when other work shares the machine (wall-clock seconds do); the
load average before each run is printed and recorded.
"""
from __future__ import annotations

import argparse
import filecmp
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
CORPUS = CHECKOUT.parent / "shared" / "corpus"
SMALL = 100_000                  # bytes: what counts as a small file
MODEL_SUFFIXES = (".md2", ".mdl", ".ms3d", ".md3", ".md5mesh")


def corpus_files(corpus: Path, which: str) -> list[Path]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix.lower() in MODEL_SUFFIXES and p.is_file())
    return [p for p in files if which == "all" or p.stat().st_size < SMALL]


def _commit(checkout: Path) -> str:
    found = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return found.stdout.strip() or "unknown"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_batch(python: str, checkout: Path, files: list[Path], target: str, out: Path, jobs: int,
              work: Path) -> dict:
    """One ``convert`` run; its summary with ``cpu``, ``wall`` and ``load`` added."""
    link_dir = work / f"pkg-{checkout.name}"
    link_dir.mkdir(exist_ok=True)
    link = link_dir / "classic_models"
    if not link.exists():
        link.symlink_to(checkout.resolve(), target_is_directory=True)
    env = dict(os.environ, PYTHONPATH=str(link_dir))
    command = [python, "-m", "classic_models", "convert", *map(str, files), "--to", target, "-o", str(out),
               "-j", str(jobs), "--json", "-q"]
    load = os.getloadavg()[0]
    cpu, wall = _children_cpu(), time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=work)
    cpu, wall = _children_cpu() - cpu, time.perf_counter() - wall
    summary = json.loads(done.stdout)["summary"]
    return dict(summary, cpu=cpu, wall=wall, load=load, returncode=done.returncode)


def same_outputs(before: Path, after: Path) -> tuple[int, int]:
    """(outputs byte for byte the same, outputs in all) over what either run wrote."""
    names = {p.relative_to(before) for p in before.rglob("*") if p.is_file()} | \
            {p.relative_to(after) for p in after.rglob("*") if p.is_file()}
    same = sum((before / n).is_file() and (after / n).is_file() and filecmp.cmp(before / n, after / n, shallow=False)
               for n in names)
    return same, len(names)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="an older checkout to run first (before)")
    parser.add_argument("--files", choices=("small", "all"), default="small")
    parser.add_argument("--to", default="glb,md2,mdl", help="targets, comma-separated")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--python", default=sys.executable, help="a Python with bpy (default: this one)")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", type=Path, help="also write the table as a record for tools/figures.py")
    args = parser.parse_args(argv)
    files = corpus_files(args.corpus, args.files)
    checkouts = ([args.base] if args.base else []) + [CHECKOUT]
    rows, loads = [], []
    work = Path(tempfile.mkdtemp(prefix="benchmark_batch_"))
    try:
        for target in args.to.split(","):
            runs = []
            for number, checkout in enumerate(checkouts):
                run = run_batch(args.python, checkout, files, target, work / f"out-{target}-{number}", args.jobs, work)
                runs.append(run)
                loads.append(run["load"])
                print(f"{target} {checkout}: {run['files']} files ({run['converted']} converted, {run['failed']} failed), "
                      f"{run['cpu']:.1f} CPU s, {run['wall']:.1f} s, load {run['load']:.1f}", file=sys.stderr, flush=True)
            rows += table_rows(target, runs, args.jobs)
            if args.base:
                same, total = same_outputs(work / f"out-{target}-0", work / f"out-{target}-1")
                rows[-1].append(f"{same} of {total}")
            print("| " + " | ".join(rows[-1]) + " |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    headers = ["target", "files", "failed", "CPU s", "files per CPU s", f"files/s on {args.jobs} cores (from CPU)",
               "files/s (wall)"]
    if args.base:
        headers = ["target", "files", "failed", "CPU s before", "after", "files per CPU s before", "after",
                   "before / after", f"files/s on {args.jobs} free cores after", "wall files/s before", "after",
                   "same outputs"]
    if args.json:
        sys.path.insert(0, str(CHECKOUT))
        from tools.figures import write_record
        python = subprocess.run([args.python, "-c", "import bpy; print(bpy.app.version_string)"],
                                capture_output=True, text=True).stdout.strip().splitlines()
        which = "every corpus model file" if args.files == "all" else f"the corpus model files under {SMALL // 1000} KB"
        environment = (f"bpy {python[-1] if python else '?'}, {len(files)} files ({which}), -j {args.jobs}, "
                       f"load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores")
        if args.base:
            environment += f"; before: commit {_commit(args.base)}, after: commit {_commit(CHECKOUT)}"
        command = "python tools/benchmark_batch.py" + (" --base CHECKOUT" if args.base else "") + \
            (f" --files {args.files}" if args.files != "small" else "")
        write_record(args.json, script="tools/benchmark_batch.py", command=command, environment=environment,
                     headers=headers, rows=rows)
    return 0


def table_rows(target: str, runs: list[dict], jobs: int) -> list[list[str]]:
    last = runs[-1]
    per_cpu = [r["files"] / r["cpu"] for r in runs]
    wall = [r["files"] / r["wall"] for r in runs]
    if len(runs) == 1:
        return [[target, str(last["files"]), str(last["failed"]), f"{last['cpu']:.1f}", f"{per_cpu[0]:.1f}",
                 f"{per_cpu[0] * jobs:.1f}", f"{wall[0]:.1f}"]]
    return [[target, str(last["files"]), str(last["failed"]), f"{runs[0]['cpu']:.1f}", f"{last['cpu']:.1f}",
             f"{per_cpu[0]:.1f}", f"{per_cpu[1]:.1f}", f"{per_cpu[1] / per_cpu[0]:.2f}x", f"{per_cpu[1] * jobs:.1f}",
             f"{wall[0]:.1f}", f"{wall[1]:.1f}"]]


if __name__ == "__main__":
    sys.exit(main())
