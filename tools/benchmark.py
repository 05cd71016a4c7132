"""Time MD2 import and export against floors measured in the same run.

Run with a Python that has the ``bpy`` wheel::

    .venvs/bpy-5.0/bin/python tools/benchmark.py [--repeat N] [--markdown]

Cases: the two largest corpus MD2 files that parse (by vertices x frames; skipped with a note if
the corpus is absent) and a synthetic model at the engine limits (2048 vertices, 512 frames); the same
for MDL; and for the edited export only, a corpus MD3 and a rigged MD5 (:mod:`tools.benchmark_rigged`).

* Import = ``bpy.ops.import_scene.md2``. Its floor is the bare bpy calls that build the same mesh,
  UVs and shape keys from already decoded arrays (``foreach_set`` throughout).
* Export = ``bpy.ops.export_scene.md2`` (timeline frames) on the freshly imported object. Its
  floor is ``points.foreach_get("co")`` on every shape key: the cheapest exact read of every frame.
* Edited export (informational): the same export after the object is scaled by 1.1, so no frame
  equals an imported one and every frame gets a new grid and new normals (what a model made or
  edited in Blender costs; *Apply Transform* on).
* Naive export (informational) steps ``scene.frame_set`` and reads ``to_mesh`` on every frame,
  which is what the exporter's shape-key fast path avoids.

Each time is the best of ``--repeat`` runs; the scene is reset with ``read_homefile`` between runs.

``--base CHECKOUT`` (a git worktree of the previous code, e.g. ``git worktree add --detach /tmp/base main``)
also prints the edited export before and after side by side, in CPU seconds (``time.process_time``, so
the figures hold on a busy machine): this script times the same cases in a second process with the
extension and ``formats`` loaded from that checkout (``--checkout``), and this one's own timings come
from the same runs as the table above. ``--compare-json PATH`` writes that table as a record.
"""
from __future__ import annotations

import argparse
import atexit
import gc
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
CORPUS = CHECKOUT.parent / "shared" / "corpus"
# columns x rows of the synthetic band and its frame count, at each format's engine limits
SYNTHETIC = {"md2": ((64, 32), 512), "mdl": ((32, 32), 256)}
SYNTHETIC_ANIMATIONS = ("stand", "run", "attack", "pain", "jump", "flip", "salute", "death")


@dataclass
class Case:
    fmt: str
    name: str
    path: Path
    vertices: int
    triangles: int
    frames: int


@dataclass
class Timings:
    import_s: float = float("inf")
    import_floor_s: float = float("inf")
    export_s: float = float("inf")
    export_floor_s: float = float("inf")
    naive_export_s: float = float("inf")
    edited_export_s: float = float("inf")
    naive_cpu_s: float = float("inf")
    edited_cpu_s: float = float("inf")


def synthetic_band(fmt: str):
    """A deforming latitude-longitude band of a sphere: positions (F, V, 3), file-order triangles,
    per-vertex (lon, lat) and frame names."""
    import numpy as np

    (nx, ny), frames = SYNTHETIC[fmt]
    lon = np.linspace(0.0, 2.0 * np.pi, nx)
    lat = np.linspace(-0.45 * np.pi, 0.45 * np.pi, ny)
    lon_g, lat_g = np.meshgrid(lon, lat)
    lon_v, lat_v = lon_g.ravel(), lat_g.ravel()
    phase = np.arange(frames, dtype=np.float64)[:, None] * (2.0 * np.pi / 64.0)
    radius = 24.0 + 3.0 * np.sin(3.0 * lon_v[None, :] + phase) * np.cos(2.0 * lat_v[None, :] - 0.5 * phase)
    positions = np.stack([radius * np.cos(lat_v) * np.cos(lon_v),
                          radius * np.cos(lat_v) * np.sin(lon_v),
                          radius * np.sin(lat_v) + 2.0 * np.sin(phase)], axis=-1)
    i, j = np.meshgrid(np.arange(nx - 1), np.arange(ny - 1))
    a = (j * nx + i).ravel()
    b, c, d = a + 1, a + nx + 1, a + nx
    tris = np.concatenate([np.column_stack([a, c, b]), np.column_stack([a, d, c])])
    per_anim = frames // len(SYNTHETIC_ANIMATIONS)
    names = [f"{SYNTHETIC_ANIMATIONS[f // per_anim]}{f % per_anim + 1:02d}" for f in range(frames)]
    return positions, tris, lon_v, lat_v, names


