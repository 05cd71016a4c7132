"""Import and untouched export of MD2, MDL and MD3 against the bare bpy floor, in CPU seconds.

Run with a Python that has the ``bpy`` wheel::

    .venvs/bpy-5.2/bin/python tools/benchmark_floor.py [--repeat N] [--markdown] [--base CHECKOUT]

Cases: :mod:`tools.benchmark`'s MD2 and MDL cases (the largest corpus files and the synthetic model at
the engine limits), and two MD3s of the corpus: the largest OpenArena player part and the Nexuiz turret
``walker_body.md3`` (14 surfaces, 156 frames; each skipped with a note if absent).

* Import = ``bpy.ops.import_scene.FMT`` (MD3: one file, *Assemble Player* off). Its floor is the bare
  bpy calls that build the same meshes, UVs and shape keys from already decoded arrays
  (:func:`tools.benchmark.import_floor`; MD3: one mesh object per surface).
* Export = ``bpy.ops.export_scene.FMT`` of the freshly imported model, untouched (MD2/MDL: timeline
  frames). Its floor is ``points.foreach_get("co")`` on every shape key of every mesh.
* Blender's other calls: what the bare bpy calls cost that make (import) or read (export) the rest of
  what the import made, with the same counts and sizes: the F-curves that play the frames and move the
  tags, the packed skin images, the materials, the empties (:func:`import_extras`); every F-curve's keys,
  an MDL's skin pixels and the write of the file (:func:`export_extras`). The last column is the time
  against the floor and these together: what is left there is ours (Python, numpy, the operator).

Times are CPU seconds (``time.process_time``), so other processes' load does not decide them; each is
the best of ``--repeat`` runs, the scene reset with ``read_homefile`` between runs. ``--base CHECKOUT``
(a git worktree of the previous code, e.g. ``git worktree add --detach /tmp/floor-base main``) times
the same imports and exports in a second process that loads that checkout's extension, and the table
gives before and after side by side with the ratios to the floor measured in this process.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
CORPUS = CHECKOUT.parent / "shared" / "corpus"
MD3_CASES = ("openarena081/models/players/merman/upper.md3",   # the largest OpenArena player part
             "nexuiz/models/turrets/walker_body.md3")           # issue 31's 14-surface, 156-frame turret


@dataclass
class Best:
    import_s: float = float("inf")
    import_floor_s: float = float("inf")
    import_extras_s: float = float("inf")
    export_s: float = float("inf")
    export_floor_s: float = float("inf")
    export_extras_s: float = float("inf")


def key_points(block):
    """A shape key's points (``data`` where a Blender version has no ``points``)."""
    return block.points if hasattr(block, "points") else block.data


def md3_cases(bench) -> tuple[list, list[str]]:
    from formats.md3.codec import read_md3

    cases, notes = [], []
    for name in MD3_CASES:
        path = CORPUS / "md3" / name
        if not path.is_file():
            notes.append(f"{name} not found in {CORPUS / 'md3'}: skipped")
            continue
        model = read_md3(path.read_bytes())
        cases.append(bench.Case("md3", name, path, sum(s.num_verts for s in model.surfaces),
                                sum(len(s.triangles) for s in model.surfaces), model.num_frames))
    return cases, notes


