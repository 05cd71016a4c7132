"""One real ``convert`` batch over corpus models of four formats, and its outputs beside their sources: one picture.

    .venvs/bpy-5.2/bin/python tools/convert_sheet.py [MODELS...] [--to md2|mdl] [-o docs/convert_sheet.png]

Runs ``python -m classic_models convert MODELS --to md2 -o OUT --json`` in the corpus folder as a user
does (a ``classic_models`` link to this checkout on ``PYTHONPATH``; default models: an MS3D with its
skeletal animation, an MD3 with vertex frames, an MD5 anim that goes onto the mesh beside it, an IQM),
then imports each source and each converted file with the default options and renders three frames of
each at the same times (the converted file's first frame, one third and two thirds through, and the
source's frames nearest those times; Workbench,
texture colours, :func:`tools.contact_sheet.render_contact_sheet`): one row per model, the source's
frames on the left, the converted file's on the right, both seen by one camera framing the source's
frames shown. Prints a markdown caption with the command and
the counts the batch printed; exits 1 if the batch failed.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

CORPUS = CHECKOUT.parent / "shared" / "corpus"
DEFAULT_MODELS = ("ms3d/sge/zombie.ms3d", "md3/nexuiz/models/ctf/flag_red.md3",
                  "md5/redeclipse/data/actors/drone/forward.md5anim", "iqm/redeclipse/data/john/target/move.iqm")
DEFAULT_SHEET = CHECKOUT / "docs" / "convert_sheet.png"
TILE = 112
FRACTIONS = (0.0, 1 / 3, 2 / 3)
DIVIDER = (0.75, 0.75, 0.78)
SUMMARY = re.compile(r"^(?P<counts>\d+ file\(s\) to \w+: .*?) in [\d.]+ s, .*$", re.M)


def run_batch(models: list[str], corpus: Path, target: str, out: Path, work: Path) -> dict:
    """The batch as a user runs it: its command, exit status, JSON report and summary line (counts only)."""
    link = work / "pkg" / "classic_models"
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.exists():
        link.symlink_to(CHECKOUT, target_is_directory=True)
    args = ["convert", *models, "--to", target, "-o", str(out), "-j", "1", "--json"]
    done = subprocess.run([sys.executable, "-m", "classic_models", *args], cwd=corpus, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(link.parent)), timeout=600)
    found = SUMMARY.search(done.stderr)
    report = json.loads(done.stdout) if done.stdout.strip() else {"results": [], "summary": {}}
    return {"command": " ".join(["python -m classic_models", *args[:-5], "-o", "out", *args[-3:]]),
            "returncode": done.returncode, "report": report, "summary": found.group("counts") if found else "",
            "stderr": done.stderr}


def frames_at(scene, seconds: list[float] | None = None) -> list[int]:
    """The scene frames at :data:`FRACTIONS` of its range, or at ``seconds`` from its start (at its rate)."""
    start, end = scene.frame_start, scene.frame_end
    if seconds is None:
        return [round(start + f * (end - start)) for f in FRACTIONS]
    rate = scene.render.fps / scene.render.fps_base
    return [min(end, start + round(t * rate)) for t in seconds]


def imported(bpy, path: Path):
    """The scene of ``path`` imported alone, with the default options, into the empty home file."""
    from formats import table
    bpy.ops.wm.read_homefile(use_empty=True)
    operator = getattr(bpy.ops.import_scene, table.row_for_name(path.name).import_operator.split(".")[1])
    assert operator(filepath=str(path)) == {"FINISHED"}, path
    return bpy.context.scene


def seconds_at(scene, frames: list[int]) -> list[float]:
    return [(f - scene.frame_start) * scene.render.fps_base / scene.render.fps for f in frames]


def strip_of(bpy, path: Path, tmp: Path, bounds: np.ndarray | None = None,
             seconds: list[float] | None = None) -> dict:
    """``path`` imported alone with the default options and rendered at :func:`frames_at`: ``strip`` (TILE,
    3 * TILE, 3) floats, top row first; ``count`` the scene's frames; ``frames`` those shown and ``seconds``
    their times; ``bounds`` the points the camera framed (given: another model's, so that both are seen by
    one camera at one scale, at the other model's ``seconds``)."""
    from tools.contact_sheet import model_points, read_png, render_contact_sheet
    scene = imported(bpy, path)
    meshes = [o for o in bpy.context.view_layer.objects if o.type == "MESH"]
    frames = frames_at(scene, seconds)
    if bounds is None:
        bounds = np.concatenate([model_points(bpy.context, o, frames) for o in meshes])
    picture = tmp / f"{path.name}.png"
    render_contact_sheet(bpy.context, meshes[0], picture, tile_size=TILE, groups=[frames], bounds=bounds)
    return {"strip": read_png(picture)[::-1, :, :3], "count": scene.frame_end - scene.frame_start + 1,
            "frames": frames, "seconds": seconds_at(scene, frames), "bounds": bounds}


def _listed(frames: list[int]) -> str:
    return ", ".join(map(str, frames))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=list(DEFAULT_MODELS),
                        help="model files relative to the corpus folder")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--to", default="md2", choices=("md2", "mdl"))
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_SHEET)
    parser.add_argument("--keep", type=Path, help="write the batch's outputs here (default: a temporary folder)")
    args = parser.parse_args(argv)
    missing = [m for m in args.models if not (args.corpus / m).is_file()]
    if missing:
        print(f"error: not in {args.corpus}: {', '.join(missing)} (the corpus: bash tools/dev.sh corpus)",
              file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="convert_sheet_") as work:
        work = Path(work)
        batch = run_batch(args.models, args.corpus, args.to, (args.keep or work / "out").resolve(), work)
        results = batch["report"]["results"]
        if batch["returncode"] != 0 or len(results) != len(args.models) or not all(r["ok"] for r in results):
            print(f"error: the batch failed (exit {batch['returncode']}):\n{batch['stderr'][-2000:]}", file=sys.stderr)
            return 1
        from tools.load_extension import enable_extension
        enable_extension()
        import bpy

        from tools.skins_sheet import write_row
        rows, lines = [], []
        for model, result in zip(args.models, results):
            output = Path(result["output"])
            # the times of the converted file's frames (a third of its range ...), the source's frames nearest
            scene = imported(bpy, output)
            times = seconds_at(scene, frames_at(scene))
            source = strip_of(bpy, args.corpus / model, work, seconds=times)
            converted = strip_of(bpy, output, work, bounds=source["bounds"], seconds=times)
            divider = np.broadcast_to(np.asarray(DIVIDER, np.float32), (TILE, 4, 3))
            rows.append(np.concatenate([source["strip"], divider, converted["strip"]], axis=1))
            at = ", ".join(f"{t:.2f}" for t in source["seconds"])
            lines.append(f"- `{model}`: frames {_listed(source['frames'])} of {source['count']}; `{output.name}`: "
                         f"frames {_listed(converted['frames'])} of {converted['count']} (the source's at {at} s)")
        write_row([np.concatenate(rows, axis=0)], args.output)
    print(f"`{batch['command']}` (in the corpus folder) printed `{batch['summary']}` and exited "
          f"{batch['returncode']}. Each row: the source (left) and the converted {args.to.upper()} (right), "
          f"at the same times: the start, a third and two thirds through the animation.\n")
    print("\n".join(lines))
    print(f"\nsheet: {args.output} ({len(rows)} rows of {2 * len(FRACTIONS)} tiles of {TILE} px)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
