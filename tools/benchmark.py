"""Time MD2 import and export against floors measured in the same run.

Run with a Python that has the ``bpy`` wheel::

    .venvs/bpy-5.0/bin/python tools/benchmark.py [--repeat N] [--markdown]

Cases: the two largest corpus MD2 files that parse (by vertices x frames; skipped with a note if
the corpus is absent) and a synthetic model at the engine limits (2048 vertices, 512 frames).

* Import = ``bpy.ops.import_scene.md2``. Its floor is the bare bpy calls that build the same mesh,
  UVs and shape keys from already decoded arrays (``foreach_set`` throughout).
* Export = ``bpy.ops.export_scene.md2`` (timeline frames) on the freshly imported object. Its
  floor is ``points.foreach_get("co")`` on every shape key: the cheapest exact read of every frame.
* Naive export (informational) steps ``scene.frame_set`` and reads ``to_mesh`` on every frame,
  which is what the exporter's shape-key fast path avoids.

Each time is the best of ``--repeat`` runs; the scene is reset with ``read_homefile`` between runs.
"""
from __future__ import annotations

import argparse
import atexit
import gc
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

CHECKOUT = Path(__file__).resolve().parents[1]
CORPUS_MD2 = CHECKOUT.parent / "shared" / "corpus" / "md2"
SYNTHETIC_VERTICES = (64, 32)       # columns x rows = 2048 vertices, 3906 triangles
SYNTHETIC_FRAMES = 512
SYNTHETIC_ANIMATIONS = ("stand", "run", "attack", "pain", "jump", "flip", "salute", "death")


@dataclass
class Case:
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


def synthetic_model():
    """A deforming latitude-longitude band of a sphere at the MD2 limits, built without bpy."""
    import numpy as np
    from formats.md2 import Md2Model
    from formats.md2_glcmds import build_glcmds
    from formats.quantize import quantize_frames

    nx, ny = SYNTHETIC_VERTICES
    lon = np.linspace(0.0, 2.0 * np.pi, nx)
    lat = np.linspace(-0.45 * np.pi, 0.45 * np.pi, ny)
    lon_g, lat_g = np.meshgrid(lon, lat)
    lon_v, lat_v = lon_g.ravel(), lat_g.ravel()
    phase = np.arange(SYNTHETIC_FRAMES, dtype=np.float64)[:, None] * (2.0 * np.pi / 64.0)
    radius = 24.0 + 3.0 * np.sin(3.0 * lon_v[None, :] + phase) * np.cos(2.0 * lat_v[None, :] - 0.5 * phase)
    positions = np.stack([radius * np.cos(lat_v) * np.cos(lon_v),
                          radius * np.cos(lat_v) * np.sin(lon_v),
                          radius * np.sin(lat_v) + 2.0 * np.sin(phase)], axis=-1)
    scale, translate, verts = quantize_frames(positions)

    i, j = np.meshgrid(np.arange(nx - 1), np.arange(ny - 1))
    a = (j * nx + i).ravel()
    b, c, d = a + 1, a + nx + 1, a + nx
    tris = np.concatenate([np.column_stack([a, c, b]), np.column_stack([a, d, c])]).astype(np.uint16)
    skin_w, skin_h = 256, 128
    st = np.column_stack([np.rint(lon_v / (2 * np.pi) * (skin_w - 1)),
                          np.rint((lat_v / np.pi + 0.5) * (skin_h - 1))]).astype(np.int16)
    per_anim = SYNTHETIC_FRAMES // len(SYNTHETIC_ANIMATIONS)
    names = [f"{SYNTHETIC_ANIMATIONS[f // per_anim]}{f % per_anim + 1:02d}" for f in range(SYNTHETIC_FRAMES)]
    rng = np.random.default_rng(0)
    model = Md2Model(skin_width=skin_w, skin_height=skin_h, skins=["models/bench/skin.pcx"], st=st,
                     tri_xyz=tris, tri_st=tris.copy(), frame_names=names, frame_scale=scale,
                     frame_translate=translate, frame_verts=verts,
                     frame_normals=rng.integers(0, 162, verts.shape[:2]).astype(np.uint8))
    model.glcmds = build_glcmds(model.tri_xyz, model.tri_st, model.st, skin_w, skin_h)
    return model