def md3_import_floor(bench, case) -> float:
    """The bare bpy calls that build one mesh object per surface with its UVs and a shape key per frame."""
    import numpy as np

    import bpy

    from formats.md3.codec import read_md3
    from formats.md3.vertices import decode_xyz

    surfaces = []
    for surface in read_md3(case.path.read_bytes()).surfaces:
        corners = np.ascontiguousarray(surface.triangles[:, ::-1], dtype=np.int32)
        st = surface.st[corners.ravel()]
        uvs = np.ascontiguousarray(np.column_stack([st[:, 0], 1.0 - st[:, 1]]), dtype=np.float32).ravel()
        frames = np.ascontiguousarray(decode_xyz(surface.xyz), dtype=np.float32).reshape(surface.num_frames, -1)
        surfaces.append((corners.ravel(), uvs, frames, len(corners), surface.num_verts))
    collection = bpy.context.view_layer.active_layer_collection.collection

    def build() -> None:
        root = bpy.data.objects.new("floor", None)
        collection.objects.link(root)
        for corners, uvs, frames, num_tris, num_verts in surfaces:
            mesh = bpy.data.meshes.new("floor")
            mesh.vertices.add(num_verts)
            mesh.vertices.foreach_set("co", frames[0])
            mesh.loops.add(num_tris * 3)
            mesh.loops.foreach_set("vertex_index", corners)
            mesh.polygons.add(num_tris)
            mesh.polygons.foreach_set("loop_start", np.arange(0, num_tris * 3, 3, dtype=np.int32))
            mesh.polygons.foreach_set("loop_total", np.full(num_tris, 3, dtype=np.int32))
            mesh.uv_layers.new(name="UVMap").uv.foreach_set("vector", uvs)
            obj = bpy.data.objects.new("floor", mesh)
            collection.objects.link(obj)
            obj.parent = root
            obj.shape_key_add(name="Basis", from_mix=False)
            for index, co in enumerate(frames):
                key_points(obj.shape_key_add(name=f"frame {index}", from_mix=False)).foreach_set("co", co)

    return bench.timed_cpu(build)[1]


def export_floor(bench, objects) -> float:
    """``foreach_get`` of every shape key's coordinates on every mesh (:func:`tools.benchmark.export_floor`)."""
    import bpy
    return sum(bench.export_floor(bpy, obj) for obj in objects if obj.type == "MESH" and obj.data.shape_keys)


def action_curves(action) -> list:
    """Every F-curve of ``action`` (layered actions from Blender 4.4, ``action.fcurves`` before)."""
    if hasattr(action, "layers"):
        return [fcurve for layer in action.layers for strip in layer.strips for bag in strip.channelbags
                for fcurve in bag.fcurves]
    return list(action.fcurves)


def new_curves(action) -> object:
    """A collection to add F-curves to in ``action``."""
    if not hasattr(action, "slots"):
        return action.fcurves
    from bpy_extras import anim_utils
    slot = action.slots.new(id_type="OBJECT", name="extra")
    if hasattr(anim_utils, "action_ensure_channelbag_for_slot"):
        return anim_utils.action_ensure_channelbag_for_slot(action, slot).fcurves
    return action.layers.new("Layer").strips.new(type="KEYFRAME").channelbag(slot, ensure=True).fcurves