def synthetic_md2():
    """The band at the MD2 limits (2048 vertices, 512 frames), built without bpy."""
    import numpy as np

    from formats.md2.codec import Md2Model
    from formats.md2.glcmds import build_glcmds
    from formats.quantize import quantize_frames

    positions, tris, lon_v, lat_v, names = synthetic_band("md2")
    scale, translate, verts = quantize_frames(positions)
    tris = tris.astype(np.uint16)
    skin_w, skin_h = 256, 128
    st = np.column_stack([np.rint(lon_v / (2 * np.pi) * (skin_w - 1)),
                          np.rint((lat_v / np.pi + 0.5) * (skin_h - 1))]).astype(np.int16)
    rng = np.random.default_rng(0)
    model = Md2Model(skin_width=skin_w, skin_height=skin_h, skins=["models/bench/skin.pcx"], st=st,
                     tri_xyz=tris, tri_st=tris.copy(), frame_names=names, frame_scale=scale,
                     frame_translate=translate, frame_verts=verts,
                     frame_normals=rng.integers(0, 162, verts.shape[:2]).astype(np.uint8))
    model.glcmds = build_glcmds(model.tri_xyz, model.tri_st, model.st, skin_w, skin_h)
    return model


def synthetic_mdl():
    """The band at Quake's MDL limits (1024 vertices, 256 frames, a 320x200 skin), built without bpy."""
    import numpy as np

    from formats.mdl.codec import MdlFrameSlot, MdlModel, MdlSkin
    from formats.quantize import grid_from_bounds, quantize

    positions, tris, lon_v, lat_v, names = synthetic_band("mdl")
    flat = positions.reshape(-1, 3)
    scale, translate = grid_from_bounds(flat.min(axis=0), flat.max(axis=0))
    count = len(positions)
    verts = quantize(positions, np.broadcast_to(scale, (count, 3)), np.broadcast_to(translate, (count, 3)))
    skin_w, skin_h = 320, 200
    rng = np.random.default_rng(0)
    num_verts = verts.shape[1]
    return MdlModel(
        scale=scale, translate=translate, bounding_radius=30.0, eye_position=np.zeros(3, np.float32),
        skin_width=skin_w, skin_height=skin_h, synctype=0, flags=0, size=1.0,
        skins=[MdlSkin(None, rng.integers(0, 224, (1, skin_h, skin_w)).astype(np.uint8))],
        onseam=np.zeros(num_verts, np.int32),
        s=np.rint(lon_v / (2 * np.pi) * (skin_w - 1)).astype(np.int32),
        t=np.rint((lat_v / np.pi + 0.5) * (skin_h - 1)).astype(np.int32),
        facesfront=np.ones(len(tris), np.int32), triangles=tris.astype(np.int32), pose_names=names,
        pose_verts=verts, pose_normals=rng.integers(0, 162, verts.shape[:2]).astype(np.uint8),
        pose_bbox_min=np.zeros((count, 4), np.uint8), pose_bbox_max=np.full((count, 4), 255, np.uint8),
        frames=[MdlFrameSlot(i, 1, None, np.zeros(4, np.uint8), np.full(4, 255, np.uint8)) for i in range(count)])


