"""Time MS3D import and export against floors measured in the same run.

Run with a Python that has the ``bpy`` wheel::

    .venvs/bpy-5.0/bin/python tools/benchmark_ms3d.py [--repeat N] [--markdown]

Cases: the corpus MS3D files with joints, largest first (glscene/Woman4.ms3d: 31 joints, 66,123
rotation keys); skipped with a note if the corpus is absent.

* Import = ``bpy.ops.import_scene.ms3d``. Its floor is the bare bpy calls that create the same
  datablocks from arrays decoded and prepared beforehand: the materials, the armature (edit mode,
  one edit bone per joint), per group a mesh with its UVs, custom normals and the importer's
  attributes, the object, its vertex groups (one ``add`` per joint and weight) and Armature
  modifier, and one F-curve per animated channel filled with ``foreach_set``.
* Export = ``bpy.ops.export_scene.ms3d`` of the freshly imported model with the default *Animation =
  Keyframes* (it reads the pose at every scene frame to hold the tolerance: from the action's
  F-curves, or by stepping the timeline where they do not decide it); "bake export" the same with
  *Animation = Bake* (a key per frame and joint). Its floor is the bare bpy
  reads it needs: per mesh ``foreach_get`` of positions, loop triangles, corner normals, UVs and
  attributes, the vertex-group weights of every vertex, every bone's rest matrix and every F-curve's
  keys.

Each time is the best of ``--repeat`` runs; the scene is reset with ``read_homefile`` between runs.

``--base CHECKOUT`` (the previous code in a git worktree, e.g. ``git worktree add --detach /tmp/ms3d-base
main``) also prints both exports before and after side by side in CPU seconds (``time.process_time``, so a
busy machine does not decide them): the base is timed in a second process that loads that checkout's
extension (``--checkout``), this one's figures come from the runs of the table above.
``--compare-json PATH`` writes that table as a record.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from tools.benchmark import exit_without_teardown, format_table, reports_to_stderr, timed, timed_cpu  # noqa: E402

CORPUS_MS3D = CHECKOUT.parent / "shared" / "corpus" / "ms3d"
HEADERS = ("case", "vertices", "triangles", "joints", "rotation keys", "import s", "import floor s", "ratio",
           "export s", "export floor s", "ratio", "bake export s")


_EXTENSION: dict[str, str] = {}


def extension_module(name: str, package: str = "importers"):
    """``<package>.<name>`` of the extension as Blender loaded it (relative imports need the package)."""
    import importlib
    return importlib.import_module(f"{_EXTENSION['module']}.{package}.{name}")


@dataclass
class Case:
    name: str
    path: Path
    vertices: int
    triangles: int
    joints: int
    rotation_keys: int


@dataclass
class Timings:
    import_s: float = float("inf")
    import_floor_s: float = float("inf")
    export_s: float = float("inf")
    export_floor_s: float = float("inf")
    bake_s: float = float("inf")
    export_cpu_s: float = float("inf")
    bake_cpu_s: float = float("inf")
    frames: int = 0                 # the scene range the import set: a pose is read at each


def corpus_cases() -> tuple[list[Case], list[str]]:
    from formats.errors import FormatError
    from formats.ms3d.codec import parse_ms3d

    if not CORPUS_MS3D.is_dir():
        return [], [f"corpus not found at {CORPUS_MS3D}: no cases"]
    cases, notes = [], []
    for path in sorted(CORPUS_MS3D.glob("*/*.ms3d")):
        try:
            model = parse_ms3d(path.read_bytes())
        except (FormatError, OSError) as exc:
            notes.append(f"{path.parent.name}/{path.name} skipped: {exc}")
            continue
        if model.joints:
            cases.append(Case(f"{path.parent.name}/{path.name}", path, model.num_vertices, model.num_triangles,
                              len(model.joints), sum(len(j.rot_keys) for j in model.joints)))
    cases.sort(key=lambda c: c.rotation_keys, reverse=True)
    return cases, notes


def _prepared(path: Path):
    """Everything the import floor writes, computed before the clock starts."""
    import numpy as np

    from formats.ms3d.codec import parse_ms3d
    arm, imp = extension_module("ms3d_armature", "importers.ms3d"), extension_module("ms3d_import", "importers.ms3d")
    rig = extension_module("rig", "formats.ms3d")

    model = parse_ms3d(path.read_bytes())
    conversion = imp.conversion_matrix("-Z", "Y")
    parents, _ = extension_module("joints", "formats.ms3d").joint_parents(model)
    c4 = np.eye(4)
    c4[:3, :3] = conversion
    bones = c4 @ rig.rest_matrices(model, parents)
    lengths = arm.bone_lengths(bones[:, :3, 3], parents, 10.0)
    joints, percent = rig.vertex_influences(model)
    skin = rig.pack_skin(model)
    extras = (model.vertex_extras.extra if model.vertex_extras is not None and model.vertex_extras.extra is not None
              else np.zeros((model.num_vertices, 0), np.uint32))
    groups = []
    for group in model.groups:
        tris = np.asarray(group.triangles, dtype=np.int64)
        corners = model.tri_vertices[tris].astype(np.int64)
        used = np.unique(corners)
        rows, joint, weight = rig.combined_weights(joints[used], percent[used], len(model.joints))
        buckets = {}
        for r, j, w in zip(rows.tolist(), joint.tolist(), weight.tolist()):
            buckets.setdefault((j, w), []).append(r)
        t = model.tri_t[tris].reshape(-1)
        groups.append(dict(
            name=group.name, material=group.material,
            co=(model.vert_xyz[used].astype(np.float64) @ conversion.T).astype(np.float32).ravel(),
            loops=np.searchsorted(used, corners).astype(np.int32).ravel(),
            uv=np.column_stack([model.tri_s[tris].reshape(-1), 1.0 - t]).astype(np.float32).ravel(),
            normals=(model.tri_normals[tris].reshape(-1, 3).astype(np.float64) @ conversion.T).tolist(),
            point=[used, model.vert_flags[used], model.vert_refcount[used], skin[0][used], skin[1][used]]
            + [np.ascontiguousarray(column[used]).view("<i4") for column in extras.T],
            face=[tris, model.tri_flags[tris], model.tri_smoothing[tris]],
            corner_vector=[model.tri_normals[tris].astype(np.float32).ravel()] * 2, corner_float=[t],
            buckets=list(buckets.items())))
    fps = float(model.animation_fps)
    channels = []
    every = np.unique(np.concatenate([arm.key_frames(k[:, 0], fps) for j in model.joints
                                      for k in (j.rot_keys, j.pos_keys)]))
    for joint in model.joints:
        name = joint.name
        if len(joint.rot_keys):
            frames, angles, _ = arm.rotation_keys_with_slerp(arm.key_frames(joint.rot_keys[:, 0], fps),
                                                             joint.rot_keys[:, 1:].astype(np.float64), every)
            for axis in range(3):
                channels.append((f'pose.bones["{name}"].rotation_euler', axis, name,
                                 np.column_stack([frames, angles[:, axis]]).astype(np.float32).ravel(), 1, None))
        if len(joint.pos_keys):
            frames = arm.key_frames(joint.pos_keys[:, 0], fps)
            for axis in range(3):
                values = joint.pos_keys[:, 1 + axis].astype(np.float64)
                handles = np.column_stack([frames, values]).astype(np.float32).ravel()
                channels.append((f'pose.bones["{name}"].location', axis, name,
                                 np.column_stack([frames, values]).astype(np.float32).ravel(), 2, handles))
    return model, bones, lengths, parents, groups, channels


def import_floor(bpy, path: Path) -> float:
    import numpy as np

    from mathutils import Matrix
    arm = extension_module("ms3d_armature", "importers.ms3d")

    model, bone_matrices, lengths, parents, groups, channels = _prepared(path)
    matrices = [Matrix(m.tolist()) for m in bone_matrices]
    collection = bpy.context.view_layer.active_layer_collection.collection
    point_names = ("a0", "a1", "a2", "a3", "a4", "a5", "a6")

    def build() -> None:
        materials = []
        for source in model.materials:
            material = bpy.data.materials.new(source.name)
            if bpy.app.version < (5, 0, 0):
                material.use_nodes = True
            materials.append(material)
        data = bpy.data.armatures.new("floor")
        rig = bpy.data.objects.new("floor", data)
        collection.objects.link(rig)
        bpy.context.view_layer.objects.active = rig
        bpy.ops.object.mode_set(mode="EDIT")
        edit_bones = []
        for joint, matrix, length in zip(model.joints, matrices, lengths):
            bone = data.edit_bones.new(joint.name)
            bone.head, bone.tail = (0.0, 0.0, 0.0), (0.0, float(length), 0.0)
            bone.matrix = matrix
            edit_bones.append(bone)
        for bone, parent in zip(edit_bones, parents):
            if parent != -1:
                bone.parent = edit_bones[parent]
        bpy.ops.object.mode_set(mode="OBJECT")
        for pose_bone in rig.pose.bones:
            pose_bone.rotation_mode = "XYZ"
        names = [b.name for b in data.bones]
        for g in groups:
            count, corners = len(g["co"]) // 3, len(g["loops"])
            mesh = bpy.data.meshes.new(g["name"])
            mesh.vertices.add(count)
            mesh.vertices.foreach_set("co", g["co"])
            mesh.loops.add(corners)
            mesh.loops.foreach_set("vertex_index", g["loops"])
            mesh.polygons.add(corners // 3)
            mesh.polygons.foreach_set("loop_start", np.arange(0, corners, 3, dtype=np.int32))
            mesh.polygons.foreach_set("loop_total", np.full(corners // 3, 3, dtype=np.int32))
            mesh.uv_layers.new(name="UVMap").uv.foreach_set("vector", g["uv"])
            mesh.polygons.foreach_set("use_smooth", np.ones(corners // 3, dtype=bool))
            mesh.update()
            for name, values in zip(point_names, g["point"]):
                mesh.attributes.new(name, "INT", "POINT").data.foreach_set("value", values.astype(np.int32))
            for name, values in zip(("f0", "f1", "f2"), g["face"]):
                mesh.attributes.new(name, "INT", "FACE").data.foreach_set("value", values.astype(np.int32))
            for name, values in zip(("c0", "c1"), g["corner_vector"]):
                mesh.attributes.new(name, "FLOAT_VECTOR", "CORNER").data.foreach_set("vector", values)
            mesh.attributes.new("c2", "FLOAT", "CORNER").data.foreach_set("value", g["corner_float"][0])
            mesh.normals_split_custom_set(g["normals"])
            if g["material"] >= 0:
                mesh.materials.append(materials[g["material"]])
            obj = bpy.data.objects.new(g["name"], mesh)
            collection.objects.link(obj)
            obj.parent = rig
            vertex_groups = [obj.vertex_groups.new(name=n) for n in names]
            for (joint, weight), rows in g["buckets"]:
                vertex_groups[joint].add(rows, weight, "REPLACE")
            obj.modifiers.new("Armature", "ARMATURE").object = rig
        curves = arm.new_bone_fcurves(rig, "floor", [(path, index, group) for path, index, group, *_ in channels])
        for curve, (_, _, _, co, interpolation, handles) in zip(curves, channels):
            points = curve.keyframe_points
            points.add(len(co) // 2)
            points.foreach_set("co", co)
            points.foreach_set("interpolation", np.full(len(co) // 2, interpolation, dtype=np.int32))
            if handles is not None:
                points.foreach_set("handle_left", handles)
                points.foreach_set("handle_right", handles)
            curve.update()

    return timed(build)


def export_floor(bpy) -> float:
    import numpy as np

    objects = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    rig = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")

    def read() -> None:
        for obj in objects:
            mesh = obj.data
            count, loops = len(mesh.vertices), len(mesh.loops)
            mesh.vertices.foreach_get("co", np.empty(count * 3, np.float32))
            mesh.calc_loop_triangles()
            tris = len(mesh.loop_triangles)
            mesh.loop_triangles.foreach_get("vertices", np.empty(tris * 3, np.int32))
            mesh.loop_triangles.foreach_get("loops", np.empty(tris * 3, np.int32))
            mesh.loop_triangles.foreach_get("polygon_index", np.empty(tris, np.int32))
            mesh.corner_normals.foreach_get("vector", np.empty(loops * 3, np.float32))
            mesh.uv_layers.active.uv.foreach_get("vector", np.empty(loops * 2, np.float32))
            mesh.loops.foreach_get("edge_index", np.empty(loops, np.int32))
            mesh.edges.foreach_get("use_edge_sharp", np.empty(len(mesh.edges), bool))
            mesh.polygons.foreach_get("material_index", np.empty(len(mesh.polygons), np.int32))
            for attr in mesh.attributes:
                if attr.name.startswith("ms3d_"):
                    size = {"POINT": count, "FACE": len(mesh.polygons), "CORNER": loops}[attr.domain]
                    if attr.data_type == "FLOAT_VECTOR":
                        attr.data.foreach_get("vector", np.empty(size * 3, np.float32))
                    elif attr.data_type == "FLOAT":
                        attr.data.foreach_get("value", np.empty(size, np.float32))
                    else:
                        attr.data.foreach_get("value", np.empty(size, np.int32))
            [(g.group, g.weight) for v in mesh.vertices for g in v.groups]
        [b.matrix_local for b in rig.data.bones]
        anim = rig.animation_data
        if hasattr(anim, "action_slot"):
            from bpy_extras import anim_utils
            curves = anim_utils.action_get_channelbag_for_slot(anim.action, anim.action_slot).fcurves
        else:
            curves = anim.action.fcurves
        for curve in curves:
            points = curve.keyframe_points
            points.foreach_get("co", np.empty(len(points) * 2, np.float32))
            points.foreach_get("type", np.empty(len(points), np.int32))

    return timed(read)


def run_case(bpy, case: Case, repeat: int, out: Path) -> Timings:
    best = Timings()
    for run in range(repeat):
        bpy.ops.wm.read_homefile(use_empty=True)
        best.import_floor_s = min(best.import_floor_s, import_floor(bpy, case.path))
        bpy.ops.wm.read_homefile(use_empty=True)
        best.import_s = min(best.import_s, timed(lambda: bpy.ops.import_scene.ms3d(filepath=str(case.path))))
        best.frames = bpy.context.scene.frame_end - bpy.context.scene.frame_start + 1
        for obj in bpy.context.scene.objects:
            obj.select_set(True)
        for mode in ("KEYS", "BAKE")[::1 if run % 2 else -1]:    # alternate which runs first after the import
            seconds, cpu = timed_cpu(lambda: bpy.ops.export_scene.ms3d(filepath=str(out), animation=mode))  # noqa: B023  (timed calls it at once)
            if mode == "KEYS":
                best.export_s, best.export_cpu_s = min(best.export_s, seconds), min(best.export_cpu_s, cpu)
            else:
                best.bake_s, best.bake_cpu_s = min(best.bake_s, seconds), min(best.bake_cpu_s, cpu)
        best.export_floor_s = min(best.export_floor_s, export_floor(bpy))
    bpy.ops.wm.read_homefile(use_empty=True)
    return best


def table_rows(results: list[tuple[Case, Timings]]) -> list[list[str]]:
    return [[c.name, str(c.vertices), str(c.triangles), str(c.joints), str(c.rotation_keys),
             f"{t.import_s:.3f}", f"{t.import_floor_s:.3f}", f"{t.import_s / t.import_floor_s:.1f}x",
             f"{t.export_s:.3f}", f"{t.export_floor_s:.3f}", f"{t.export_s / t.export_floor_s:.1f}x", f"{t.bake_s:.3f}"]
            for c, t in results]


def exports_only(bpy, case: Case, repeat: int, out: Path) -> list[float]:
    """Best CPU seconds of the Keyframes and the Bake export of the imported case (for ``--base``)."""
    best = [float("inf"), float("inf")]
    for run in range(repeat):
        bpy.ops.wm.read_homefile(use_empty=True)
        bpy.ops.import_scene.ms3d(filepath=str(case.path))
        for obj in bpy.context.scene.objects:
            obj.select_set(True)
        for k in (0, 1)[::1 if run % 2 else -1]:
            mode = ("KEYS", "BAKE")[k]
            cpu = timed_cpu(lambda: bpy.ops.export_scene.ms3d(filepath=str(out), animation=mode))[1]  # noqa: B023
            best[k] = min(best[k], cpu)
    bpy.ops.wm.read_homefile(use_empty=True)
    return best


def base_timings(base: Path, repeat: int) -> dict[str, list[float]]:
    """Run this script in a second process on ``base``'s code: ``{case: [Keyframes, Bake] export CPU s}``."""
    import json
    import subprocess
    with tempfile.TemporaryDirectory(prefix="classic_models_base_") as tmp:
        emit = Path(tmp) / "base.json"
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--checkout", str(base), "--repeat",
                        str(repeat), "--emit", str(emit)], check=True, stdout=subprocess.DEVNULL)
        return json.loads(emit.read_text(encoding="utf-8"))