def corpus_cases(count: int = 2) -> tuple[list[Case], list[str]]:
    """The ``count`` largest corpus files that parse, by vertices x frames."""
    from formats.errors import FormatError
    from formats.md2 import parse_md2

    if not CORPUS_MD2.is_dir():
        return [], [f"corpus not found at {CORPUS_MD2}: corpus cases skipped"]
    cases, notes = [], []
    for path in sorted(CORPUS_MD2.glob("*/*.md2")):
        try:
            model = parse_md2(path.read_bytes())
        except (FormatError, OSError) as exc:
            notes.append(f"{path.parent.name}/{path.name} skipped: {exc}")
            continue
        cases.append(Case(f"{path.parent.name}/{path.name}", path, model.num_vertices,
                          len(model.tri_xyz), model.num_frames))
    cases.sort(key=lambda c: c.vertices * c.frames, reverse=True)
    return cases[:count], notes


def timed(fn: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def import_floor(bpy, path: Path) -> float:
    """The bare bpy calls that build the imported mesh, its UVs and one shape key per frame."""
    import numpy as np
    from formats.md2 import parse_md2

    model = parse_md2(path.read_bytes())
    corners = np.ascontiguousarray(model.tri_xyz[:, ::-1], dtype=np.int32).ravel()
    st = model.st[model.tri_st[:, ::-1]].reshape(-1, 2).astype(np.float64)
    uvs = np.column_stack([(st[:, 0] + 0.5) / model.skin_width,
                           1.0 - (st[:, 1] + 0.5) / model.skin_height]).astype(np.float32).ravel()
    frames = np.ascontiguousarray(model.positions(), dtype=np.float32).reshape(model.num_frames, -1)
    num_verts, num_tris = model.num_vertices, len(model.tri_xyz)
    loop_start = np.arange(0, num_tris * 3, 3, dtype=np.int32)
    loop_total = np.full(num_tris, 3, dtype=np.int32)
    names = list(model.frame_names)
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


def naive_export(bpy, obj) -> float:
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

    seconds = timed(read)
    scene.frame_set(scene.frame_start)
    return seconds


def run_case(bpy, case: Case, repeat: int, out_dir: Path) -> Timings:
    best = Timings()
    out = out_dir / f"{case.path.stem}_out.md2"
    for _ in range(repeat):
        bpy.ops.wm.read_homefile(use_empty=True)
        best.import_floor_s = min(best.import_floor_s, import_floor(bpy, case.path))

        bpy.ops.wm.read_homefile(use_empty=True)
        best.import_s = min(best.import_s, timed(lambda: bpy.ops.import_scene.md2(filepath=str(case.path))))
        obj = bpy.context.view_layer.objects.active
        best.export_s = min(best.export_s, timed(
            lambda: bpy.ops.export_scene.md2(filepath=str(out), frame_source="TIMELINE")))
        best.export_floor_s = min(best.export_floor_s, export_floor(bpy, obj))
        best.naive_export_s = min(best.naive_export_s, naive_export(bpy, obj))
    bpy.ops.wm.read_homefile(use_empty=True)
    return best


HEADERS = ("case", "vertices", "triangles", "frames", "import s", "import floor s", "ratio",
           "export s", "export floor s", "ratio", "naive export s")


def table_rows(results: list[tuple[Case, Timings]]) -> list[list[str]]:
    rows = []
    for case, t in results:
        rows.append([case.name, str(case.vertices), str(case.triangles), str(case.frames),
                     f"{t.import_s:.3f}", f"{t.import_floor_s:.3f}", f"{t.import_s / t.import_floor_s:.1f}x",
                     f"{t.export_s:.3f}", f"{t.export_floor_s:.4f}", f"{t.export_s / t.export_floor_s:.1f}x",
                     f"{t.naive_export_s:.3f}"])
    return rows


def format_table(rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(HEADERS) + " |",
                 "|" + "|".join(["---"] + ["---:"] * (len(HEADERS) - 1)) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADERS)]
    fmt = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                  for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([fmt(HEADERS), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


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
    args = parser.parse_args(argv)
    repeat = max(args.repeat, 1)

    sys.path.insert(0, str(CHECKOUT))
    from tools.load_extension import enable_extension
    enable_extension()
    import bpy
    from formats.md2 import serialize_md2

    cases, notes = corpus_cases()
    with tempfile.TemporaryDirectory(prefix="classic_models_bench_") as tmp:
        out_dir = Path(tmp)
        model = synthetic_model()
        synthetic = out_dir / "synthetic_limits.md2"
        synthetic.write_bytes(serialize_md2(model))
        cases.append(Case("synthetic (engine limits)", synthetic, model.num_vertices,
                          len(model.tri_xyz), model.num_frames))
        with reports_to_stderr():
            results = [(case, run_case(bpy, case, repeat, out_dir)) for case in cases]

    print(f"bpy {bpy.app.version_string}, Python {sys.version.split()[0]}, best of {repeat}")
    for note in notes:
        print(f"note: {note}")
    print()
    print(format_table(table_rows(results), args.markdown))
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