def parse_case(fmt: str, path: Path):
    """(positions (F, V, 3), Blender-order corners (T, 3), corner UVs (T * 3, 2), frame names)."""
    import numpy as np
    if fmt == "md2":
        from formats.md2.codec import parse_md2
        model = parse_md2(path.read_bytes())
        st = model.st[model.tri_st[:, ::-1]].reshape(-1, 2).astype(np.float64)
        uvs = np.column_stack([(st[:, 0] + 0.5) / model.skin_width, 1.0 - (st[:, 1] + 0.5) / model.skin_height])
        return model.positions(), model.tri_xyz[:, ::-1], uvs, list(model.frame_names)
    from formats.mdl.codec import parse_mdl
    model = parse_mdl(path.read_bytes())
    corners = model.triangles[:, ::-1]
    uvs = np.column_stack([(model.s[corners].ravel() + 0.5) / model.skin_width,
                           1.0 - (model.t[corners].ravel() + 0.5) / model.skin_height])
    return model.positions(), corners, uvs, list(model.pose_names)


def corpus_cases(fmt: str, count: int = 2) -> tuple[list[Case], list[str]]:
    """The ``count`` largest corpus files of ``fmt`` that parse by vertices x frames, and the largest
    file in bytes."""
    from formats.errors import FormatError

    folder = CORPUS / fmt
    if not folder.is_dir():
        return [], [f"corpus not found at {folder}: {fmt} corpus cases skipped"]
    cases, notes = [], []
    for path in sorted(folder.glob(f"*/*.{fmt}")):
        try:
            positions, corners, _, _ = parse_case(fmt, path)
        except (FormatError, OSError) as exc:
            notes.append(f"{path.parent.name}/{path.name} skipped: {exc}")
            continue
        cases.append(Case(fmt, f"{path.parent.name}/{path.name}", path, positions.shape[1], len(corners),
                          len(positions)))
    largest_file = max(cases, key=lambda c: c.path.stat().st_size, default=None)
    cases.sort(key=lambda c: c.vertices * c.frames, reverse=True)
    chosen = cases[:count]
    if largest_file is not None and largest_file not in chosen:
        chosen.append(largest_file)
    return chosen, notes


def timed(fn: Callable[[], object]) -> float:
    return timed_cpu(fn)[0]