COMPARE_HEADERS = ("case", "frames", "export CPU s before", "after", "before / after", "bake export CPU s before",
                   "after", "before / after")


def compare_rows(results: list[tuple[Case, Timings]], before: dict[str, list[float]]) -> list[list[str]]:
    rows = []
    for case, t in results:
        keys, bake = before.get(case.name, [float("nan")] * 2)
        rows.append([case.name, str(t.frames), f"{keys:.3f}", f"{t.export_cpu_s:.3f}",
                     f"{keys / t.export_cpu_s:.1f}x", f"{bake:.3f}", f"{t.bake_cpu_s:.3f}", f"{bake / t.bake_cpu_s:.1f}x"])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per case; the best is kept (default 5)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--json", type=Path, help="also write the table as a record for tools/figures.py")
    parser.add_argument("--base", type=Path, help="a checkout of the previous code: print both exports before "
                        "and after (CPU s)")
    parser.add_argument("--compare-json", type=Path, help="write the before/after table as a record")
    parser.add_argument("--checkout", type=Path, help=argparse.SUPPRESS)   # load this checkout's code (for --base)
    parser.add_argument("--emit", type=Path, help=argparse.SUPPRESS)       # export CPU s only, as JSON
    args = parser.parse_args(argv)
    repeat = max(args.repeat, 1)
    before = base_timings(args.base, repeat) if args.base else {}

    if args.checkout:
        sys.path.insert(0, str(args.checkout))
        for name in [m for m in sys.modules if m == "tools" or m.startswith("tools.")]:
            del sys.modules[name]
    from tools.load_extension import enable_extension
    _EXTENSION["module"] = enable_extension()
    import bpy

    cases, notes = corpus_cases()
    with tempfile.TemporaryDirectory(prefix="classic_models_bench_") as tmp:
        if args.emit:
            import json
            with reports_to_stderr():
                emitted = {case.name: exports_only(bpy, case, repeat, Path(tmp) / "out.ms3d") for case in cases}
            args.emit.write_text(json.dumps(emitted), encoding="utf-8")
            exit_without_teardown(0)
        with reports_to_stderr():
            results = [(case, run_case(bpy, case, repeat, Path(tmp) / "out.ms3d")) for case in cases]
    print(f"bpy {bpy.app.version_string}, Python {sys.version.split()[0]}, best of {repeat}")
    for note in notes:
        print(f"note: {note}")
    print()
    print(format_table(table_rows(results), args.markdown, HEADERS, text_columns=1))
    if args.base or args.compare_json:
        rows = compare_rows(results, before)
    if args.base:
        print(f"\nExports before ({args.base}) and after, CPU seconds:\n")
        print(format_table(rows, args.markdown, COMPARE_HEADERS, text_columns=1))
    if args.compare_json:
        from tools.figures import write_record
        write_record(args.compare_json, script="tools/benchmark_ms3d.py",
                     command="bash tools/dev.sh bench-ms3d --markdown --base BASE",
                     environment=f"bpy {bpy.app.version_string}, best of {repeat}, CPU seconds",
                     headers=list(COMPARE_HEADERS), rows=rows, notes=[])
    if args.json:
        from tools.figures import write_record
        write_record(args.json, script="tools/benchmark_ms3d.py", command="bash tools/dev.sh bench-ms3d --markdown",
                     environment=f"bpy {bpy.app.version_string}, best of {repeat}", headers=list(HEADERS),
                     rows=table_rows(results), notes=[f"note: {note}" for note in notes])
    exit_without_teardown(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
