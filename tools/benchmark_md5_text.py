"""What the text of the rigged MD5 edited export costs at least: the floor under ``tools/benchmark.py --format md5``.

Run with any Python that has numpy (no ``bpy``)::

    .venvs/bpy-5.2/bin/python tools/benchmark_md5_text.py [--repeat N] [--markdown]

The case is the one ``tools/benchmark_rigged.py`` exports: the corpus's Red Eclipse drone (27 joints, 2
meshes), its mesh scaled by 1.1 (every joint and weight position changes, the text around them is the
file's), and an anim of 104 frames (the drone's first anim's frames repeated: 104 frames of its
components, what the timeline export at 10 per second of a 24 fps scene writes). Rows, CPU seconds
(``time.process_time``), best of ``--repeat``:

* *print floor*: the same numbers printed the fastest way Python has: one ``%`` format per block of
  records applied to the whole block's numbers as one flat tuple (vertices, triangles, weights, joints,
  bounds, base frame, frames), encoded: no check, no kept text. What any exporter that prints this text in
  Python pays.
* *read the kept mesh*: ``read_md5mesh`` of the imported file's text (the export compares the mesh with it
  to give back its characters) and, within it, the tokenizer alone.
* *write, kept text* / *write, printed*: ``write_md5mesh`` of the scaled mesh with the file's text kept
  (what the export does), and both files printed afresh (``write_md5mesh`` without the source,
  ``write_md5anim``).
* *bounds*: the anim's per-frame boxes of the skinned vertices (``exporters/md5/anim.frame_bounds``'s
  arithmetic: ``frame_joints`` and ``skin_vertices``).
"""
from __future__ import annotations

import argparse
import copy
import gc
import sys
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

import numpy as np  # noqa: E402

from formats.md5.anim import read_md5anim  # noqa: E402
from formats.md5.mesh import read_md5mesh  # noqa: E402
from formats.md5.skinning import frame_joints, skin_vertices  # noqa: E402
from formats.md5.text import Md5Text  # noqa: E402
from formats.md5.write import write_md5anim, write_md5mesh  # noqa: E402

DRONE = CHECKOUT.parent / "shared" / "corpus" / "md5" / "redeclipse/data/actors/drone/mesh.md5mesh"
FRAMES = 104


def case() -> tuple[bytes, object, object]:
    """(the imported mesh's text, the mesh scaled by 1.1 keeping that text, a 104-frame anim)."""
    data = DRONE.read_bytes()
    mesh = read_md5mesh(data)
    mesh.joint_pos = mesh.joint_pos * 1.1
    for part in mesh.meshes:
        part.weight_pos = part.weight_pos * 1.1
    anim = read_md5anim(sorted(DRONE.parent.glob("*.md5anim"))[0].read_bytes())
    repeat = -(-FRAMES // anim.num_frames)
    anim.frames = np.tile(anim.frames, (repeat, 1))[:FRAMES]
    anim.bounds = np.tile(anim.bounds, (repeat, 1, 1))[:FRAMES]
    anim.source = None
    return data, mesh, anim


def print_floor(mesh, anim) -> bytes:
    """The numbers of both files printed with one ``%`` format per block (see the module)."""
    out = []
    joints = np.concatenate([mesh.joint_pos, mesh.joint_orient], axis=1)
    rows = [(name, int(parent), *values) for name, parent, values in
            zip(mesh.joint_names, mesh.joint_parents.tolist(), joints.tolist())]
    out.append('\t"%s"\t%d ( %.6f %.6f %.6f ) ( %.6f %.6f %.6f )\n' * len(rows) % tuple(v for r in rows for v in r))
    for part in mesh.meshes:
        v, t, w = len(part.uv), len(part.triangles), len(part.weight_bias)
        verts = np.column_stack([np.arange(v), part.uv, part.weight_start, part.weight_count]).astype(object)
        verts[:, [0, 3, 4]] = verts[:, [0, 3, 4]].astype(np.int64)
        out.append("\tvert %d ( %.6f %.6f ) %d %d\n" * v % tuple(verts.ravel().tolist()))
        out.append("\ttri %d %d %d %d\n" * t % tuple(np.column_stack([np.arange(t), part.triangles]).ravel().tolist()))
        weights = np.column_stack([np.arange(w), part.weight_joint, part.weight_bias, part.weight_pos]).astype(object)
        weights[:, :2] = weights[:, :2].astype(np.int64)
        out.append("\tweight %d %d %.6f ( %.6f %.6f %.6f )\n" * w % tuple(weights.ravel().tolist()))
    out.append("\t( %.6f %.6f %.6f ) ( %.6f %.6f %.6f )\n" * FRAMES % tuple(np.ravel(anim.bounds).tolist()))
    base = np.concatenate([anim.base_pos, anim.base_orient], axis=1)
    out.append("\t( %.6f %.6f %.6f ) ( %.6f %.6f %.6f )\n" * len(base) % tuple(base.ravel().tolist()))
    line = "frame %d {\n\t" + " ".join(["%.6f"] * anim.num_components) + "\n}\n\n"
    frames = [(k, *row) for k, row in enumerate(anim.frames.tolist())]
    out.append(line * FRAMES % tuple(v for row in frames for v in row))
    return "".join(out).encode()


def bounds(mesh, anim) -> np.ndarray:
    pos, quat = frame_joints(anim)
    points = np.concatenate([skin_vertices(part, pos, quat) for part in mesh.meshes], axis=-2)
    return np.stack([points.min(axis=-2), points.max(axis=-2)], axis=1)


def best(fn, repeat: int) -> float:
    seconds = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        fn()
        seconds = min(seconds, time.process_time() - start)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per row; the best is kept (default 5)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args(argv)
    if not DRONE.is_file():
        print(f"corpus not found: {DRONE}", file=sys.stderr)
        return 1
    data, mesh, anim = case()
    bare = copy.copy(mesh)
    bare.source = None
    repeat = max(args.repeat, 1)
    rows = [("print floor (both files, one % format a block)", best(lambda: print_floor(mesh, anim), repeat)),
            ("read the kept mesh (read_md5mesh)", best(lambda: read_md5mesh(data), repeat)),
            ("  of which the tokenizer (Md5Text)", best(lambda: Md5Text(data, "md5mesh"), repeat)),
            ("write, kept text (write_md5mesh + write_md5anim)",
             best(lambda: (write_md5mesh(mesh), write_md5anim(anim)), repeat)),
            ("write, printed (write_md5mesh + write_md5anim)",
             best(lambda: (write_md5mesh(bare), write_md5anim(anim)), repeat)),
            ("bounds (104 frames skinned)", best(lambda: bounds(mesh, anim), repeat))]
    sizes = f"{len(write_md5mesh(mesh)):,} + {len(write_md5anim(anim)):,} bytes"
    print(f"Python {sys.version.split()[0]}, numpy {np.__version__}, best of {repeat}, CPU s; the files: {sizes}")
    width = max(len(name) for name, _ in rows)
    if args.markdown:
        print("| work | CPU s |\n|---|---:|")
        print("\n".join(f"| {name.strip()} | {seconds:.4f} |" for name, seconds in rows))
    else:
        print("\n".join(f"{name.ljust(width)}  {seconds:.4f}" for name, seconds in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