def timed_cpu(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU) seconds of one call."""
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - start, time.process_time() - cpu


def import_floor(bpy, case: Case) -> float:
    """The bare bpy calls that build the imported mesh, its UVs and one shape key per frame."""
    import numpy as np

    positions, corners_2d, uv_rows, names = parse_case(case.fmt, case.path)
    corners = np.ascontiguousarray(corners_2d, dtype=np.int32).ravel()
    uvs = np.ascontiguousarray(uv_rows, dtype=np.float32).ravel()
    frames = np.ascontiguousarray(positions, dtype=np.float32).reshape(len(positions), -1)
    num_verts, num_tris = positions.shape[1], len(corners_2d)
    loop_start = np.arange(0, num_tris * 3, 3, dtype=np.int32)
    loop_total = np.full(num_tris, 3, dtype=np.int32)
    collection = bpy.context.view_layer.active_layer_collection.collection

    def build() -> None:
        mesh = bpy.data.meshes.new("floor")
        mesh.vertices.add(num_verts)
        mesh.vertices.foreach_set("co", frames[0])
        mesh.loops.add(num_tris * 3)
        mesh.loops.foreach_set("vertex_index", corners)
        mesh.polygons.add(num_tris)
        mesh.polygons.foreach_set("loop_start", loop_start)
        mesh.polygons.foreach_set("loop_total", loop_total)
        mesh.uv_layers.new(name="UVMap").uv.foreach_set("vector", uvs)
        obj = bpy.data.objects.new("floor", mesh)
        collection.objects.link(obj)
        obj.shape_key_add(name="Basis", from_mix=False)
        for name, co in zip(names, frames):
            key = obj.shape_key_add(name=name, from_mix=False)
            try:
                key.points.foreach_set("co", co)
            except AttributeError:
                key.data.foreach_set("co", co)

    return timed(build)


def export_floor(bpy, obj) -> float:
    """``foreach_get`` of every shape key's coordinates: every frame's exact positions."""
    import numpy as np

    blocks = list(obj.data.shape_keys.key_blocks)
    buf = np.empty((len(blocks), len(obj.data.vertices) * 3), dtype=np.float32)

    def read() -> None:
        for row, block in zip(buf, blocks):
            try:
                block.points.foreach_get("co", row)
            except AttributeError:
                block.data.foreach_get("co", row)

    return timed(read)


def naive_export(bpy, obj) -> tuple[float, float]:
    """Step the timeline and read the evaluated mesh on every frame."""
    import numpy as np

    scene = bpy.context.scene
    frames = range(scene.frame_start, scene.frame_end + 1)
    buf = np.empty((len(frames), len(obj.data.vertices) * 3), dtype=np.float32)

    def read() -> None:
        for row, frame in zip(buf, frames):
            scene.frame_set(frame)
            obj_eval = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
            mesh = obj_eval.to_mesh()
            mesh.vertices.foreach_get("co", row)
            obj_eval.to_mesh_clear()

    seconds = timed_cpu(read)
    scene.frame_set(scene.frame_start)
    return seconds


def run_case(bpy, case: Case, repeat: int, out_dir: Path) -> Timings:
    best = Timings()
    out = out_dir / f"{case.path.stem}_out.{case.fmt}"
    import_op = getattr(bpy.ops.import_scene, case.fmt)
    export_op = getattr(bpy.ops.export_scene, case.fmt)
    for _ in range(repeat):
        bpy.ops.wm.read_homefile(use_empty=True)
        best.import_floor_s = min(best.import_floor_s, import_floor(bpy, case))

        bpy.ops.wm.read_homefile(use_empty=True)
        best.import_s = min(best.import_s, timed(lambda: import_op(filepath=str(case.path))))
        obj = bpy.context.view_layer.objects.active
        best.export_s = min(best.export_s, timed(lambda: export_op(filepath=str(out), frame_source="TIMELINE")))
        best.export_floor_s = min(best.export_floor_s, export_floor(bpy, obj))
        wall, cpu = naive_export(bpy, obj)
        best.naive_export_s, best.naive_cpu_s = min(best.naive_export_s, wall), min(best.naive_cpu_s, cpu)
        wall, cpu = edited_export(bpy, obj, export_op, out)
        best.edited_export_s, best.edited_cpu_s = min(best.edited_export_s, wall), min(best.edited_cpu_s, cpu)
    bpy.ops.wm.read_homefile(use_empty=True)
    return best


def edited_export(bpy, obj, export_op, out: Path) -> tuple[float, float]:
    """Scale the imported object by 1.1 and export it: (wall, CPU) seconds."""
    obj.scale = (1.1, 1.1, 1.1)
    return timed_cpu(lambda: export_op(filepath=str(out), frame_source="TIMELINE"))


def edited_only(bpy, case: Case, repeat: int, out_dir: Path) -> float:
    """Best CPU seconds of the edited export alone (what ``--checkout`` measures for ``--base``)."""
    best = float("inf")
    out = out_dir / f"{case.path.stem}_out.{case.fmt}"
    for _ in range(repeat):
        bpy.ops.wm.read_homefile(use_empty=True)
        getattr(bpy.ops.import_scene, case.fmt)(filepath=str(case.path))
        obj = bpy.context.view_layer.objects.active
        best = min(best, edited_export(bpy, obj, getattr(bpy.ops.export_scene, case.fmt), out)[1])
    bpy.ops.wm.read_homefile(use_empty=True)
    return best


COMPARE_HEADERS = ("format", "case", "naive export CPU s", "edited export CPU s before", "after", "before / after",
                   "after / naive", "naive export wall s", "after wall s", "after / naive, wall")


def compare_rows(results: list[tuple[Case, Timings]], before: dict[str, float]) -> list[list[str]]:
    rows = []
    for case, t in results:
        old = before.get(f"{case.fmt}:{case.name}", float("nan"))
        rows.append([case.fmt.upper(), case.name, f"{t.naive_cpu_s:.3f}", f"{old:.3f}", f"{t.edited_cpu_s:.3f}",
                     f"{old / t.edited_cpu_s:.1f}x", f"{t.edited_cpu_s / t.naive_cpu_s:.2f}",
                     f"{t.naive_export_s:.3f}", f"{t.edited_export_s:.3f}", f"{t.edited_export_s / t.naive_export_s:.2f}"])
    return rows


RIGGED_FORMATS = ("md3", "md5")


def checkout_commit(checkout: Path) -> str:
    """The short commit a checkout is at (with "+" when it has changes), or "unknown"."""
    import subprocess
    try:
        head = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+" if dirty else "")


def rigged_module():
    """:mod:`tools.benchmark_rigged` of this checkout (loaded by path: ``--checkout`` puts another first)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("benchmark_rigged", Path(__file__).with_name("benchmark_rigged.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def base_timings(base: Path, fmt: str, repeat: int) -> dict[str, float]:
    """Run this script in a second process on ``base``'s code; ``{"fmt:case": edited export CPU s}``."""
    import json
    import subprocess
    with tempfile.TemporaryDirectory(prefix="classic_models_base_") as tmp:
        emit = Path(tmp) / "base.json"
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--checkout", str(base), "--format", fmt,
                        "--repeat", str(repeat), "--emit", str(emit)], check=True, stdout=subprocess.DEVNULL)
        return json.loads(emit.read_text(encoding="utf-8"))