def image_source(image) -> tuple[str, int, int, object]:
    """(the image file Blender loaded, or '' for an image made from pixels (a PCX or MDL skin), width,
    height, those pixels (packing encodes them, so their content counts))."""
    import numpy as np

    import bpy
    path = bpy.path.abspath(image.filepath) if image.filepath else ""
    if path and not path.lower().endswith(".pcx") and Path(path).is_file():
        return path, *image.size, None
    width, height = image.size
    pixels = np.empty(width * height * image.channels, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    return "", width, height, pixels


def import_extras(bench) -> float:
    """CPU seconds of the bare bpy calls that make what the import made besides the floor's meshes, UVs and
    shape keys, with the same counts and sizes: its actions' F-curves and keys (linear), its packed skin
    images (loaded from their file and packed, or made from pixels and packed), its materials (an image node linked to the BSDF) and its empties."""
    import numpy as np

    import bpy

    actions = [[len(fcurve.keyframe_points) for fcurve in action_curves(action)] for action in bpy.data.actions]
    images = [image_source(image) for image in bpy.data.images if image.packed_file is not None]
    materials = len(bpy.data.materials)
    empties = sum(obj.type == "EMPTY" for obj in bpy.context.scene.objects)
    most = max([max(counts, default=1) for counts in actions] or [1])
    co = np.arange(most * 2, dtype=np.float32)
    linear = np.ones(most, dtype=np.int32)
    collection = bpy.context.view_layer.active_layer_collection.collection

    def build() -> None:
        for counts in actions:
            curves = new_curves(bpy.data.actions.new("extra"))
            for index, count in enumerate(counts):
                fcurve = curves.new(f'["extra{index}"]')
                fcurve.keyframe_points.add(count)
                fcurve.keyframe_points.foreach_set("co", co[:2 * count])
                fcurve.keyframe_points.foreach_set("interpolation", linear[:count])
                fcurve.update()
        for path, width, height, pixels in images:
            if path:
                image = bpy.data.images.load(path, check_existing=False)
            else:
                image = bpy.data.images.new("extra", width, height, alpha=True)
                image.pixels.foreach_set(pixels)
            image.pack()
        for _ in range(materials):
            material = bpy.data.materials.new("extra")
            if bpy.app.version < (5, 0, 0):
                material.use_nodes = True
            tree = material.node_tree
            tree.links.new(tree.nodes.new("ShaderNodeTexImage").outputs["Color"],
                           tree.nodes["Principled BSDF"].inputs["Base Color"])
        for _ in range(empties):
            collection.objects.link(bpy.data.objects.new("extra", None))

    return bench.timed_cpu(build)[1]


def export_extras(bench, case, written: int) -> float:
    """CPU seconds of the bare bpy calls that read what the untouched export reads besides the floor's shape
    keys: every F-curve's keys (frames, values, interpolation), for MDL every skin image's pixels, and
    the write of a file of the exported size."""
    import numpy as np

    import bpy

    curves = [fcurve for action in bpy.data.actions for fcurve in action_curves(action)]
    images = [image for image in bpy.data.images if case.fmt == "mdl" and image.packed_file is not None]
    data = bytes(written)

    def read() -> None:
        for fcurve in curves:
            points = fcurve.keyframe_points
            count = len(points)
            points.foreach_get("co", np.empty(count * 2, dtype=np.float32))
            points.foreach_get("interpolation", np.empty(count, dtype=np.int32))
        for image in images:
            width, height = image.size
            image.pixels.foreach_get(np.empty(width * height * image.channels, dtype=np.float32))
        with tempfile.NamedTemporaryFile(prefix="classic_models_floor_") as handle:
            handle.write(data)
            handle.flush()

    return bench.timed_cpu(read)[1]


def import_export(bench, case, out: Path) -> tuple[float, float, list]:
    """CPU seconds of the import and of the untouched export, and the imported objects."""
    import bpy

    kwargs = {"assemble_player": False} if case.fmt == "md3" else {}
    export_kwargs = {} if case.fmt == "md3" else {"frame_source": "TIMELINE"}
    bpy.ops.wm.read_homefile(use_empty=True)
    imported = bench.timed_cpu(lambda: getattr(bpy.ops.import_scene, case.fmt)(filepath=str(case.path), **kwargs))[1]
    objects = list(bpy.context.scene.objects)
    exported = bench.timed_cpu(lambda: getattr(bpy.ops.export_scene, case.fmt)(filepath=str(out), **export_kwargs))[1]
    return imported, exported, objects


def run_case(bench, case, repeat: int, out_dir: Path, floors: bool) -> Best:
    import bpy

    best = Best()
    out = out_dir / f"{case.path.stem}_out.{case.fmt}"
    for _ in range(repeat):
        if floors:
            bpy.ops.wm.read_homefile(use_empty=True)
            floor = md3_import_floor(bench, case) if case.fmt == "md3" else bench.import_floor(bpy, case)
            best.import_floor_s = min(best.import_floor_s, floor)
        imported, exported, objects = import_export(bench, case, out)
        best.import_s, best.export_s = min(best.import_s, imported), min(best.export_s, exported)
        if floors:          # after the export: what these make must not be exported
            best.export_floor_s = min(best.export_floor_s, export_floor(bench, objects))
            best.export_extras_s = min(best.export_extras_s, export_extras(bench, case, out.stat().st_size))
            best.import_extras_s = min(best.import_extras_s, import_extras(bench))
    bpy.ops.wm.read_homefile(use_empty=True)
    return best


def key(case) -> str:
    return f"{case.fmt}:{case.name}"


HEADERS = ("format", "case", "vertices", "frames", "work", "floor s", "Blender's other calls s", "s", "/ floor",
           "/ floor and other calls")
BASE_HEADERS = ("format", "case", "vertices", "frames", "work", "floor s", "Blender's other calls s", "before s",
                "after s", "before / floor", "after / floor", "after / floor and other calls")


def rows(results: list, before: dict[str, list[float]]) -> list[list[str]]:
    out = []
    for case, t in results:
        works = (("import", t.import_floor_s, t.import_extras_s, t.import_s, 0),
                 ("untouched export", t.export_floor_s, t.export_extras_s, t.export_s, 1))
        for work, floor, extras, now, column in works:
            cells = [case.fmt.upper(), case.name, str(case.vertices), str(case.frames), work, f"{floor:.4f}",
                     f"{extras:.4f}"]
            if before:
                was = before.get(key(case), [float("nan")] * 2)[column]
                cells += [f"{was:.3f}", f"{now:.3f}", f"{was / floor:.1f}x"]
            else:
                cells.append(f"{now:.3f}")
            cells += [f"{now / floor:.1f}x", f"{now / (floor + extras):.1f}x"]
            out.append(cells)
    return out


def base_timings(base: Path, fmt: str, repeat: int) -> dict[str, list[float]]:
    """Run this script in a second process on ``base``'s code: ``{"fmt:case": [import, export]}`` CPU s."""
    with tempfile.TemporaryDirectory(prefix="classic_models_floor_base_") as tmp:
        emit = Path(tmp) / "base.json"
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--checkout", str(base), "--format", fmt,
                        "--repeat", str(repeat), "--emit", str(emit)], check=True, stdout=subprocess.DEVNULL)
        return json.loads(emit.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the best is kept (default 3)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--format", choices=("md2", "mdl", "md3", "all"), default="all")
    parser.add_argument("--base", type=Path, help="a checkout of the previous code: before and after side by side")
    parser.add_argument("--json", type=Path, help="also write the table as a record for tools/figures.py")
    parser.add_argument("--checkout", type=Path, help=argparse.SUPPRESS)   # load this checkout's code (for --base)
    parser.add_argument("--emit", type=Path, help=argparse.SUPPRESS)       # import/export CPU s only, as JSON
    args = parser.parse_args(argv)
    repeat = max(args.repeat, 1)
    before = base_timings(args.base, args.format, repeat) if args.base else {}

    sys.path.insert(0, str(args.checkout or CHECKOUT))
    from tools import benchmark as bench
    bench.CORPUS = CORPUS           # this script's corpus, whichever checkout's code runs (--checkout)
    from tools.load_extension import enable_extension
    enable_extension()
    import bpy

    with tempfile.TemporaryDirectory(prefix="classic_models_floor_") as tmp:
        out_dir = Path(tmp)
        cases, notes = [], []
        for fmt in (("md2", "mdl", "md3") if args.format == "all" else (args.format,)):
            found, skipped = md3_cases(bench) if fmt == "md3" else bench.corpus_cases(fmt)
            cases += found
            notes += skipped
            if fmt != "md3":
                from formats.md2.codec import serialize_md2
                from formats.mdl.codec import serialize_mdl
                make, serialize = {"md2": (bench.synthetic_md2, serialize_md2),
                                   "mdl": (bench.synthetic_mdl, serialize_mdl)}[fmt]
                path = out_dir / f"synthetic_limits.{fmt}"
                path.write_bytes(serialize(make()))
                positions, corners, _, _ = bench.parse_case(fmt, path)
                cases.append(bench.Case(fmt, "synthetic (engine limits)", path, positions.shape[1], len(corners),
                                        len(positions)))
        with bench.reports_to_stderr():
            results = [(case, run_case(bench, case, repeat, out_dir, floors=not args.emit)) for case in cases]
    if args.emit:
        args.emit.write_text(json.dumps({key(case): [t.import_s, t.export_s] for case, t in results}), encoding="utf-8")
        return 0

    environment = f"bpy {bpy.app.version_string}, best of {repeat}, CPU seconds"
    print(f"{environment}" + (f"; before: {args.base}" if args.base else ""))
    for note in notes:
        print(f"note: {note}")
    print()
    headers = BASE_HEADERS if args.base else HEADERS
    table = rows(results, before)
    print(bench.format_table(table, args.markdown, headers))
    if args.json:
        from tools.figures import write_record
        command = "bash tools/dev.sh bench-floor --markdown" + (" --base BASE" if args.base else "")
        write_record(args.json, script="tools/benchmark_floor.py", command=command, environment=environment,
                     headers=list(headers), rows=table, notes=[f"note: {note}" for note in notes])
    return 0


if __name__ == "__main__":
    status = main()
    from tools.benchmark import exit_without_teardown  # importable once main() put the checkout on the path
    exit_without_teardown(status)
