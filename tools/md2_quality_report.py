"""Quantisation quality of MD2 (per grid mode) and MDL exports of models animated in Blender.

Run with a Python that has the ``bpy`` wheel::

    .venvs/bpy-5.0/bin/python tools/md2_quality_report.py [--markdown] [--corpus-model PATH]

Models: one this script builds (a static pedestal, a turret that rises slowly, a flag that waves
fast; shape keys keyed on the timeline, 40 frames) and a corpus player model whose frames were
edited (every frame scaled by 1.1 and turned 20 degrees about Z through the object transform, so
no frame keeps its imported grid).

Each model is exported through the operators (MD2 with grid Per Frame, Shared and Auto; MDL; MDL
as MD16, QuakeForge's 16-bit flavour, whose steps are 1/256 of the 8-bit grid's) and the file
decoded as engines decode it (``byte * scale + translate`` in float32; MD16 ``(high + low / 256) *
scale + translate``). The truth is
Blender's evaluated mesh at every frame, in world space. Columns: largest and mean position error
(model units, and in grid steps: the largest per-axis error over that axis's step), RMS error of the
frame-to-frame motion, and the largest distance a vertex that is still in Blender moves between
frames in the file (in units and steps).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
CORPUS_MODEL = CHECKOUT.parent / "shared" / "corpus" / "md2" / "petaaar88-zarlag" / "tris.md2"
FRAMES = 40
HEADERS = ("model", "format", "grid", "largest error", "mean error", "largest (steps)", "mean (steps)",
           "motion RMS error", "still vertices", "still moved", "still moved (steps)")


def _box(lo, hi) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    corners = np.array([[x, y, z] for z in (lo[2], hi[2]) for y in (lo[1], hi[1]) for x in (lo[0], hi[0])], float)
    quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    return corners, quads


def _flag(nx: int = 9, nz: int = 5) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    xs, zs = np.meshgrid(np.linspace(1.0, 9.0, nx), np.linspace(4.0, 8.0, nz))
    verts = np.column_stack([xs.ravel(), np.zeros(nx * nz), zs.ravel()])
    quads = [(j * nx + i, j * nx + i + 1, (j + 1) * nx + i + 1, (j + 1) * nx + i)
             for j in range(nz - 1) for i in range(nx - 1)]
    return verts, quads


def build_animated_model(bpy, frames: int = FRAMES):
    """A mesh with a still pedestal (its first 8 vertices), a slow turret and a fast waving flag,
    animated by keyed shape keys over scene frames 1..frames. Returns (object, still vertex mask)."""
    parts = [_box((-2, -2, 0), (2, 2, 3)), _box((-1, -1, 3), (1, 1, 4)), _flag()]
    verts, faces, offset, owner = [], [], 0, []
    for index, (v, f) in enumerate(parts):
        verts.append(v)
        faces += [tuple(i + offset for i in face) for face in f]
        owner += [index] * len(v)
        offset += len(v)
    basis = np.concatenate(verts)
    owner = np.array(owner)
    mesh = bpy.data.meshes.new("quality")
    mesh.from_pydata(basis.tolist(), [], faces)
    mesh.uv_layers.new(name="UVMap")
    uv = np.empty(len(mesh.loops) * 2, np.float32)
    loop_verts = np.empty(len(mesh.loops), np.int32)
    mesh.loops.foreach_get("vertex_index", loop_verts)
    uv[0::2], uv[1::2] = (basis[loop_verts, 0] + 2) / 12, (basis[loop_verts, 2]) / 9
    mesh.uv_layers[0].data.foreach_set("uv", uv)
    obj = bpy.data.objects.new("quality", mesh)
    bpy.context.scene.collection.objects.link(obj)
    flag = owner == 2
    reach = np.where(flag, (basis[:, 0] - 1.0) / 8.0, 0.0)
    deltas = {"rise": np.where((owner == 1)[:, None], [0.6, 0.3, 0.9], 0.0),
              "wave_sin": np.column_stack([0 * reach, 2.5 * reach * np.sin(1.3 * basis[:, 0]), 0.8 * reach]),
              "wave_cos": np.column_stack([0 * reach, 2.5 * reach * np.cos(1.3 * basis[:, 0]), -0.8 * reach])}
    obj.shape_key_add(name="Basis", from_mix=False)
    for name, delta in deltas.items():
        key = obj.shape_key_add(name=name, from_mix=False)
        key.data.foreach_set("co", (basis + delta).astype(np.float32).ravel())
        key.value = 0.0
    t = np.arange(frames, dtype=np.float64)
    values = {"rise": t / (frames - 1), "wave_sin": np.cos(t * 2 * np.pi / 7), "wave_cos": np.sin(t * 2 * np.pi / 7)}
    for name, curve in values.items():
        key = mesh.shape_keys.key_blocks[name]
        key.slider_min = -1.0
        for frame, value in enumerate(curve):
            key.value = float(value)
            key.keyframe_insert("value", frame=frame + 1)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    return obj, ~np.isin(owner, (1, 2))


def true_positions(bpy, obj) -> np.ndarray:
    """(F, V, 3) world-space evaluated positions at every scene frame (float64)."""
    scene = bpy.context.scene
    out = []
    for frame in range(scene.frame_start, scene.frame_end + 1):
        scene.frame_set(frame)
        evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
        mesh = evaluated.to_mesh()
        flat = np.empty(len(mesh.vertices) * 3, np.float32)
        mesh.vertices.foreach_get("co", flat)
        evaluated.to_mesh_clear()
        matrix = np.array(obj.matrix_world, np.float64)
        out.append(flat.reshape(-1, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3])
    return np.array(out)


LARGEST: dict[tuple[str, str], float] = {}    # (model, format) -> largest error, unrounded


def _largest(truth: np.ndarray, decoded: np.ndarray) -> float:
    return float(np.linalg.norm(decoded[:, : truth.shape[1]].astype(np.float64) - truth, axis=-1).max())


def _units(value: float) -> str:
    """Model units: 4 decimals, or 3 significant digits below 0.001 (MD16's errors)."""
    return f"{value:.4f}" if value >= 0.001 or value == 0 else f"{value:.3g}"


def quality(truth: np.ndarray, decoded: np.ndarray, steps: np.ndarray, still: np.ndarray) -> list[str]:
    """The table cells for one export (``steps``: (F, 3) grid steps, ``still``: (V,) mask)."""
    delta = decoded[:, : truth.shape[1]].astype(np.float64) - truth
    distance = np.linalg.norm(delta, axis=-1)
    safe = np.where(steps > 0, steps, np.inf)[:, None, :]
    in_steps = (np.abs(delta) / safe).max(axis=-1)
    motion = np.diff(delta, axis=0)
    motion_rms = float(np.sqrt((motion ** 2).sum(axis=-1).mean())) if len(motion) else 0.0
    cells = [_units(distance.max()), _units(distance.mean()), f"{in_steps.max():.3f}", f"{in_steps.mean():.3f}",
             _units(motion_rms), str(int(still.sum()))]
    if still.any():
        moved = decoded[:, : truth.shape[1]][:, still].astype(np.float64)
        shift = np.abs(moved - moved[:1])
        cells += [f"{np.linalg.norm(shift, axis=-1).max():.4f}", f"{(shift / safe[:1]).max():.2f}"]
    else:
        cells += ["-", "-"]
    return cells


def export_rows(bpy, obj, name: str, still: np.ndarray, out_dir: Path) -> list[list[str]]:
    from formats.md2.codec import parse_md2
    from formats.mdl.codec import parse_mdl
    truth = true_positions(bpy, obj)
    for other in bpy.context.view_layer.objects:
        other.select_set(other == obj)
    rows = []
    for grid in ("PER_FRAME", "SHARED", "AUTO"):
        path = out_dir / f"{len(rows)}_{grid}.md2"
        assert bpy.ops.export_scene.md2(filepath=str(path), grid=grid, frame_rate="SCENE") == {"FINISHED"}
        model = parse_md2(path.read_bytes())
        steps = np.asarray(model.frame_scale, np.float64)
        shared = bool(np.all(model.frame_scale == model.frame_scale[:1]))
        label = {"PER_FRAME": "Per Frame", "SHARED": "Shared", "AUTO": f"Auto ({'shared' if shared else 'per frame'})"}
        rows.append([name, "MD2", label[grid], *quality(truth, model.positions(), steps, still)])
    path = out_dir / f"{abs(hash(name))}.mdl"
    assert bpy.ops.export_scene.mdl(filepath=str(path), target="MODERN", frame_rate="SCENE") == {"FINISHED"}
    model = parse_mdl(path.read_bytes())
    steps = np.broadcast_to(np.asarray(model.scale, np.float64), (len(truth), 3))
    rows.append([name, "MDL", "one grid", *quality(truth, model.positions(), steps, still)])
    LARGEST[(name, "MDL")] = _largest(truth, model.positions())
    path = out_dir / f"{abs(hash(name))}_md16.mdl"
    assert bpy.ops.export_scene.mdl(filepath=str(path), target="MODERN", mdl_format="MD16",
                                     frame_rate="SCENE") == {"FINISHED"}
    model = parse_mdl(path.read_bytes())
    steps = np.broadcast_to(np.asarray(model.scale, np.float64) / 256, (len(truth), 3))   # the 16-bit step
    rows.append([name, "MD16", "one 16-bit lattice", *quality(truth, model.positions(), steps, still)])
    LARGEST[(name, "MD16")] = _largest(truth, model.positions())
    return rows


def format_table(rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(HEADERS) + " |", "|---|---|---|" + "---:|" * (len(HEADERS) - 3)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADERS)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in [list(HEADERS)] + rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--json", type=Path, help="also write the table as a record for tools/figures.py")
    parser.add_argument("--corpus-model", type=Path, default=CORPUS_MODEL,
                        help="an MD2 to import, edit (scale 1.1, turn 20 degrees) and export (skipped with a note if absent)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(CHECKOUT))
    from tools.load_extension import enable_extension
    enable_extension()
    import bpy

    from tools.benchmark import reports_to_stderr

    out_dir = Path(tempfile.mkdtemp(prefix="classic_models_quality_"))
    rows, notes = [], []
    with reports_to_stderr():
        bpy.ops.wm.read_homefile(use_empty=True)
        obj, still = build_animated_model(bpy)
        rows += export_rows(bpy, obj, "built in Blender", still, out_dir)
        if args.corpus_model.is_file():
            bpy.ops.wm.read_homefile(use_empty=True)
            assert bpy.ops.import_scene.md2(filepath=str(args.corpus_model)) == {"FINISHED"}
            obj = bpy.context.view_layer.objects.active
            obj.scale = (1.1, 1.1, 1.1)
            obj.rotation_euler = (0.0, 0.0, np.radians(20.0))
            truth = true_positions(bpy, obj)
            still = np.all(truth == truth[:1], axis=(0, 2))
            name = f"{args.corpus_model.parent.name}/{args.corpus_model.name}, edited"
            rows += export_rows(bpy, obj, name, still, out_dir)
        else:
            notes.append(f"note: {args.corpus_model} not found; corpus model skipped")
    version = ".".join(map(str, bpy.app.version))
    print(f"bpy {version}, {FRAMES} frames for the built model; errors in model units unless in steps")
    for note in notes:
        print(note)
    print()
    print(format_table(rows, args.markdown))
    for name in dict.fromkeys(r[0] for r in rows):
        largest = {fmt: LARGEST[(name, fmt)] for fmt in ("MDL", "MD16")}
        print(f"\n{name}: MD16 largest error {largest['MD16']:.3g} = 1/{largest['MDL'] / largest['MD16']:.0f} "
              f"of the 8-bit MDL's {largest['MDL']:.4f}")
    if args.json:
        from tools.figures import write_record
        write_record(args.json, script="tools/md2_quality_report.py",
                     command="python tools/md2_quality_report.py --markdown", environment=f"bpy {version}",
                     headers=list(HEADERS), rows=rows, notes=notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