HEADERS = ("format", "case", "vertices", "triangles", "frames", "import s", "import floor s", "ratio",
           "export s", "export floor s", "ratio", "edited export s", "naive export s")


def table_rows(results: list[tuple[Case, Timings]]) -> list[list[str]]:
    rows = []
    for case, t in results:
        rows.append([case.fmt.upper(), case.name, str(case.vertices), str(case.triangles), str(case.frames),
                     f"{t.import_s:.3f}", f"{t.import_floor_s:.3f}", f"{t.import_s / t.import_floor_s:.1f}x",
                     f"{t.export_s:.3f}", f"{t.export_floor_s:.4f}", f"{t.export_s / t.export_floor_s:.1f}x",
                     f"{t.edited_export_s:.3f}", f"{t.naive_export_s:.3f}"])
    return rows


def format_table(rows: list[list[str]], markdown: bool, headers: tuple[str, ...] = HEADERS,
                 text_columns: int = 2) -> str:
    """Rows as an aligned text table or Markdown; the first ``text_columns`` are left-aligned."""
    if markdown:
        lines = ["| " + " | ".join(headers) + " |",
                 "|" + "|".join(["---"] * text_columns + ["---:"] * (len(headers) - text_columns)) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    fmt = lambda cells: "  ".join(c.ljust(w) if i < text_columns else c.rjust(w)
                                  for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([fmt(headers), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


@contextmanager
def reports_to_stderr() -> Iterator[None]:
    """Send what Blender prints (operator reports) to stderr, so stdout holds only the table."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the best is kept (default 3)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--format", choices=("md2", "mdl", *RIGGED_FORMATS, "all"), default="all",
                        help="which formats (default all; md3 and md5: the edited export only)")
    parser.add_argument("--json", type=Path, help="also write the table as a record for tools/figures.py")
    parser.add_argument("--base", type=Path, help="a checkout of the previous code: print the edited export "
                        "before and after (CPU s)")
    parser.add_argument("--compare-json", type=Path, help="write the before/after table as a record")
    parser.add_argument("--checkout", type=Path, help=argparse.SUPPRESS)   # load this checkout's code (for --base)
    parser.add_argument("--emit", type=Path, help=argparse.SUPPRESS)       # edited export CPU s only, as JSON
    args = parser.parse_args(argv)
    repeat = max(args.repeat, 1)
    before = base_timings(args.base, args.format, repeat) if args.base else {}

    sys.path.insert(0, str(args.checkout or CHECKOUT))
    from tools.load_extension import enable_extension
    enable_extension()
    import bpy

    from formats.md2.codec import serialize_md2
    from formats.mdl.codec import serialize_mdl

    synthetic = {"md2": (synthetic_md2, serialize_md2), "mdl": (synthetic_mdl, serialize_mdl)}
    formats = ("md2", "mdl", *RIGGED_FORMATS) if args.format == "all" else (args.format,)
    rigged = rigged_module()
    with tempfile.TemporaryDirectory(prefix="classic_models_bench_") as tmp:
        out_dir = Path(tmp)
        cases, notes, rigged_cases = [], [], []
        for fmt in formats:
            if fmt in RIGGED_FORMATS:
                found, skipped = rigged.rigged_cases(CORPUS, fmt)
                rigged_cases += [Case(fmt, *row) for row in found]
                notes += skipped
                continue
            found, skipped = corpus_cases(fmt)
            cases += found
            notes += skipped
            make, serialize = synthetic[fmt]
            path = out_dir / f"synthetic_limits.{fmt}"
            path.write_bytes(serialize(make()))
            positions, corners, _, _ = parse_case(fmt, path)
            cases.append(Case(fmt, "synthetic (engine limits)", path, positions.shape[1], len(corners),
                              len(positions)))
        if args.emit:
            import json
            with reports_to_stderr():
                emitted = {f"{case.fmt}:{case.name}": edited_only(bpy, case, repeat, out_dir) for case in cases}
                emitted |= {f"{case.fmt}:{case.name}": rigged.run(bpy, case.fmt, case.path, repeat, out_dir,
                                                                  with_naive=False)["edited_cpu_s"]
                            for case in rigged_cases}
            args.emit.write_text(json.dumps(emitted), encoding="utf-8")
            return 0
        with reports_to_stderr():
            results = [(case, run_case(bpy, case, repeat, out_dir)) for case in cases]
            edited_results = results + [(case, Timings(**rigged.run(bpy, case.fmt, case.path, repeat, out_dir)))
                                        for case in rigged_cases]

    print(f"bpy {bpy.app.version_string}, Python {sys.version.split()[0]}, best of {repeat}")
    for note in notes:
        print(f"note: {note}")
    print()
    if results:
        print(format_table(table_rows(results), args.markdown))
    if args.base:
        print(f"\nEdited export before ({args.base}) and after, CPU seconds:\n")
        print(format_table(compare_rows(edited_results, before), args.markdown, COMPARE_HEADERS))
    if args.compare_json:
        from tools.figures import write_record
        only = f" --format {args.format}" if args.format != "all" else ""
        write_record(args.compare_json, script="tools/benchmark.py",
                     command=f"bash tools/dev.sh bench --markdown --repeat {repeat} --base BASE{only}",
                     environment=f"bpy {bpy.app.version_string}, best of {repeat}, CPU seconds",
                     headers=list(COMPARE_HEADERS), rows=compare_rows(edited_results, before),
                     notes=[f"before: commit {checkout_commit(args.base)}, after: commit {checkout_commit(CHECKOUT)}"])
    if args.json:
        from tools.figures import write_record
        write_record(args.json, script="tools/benchmark.py", command="bash tools/dev.sh bench --markdown",
                     environment=f"bpy {bpy.app.version_string}, best of {repeat}", headers=list(HEADERS),
                     rows=table_rows(results), notes=[f"note: {note}" for note in notes])
    return 0


def exit_without_teardown(code: int) -> None:
    """Run the atexit handlers, then leave before C++ static destructors run.

    The bpy 4.2 wheel crashes after ``Py_Finalize`` once any Operator, Panel or Menu class is
    registered (``~SpaceType`` -> ``bpy_class_free`` -> ``PyGILState_Ensure`` with no interpreter),
    turning every successful run into exit status 139.
    """
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    exit_without_teardown(main())
