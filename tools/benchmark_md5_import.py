"""CPU seconds to import the corpus MD5 models with the most anims (*Anims: Folder*), optionally side by side
with an older checkout, and whether both leave the same keys.

    bash tools/dev.sh bench-md5-import [--cases N] [--repeat N] [--base CHECKOUT]
                                             [--markdown] [--json PATH]

Each case is imported into an empty scene ``--repeat`` times (best CPU seconds, ``time.process_time``).
``--base CHECKOUT`` (``git worktree add --detach /tmp/base main``) times the same imports in a second
process that loads that checkout's extension; "same keys" compares a digest of every action's F-curves
(data path, index, group, every key's frame, value and interpolation) after the import in both.
``--json PATH`` writes the table as a record for ``tools/figures.py``.
"""
from __future__ import annotations

import argparse
import gc
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
CORPUS = CHECKOUT.parent / "shared" / "corpus" / "md5"
HEADERS = ["case", "anims", "joints", "frames", "import CPU s before", "after", "before / after", "same keys"]


def cases(count: int) -> list[tuple[Path, int]]:
    """The ``count`` corpus meshes with the most ``.md5anim`` files beside them, with that number."""
    meshes = [(mesh, len(list(mesh.parent.glob("*.md5anim")))) for mesh in sorted(CORPUS.rglob("*.md5mesh"))]
    return sorted(meshes, key=lambda m: (-m[1], str(m[0])))[:count]


def action_curves(bpy, action) -> list:
    if hasattr(action, "layers") and bpy.app.version >= (4, 4, 0):
        return [c for layer in action.layers for strip in layer.strips for bag in strip.channelbags
                for c in bag.fcurves]
    return list(action.fcurves)


def keys_digest(bpy) -> str:
    import numpy as np
    digest = hashlib.sha256()
    for action in sorted(bpy.data.actions, key=lambda a: a.name):
        for curve in action_curves(bpy, action):
            points = curve.keyframe_points
            co, kind = np.empty(len(points) * 2, np.float32), np.empty(len(points), np.int32)
            points.foreach_get("co", co)
            points.foreach_get("interpolation", kind)
            group = curve.group.name if curve.group else ""
            digest.update(f"{action.name}|{curve.data_path}|{curve.array_index}|{group}".encode())
            digest.update(co.tobytes() + kind.tobytes())
    return digest.hexdigest()


def measure(bpy, path: Path, repeat: int) -> dict:
    """Best CPU seconds of the import, the keys' digest, and the rig's joints and frames keyed."""
    best = float("inf")
    for _ in range(repeat):
        bpy.ops.wm.read_homefile(use_empty=True)
        gc.collect()
        start = time.process_time()
        bpy.ops.import_scene.md5(filepath=str(path), find_anims="FOLDER")
        best = min(best, time.process_time() - start)
    rigs = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
    frames = sum(int(round(a.frame_range[1] - a.frame_range[0])) + 1 for a in bpy.data.actions)
    return {"cpu": best, "digest": keys_digest(bpy), "joints": sum(len(r.data.bones) for r in rigs), "frames": frames}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3, help="how many meshes (default 3: the most anims)")
    parser.add_argument("--repeat", type=int, default=3, help="imports per case; the best is kept (default 3)")
    parser.add_argument("--base", type=Path, help="a checkout of the previous code: before and after side by side")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--json", type=Path, help="also write the table as a record for tools/figures.py")
    parser.add_argument("--checkout", type=Path, help=argparse.SUPPRESS)   # load this checkout's code (for --base)
    parser.add_argument("--emit", type=Path, help=argparse.SUPPRESS)       # the measures as JSON
    args = parser.parse_args(argv)
    chosen = cases(args.cases)
    before = {}
    if args.base:
        with tempfile.TemporaryDirectory(prefix="classic_models_base_") as tmp:
            emit = Path(tmp) / "base.json"
            done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--checkout", str(args.base),
                                   "--cases", str(args.cases), "--repeat", str(args.repeat), "--emit", str(emit)],
                                  capture_output=True, text=True)
            if done.returncode != 0 or not emit.is_file():
                sys.stderr.write(done.stderr[-3000:])
                print(f"the base checkout {args.base} failed (exit {done.returncode})", file=sys.stderr)
                return 1
            before = json.loads(emit.read_text(encoding="utf-8"))
    sys.path.insert(0, str(args.checkout or CHECKOUT))
    from tools.load_extension import enable_extension
    enable_extension()
    import bpy

    from tools.benchmark import checkout_commit, exit_without_teardown, format_table, reports_to_stderr
    with reports_to_stderr():
        after = {str(path.relative_to(CORPUS)): measure(bpy, path, args.repeat) for path, _ in chosen}
    if args.emit:
        args.emit.write_text(json.dumps(after), encoding="utf-8")
        exit_without_teardown(0)
    rows = []
    for path, anims in chosen:
        name = str(path.relative_to(CORPUS))
        now, old = after[name], before.get(name)
        rows.append([name, str(anims), str(now["joints"]), str(now["frames"]),
                     f"{old['cpu']:.3f}" if old else "", f"{now['cpu']:.3f}",
                     f"{old['cpu'] / now['cpu']:.1f}x" if old else "",
                     ("yes" if old["digest"] == now["digest"] else "NO") if old else ""])
    print(f"bpy {bpy.app.version_string}, best of {args.repeat}, CPU seconds")
    print(format_table(rows, args.markdown, tuple(HEADERS)))
    if args.json:
        from tools.figures import write_record
        notes = ([f"before: commit {checkout_commit(args.base)}, after: commit {checkout_commit(CHECKOUT)}"]
                 if args.base else [])
        write_record(args.json, script="tools/benchmark_md5_import.py",
                     command=(f"bash tools/dev.sh bench-md5-import --markdown --cases {args.cases} "
                              f"--repeat {args.repeat}" + (" --base BASE" if args.base else "")),
                     environment=f"bpy {bpy.app.version_string}, best of {args.repeat}, CPU seconds",
                     headers=HEADERS, rows=rows, notes=notes)
    exit_without_teardown(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
