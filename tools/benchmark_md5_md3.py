"""CPU seconds of the MD5 import and export (untouched and edited) and of one-frame MD3 imports, before and
after (``--base``), with the bare bpy floor of each import and whether both checkouts give the same output.

    .venvs/bpy-5.2/bin/python tools/benchmark_md5_md3.py [--base CHECKOUT] [--rounds N] [--repeat N]
                                                        [--markdown] [--json PATH] [--md3-json PATH]

MD5 cases: the corpus meshes with the most ``.md5anim`` files beside them (:mod:`tools.benchmark_md5_import`),
imported with *Anims: Folder*, then exported untouched (default options), then with the armature scaled by 1.1
(*Frames: Timeline*: every anim's poses sampled anew). MD3 cases: one-frame corpus models, imported alone.
Every measure runs in a process of its own that loads one checkout's extension: ``--rounds`` rounds, each
the base's process and then this checkout's, so a load that comes and goes on a shared machine falls on
both; each process imports (and exports) ``--repeat`` times; the table keeps the best CPU seconds
(``time.process_time``) of all. "same": the F-curve digest of the import (:func:`keys_digest`), the bytes of
every file each export wrote, and the MD3 meshes' vertices, corners and UVs are the same in both checkouts.
Floors, measured in this checkout's processes: the bare bpy calls that make the MD5's armature (a bone per
joint), its meshes (vertices, triangles, UVs, a vertex group per joint holding its weights) and one action
per anim with the same F-curves and keys; the export's (:func:`md5_export_floor`), every action's F-curve
keys read with ``foreach_get`` and the untouched export's files written as plain bytes; for an MD3, a mesh object per surface with its UVs and one
material per surface. ``--json``/``--md3-json`` write the tables as records for ``tools/figures.py``.
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
CORPUS = CHECKOUT.parent / "shared" / "corpus"
MD3_CASES = ("openarena081/models/weapons/nailgun/nailgun_flash.md3",      # the smallest: one surface
             "openarena081/models/weapons/proxmine/proxmine.md3",
             "openarena085/models/map/forklift.md3",
             "nexuiz/models/spiderbot/cp.md3")                              # the largest one-frame file: 29 surfaces
MD5_HEADERS = ["case", "anims", "import CPU s before", "after", "floor", "untouched export before", "after",
               "export floor", "after / floor", "edited export before", "after", "same keys and bytes"]
MD3_HEADERS = ["case", "surfaces", "import CPU before", "after", "floor", "after / floor", "same meshes"]


def digest_files(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def cpu(fn) -> float:
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def md5_floor(bpy, path: Path) -> float:
    """The bare bpy calls that build what the MD5 import builds (see the module), from decoded arrays."""
    import numpy as np

    from formats.md5.anim import read_md5anim
    from formats.md5.mesh import read_md5mesh
    from formats.md5.skinning import bind_joints, skin_vertices
    mesh = read_md5mesh(path.read_bytes())
    anims = [read_md5anim(p.read_bytes()) for p in sorted(path.parent.glob("*.md5anim"))]
    names = [f"j{j}" for j in range(len(mesh.joint_names))]
    parts = []
    for part in mesh.meshes:
        counts = np.asarray(part.weight_count, np.int64)
        vertex = np.repeat(np.arange(len(counts)), counts)
        weight = np.repeat(np.asarray(part.weight_start, np.int64), counts) + (
            np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
        joint = np.asarray(part.weight_joint, np.int64)[weight]
        rows = [np.unique(vertex[joint == j]).tolist() for j in range(len(names))]   # each joint's vertices
        parts.append((skin_vertices(part, *bind_joints(mesh)).astype(np.float32), part, rows))
    context = bpy.context

    def build() -> None:
        arm = bpy.data.armatures.new("floor")
        rig = bpy.data.objects.new("floor", arm)
        context.scene.collection.objects.link(rig)
        context.view_layer.objects.active = rig
        bpy.ops.object.mode_set(mode="EDIT")
        bones = [arm.edit_bones.new(n) for n in names]
        for bone, pos, parent in zip(bones, mesh.joint_pos, mesh.joint_parents):
            bone.head, bone.tail = pos, (pos[0], pos[1] + 1.0, pos[2])
            bone.parent = bones[parent] if parent >= 0 else None
        bpy.ops.object.mode_set(mode="OBJECT")
        for verts, part, part_rows in parts:
            data = bpy.data.meshes.new("floor")
            data.vertices.add(len(verts))
            data.vertices.foreach_set("co", verts.ravel())
            tris = np.asarray(part.triangles, np.int32)
            data.loops.add(tris.size)
            data.loops.foreach_set("vertex_index", tris.ravel())
            data.polygons.add(len(tris))
            data.polygons.foreach_set("loop_start", np.arange(0, tris.size, 3, dtype=np.int32))
            uv = data.uv_layers.new()
            uv.data.foreach_set("uv", np.asarray(part.uv, np.float32)[tris.ravel()].ravel())
            data.update()
            obj = bpy.data.objects.new("floor", data)
            context.scene.collection.objects.link(obj)
            groups = [obj.vertex_groups.new(name=n) for n in names]
            for group, rows in zip(groups, part_rows):
                if rows:
                    group.add(rows, 0.5, "REPLACE")
        rig.animation_data_create()
        for anim in anims:
            action = bpy.data.actions.new("floor")
            rig.animation_data.action = action
            if hasattr(action, "slots"):
                rig.animation_data.action_slot = action.slots.new(id_type="OBJECT", name="floor")
                from bpy_extras import anim_utils
                curves = anim_utils.action_ensure_channelbag_for_slot(action, rig.animation_data.action_slot).fcurves
            else:
                curves = action.fcurves
            count = anim.num_frames
            keys = np.zeros((count, 2), np.float32)
            keys[:, 0] = np.arange(count)
            linear = np.ones(count, np.int32)
            for name in names:
                for path, width in (("rotation_quaternion", 4), ("location", 3)):
                    for axis in range(width):
                        curve = curves.new(f'pose.bones["{name}"].{path}', index=axis)
                        curve.keyframe_points.add(count)
                        curve.keyframe_points.foreach_set("co", keys.ravel())
                        curve.keyframe_points.foreach_set("interpolation", linear)
                        curve.update()
    return cpu(build)


def md5_export_floor(bpy, folder: Path) -> float:
    """The bare work no export of ``folder``'s files can skip: every action's F-curve keys read with one
    ``foreach_get`` each, and the files' bytes (read here beforehand) written to new files."""
    import numpy as np
    files = [(path.name, path.read_bytes()) for path in sorted(folder.iterdir())]
    target = Path(tempfile.mkdtemp(prefix="classic_models_floor_"))

    def curves(action):
        if hasattr(action, "slots"):
            from bpy_extras import anim_utils
            return [c for slot in action.slots
                    for bag in [anim_utils.action_get_channelbag_for_slot(action, slot)] if bag is not None
                    for c in bag.fcurves]
        return list(action.fcurves)

    def floor() -> None:
        for action in bpy.data.actions:
            for fcurve in curves(action):
                points = fcurve.keyframe_points
                keys = np.empty(len(points) * 2, np.float32)
                points.foreach_get("co", keys)
        for name, data in files:
            with open(target / name, "wb") as out:
                out.write(data)
    try:
        return cpu(floor)
    finally:
        for path in target.iterdir():
            path.unlink()
        target.rmdir()


def md3_floor(bpy, path: Path) -> float:
    """A mesh object per surface with its vertices, triangles and UVs, and a material per surface."""
    import numpy as np

    from formats.md3.codec import read_md3
    from formats.md3.vertices import decode_xyz
    model = read_md3(path.read_bytes())
    surfaces = [(decode_xyz(s.xyz[0]).astype(np.float32), np.asarray(s.triangles, np.int32),
                 np.asarray(s.st, np.float32)) for s in model.surfaces]

    def build() -> None:
        for verts, tris, st in surfaces:
            data = bpy.data.meshes.new("floor")
            data.vertices.add(len(verts))
            data.vertices.foreach_set("co", verts.ravel())
            data.loops.add(tris.size)
            data.loops.foreach_set("vertex_index", tris.ravel())
            data.polygons.add(len(tris))
            data.polygons.foreach_set("loop_start", np.arange(0, tris.size, 3, dtype=np.int32))
            data.uv_layers.new().data.foreach_set("uv", st[tris.ravel()].ravel())
            data.update()
            data.materials.append(bpy.data.materials.new("floor"))
            bpy.context.scene.collection.objects.link(bpy.data.objects.new("floor", data))
    return cpu(build)


def meshes_digest(bpy) -> str:
    import numpy as np
    digest = hashlib.sha256()
    for obj in sorted((o for o in bpy.context.scene.objects if o.type == "MESH"), key=lambda o: o.name):
        data = obj.data
        co = np.empty(len(data.vertices) * 3, np.float32)
        data.vertices.foreach_get("co", co)
        corners = np.empty(len(data.loops), np.int32)
        data.loops.foreach_get("vertex_index", corners)
        digest.update(obj.name.encode() + co.tobytes() + corners.tobytes())
        for layer in data.uv_layers:
            uv = np.empty(len(data.loops) * 2, np.float32)
            layer.data.foreach_get("uv", uv)
            digest.update(uv.tobytes())
    return digest.hexdigest()


def measure(bpy, repeat: int, floors: bool) -> dict:
    """Every case's best CPU seconds in this process, its digests and (``floors``) its floors."""
    import tools.benchmark_md5_import as md5_import
    from tools.benchmark_md5_import import cases, keys_digest
    md5_import.CORPUS = CORPUS / "md5"      # this script's corpus, whichever checkout's code runs (--checkout)
    out: dict = {"md5": {}, "md3": {}}
    with tempfile.TemporaryDirectory(prefix="classic_models_bench_") as tmp:
        for path, anims in cases(3):
            name, best = str(path.relative_to(CORPUS / "md5")), {"import": 1e9, "untouched": 1e9, "edited": 1e9}
            digests = []
            for run in range(repeat):
                folders = [Path(tmp) / f"{path.stem}-{anims}-{run}-{kind}" for kind in ("untouched", "edited")]
                for folder in folders:
                    folder.mkdir()
                bpy.ops.wm.read_homefile(use_empty=True)
                best["import"] = min(best["import"], cpu(lambda p=path: bpy.ops.import_scene.md5(
                    filepath=str(p), find_anims="FOLDER")))
                keys = keys_digest(bpy)
                best["untouched"] = min(best["untouched"], cpu(lambda p=folders[0] / path.name: bpy.ops.export_scene.md5(
                    filepath=str(p))))
                for obj in bpy.context.scene.objects:
                    if obj.parent is None:
                        obj.scale = (1.1, 1.1, 1.1)
                best["edited"] = min(best["edited"], cpu(lambda p=folders[1] / path.name: bpy.ops.export_scene.md5(
                    filepath=str(p), frame_source="TIMELINE")))
                digests.append((keys, digest_files(folders[0]), digest_files(folders[1])))
                if floors:
                    best["export floor"] = min(best.get("export floor", 1e9), md5_export_floor(bpy, folders[0]))
            if floors:
                best["floor"] = 1e9
                for _ in range(repeat):
                    bpy.ops.wm.read_homefile(use_empty=True)
                    best["floor"] = min(best["floor"], md5_floor(bpy, path))
            best["digest"] = digests[0] if len(set(digests)) == 1 else "runs differ"
            best["anims"] = anims
            out["md5"][name] = best
        for name in MD3_CASES:
            path = CORPUS / "md3" / name
            if not path.is_file():
                continue
            best = {"import": 1e9}
            for _ in range(repeat):
                bpy.ops.wm.read_homefile(use_empty=True)
                best["import"] = min(best["import"], cpu(lambda p=path: bpy.ops.import_scene.md3(filepath=str(p))))
            best["digest"] = meshes_digest(bpy)
            best["surfaces"] = sum(1 for o in bpy.context.scene.objects if o.type == "MESH")
            if floors:
                floor = 1e9
                for _ in range(repeat):
                    bpy.ops.wm.read_homefile(use_empty=True)
                    floor = min(floor, md3_floor(bpy, path))
                best["floor"] = floor
            out["md3"][name] = best
    return out


def merged(runs: list[dict]) -> dict:
    """The best seconds of several processes' measures (digests from the first, "differ" if any other's differ)."""
    out = json.loads(json.dumps(runs[0]))
    for run in runs[1:]:
        for kind, cases in run.items():
            if not isinstance(cases, dict):
                continue
            for name, values in cases.items():
                for key, value in values.items():
                    if key == "digest":
                        if value != out[kind][name][key]:
                            out[kind][name][key] = "runs differ"
                    elif isinstance(value, float):
                        out[kind][name][key] = min(out[kind][name][key], value)
    return out


def run_checkout(checkout: Path, repeat: int, floors: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="classic_models_bench_") as tmp:
        emit = Path(tmp) / "measures.json"
        command = [sys.executable, str(Path(__file__).resolve()), "--checkout", str(checkout), "--repeat",
                   str(repeat), "--emit", str(emit)] + (["--floors"] if floors else [])
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0 or not emit.is_file():
            sys.stderr.write(done.stderr[-3000:])
            raise SystemExit(f"the checkout {checkout} failed (exit {done.returncode})")
        return json.loads(emit.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="a checkout of the previous code: before and after side by side")
    parser.add_argument("--rounds", type=int, default=2, help="processes per checkout, alternating (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="imports and exports per process (default 3)")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--json", type=Path, help="write the MD5 table as a record for tools/figures.py")
    parser.add_argument("--md3-json", type=Path, help="write the MD3 table as a record for tools/figures.py")
    parser.add_argument("--checkout", type=Path, help=argparse.SUPPRESS)   # measure with this checkout's code
    parser.add_argument("--emit", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--floors", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.checkout:
        sys.path.insert(0, str(args.checkout))
        from tools.load_extension import enable_extension
        enable_extension()
        import bpy

        from tools.benchmark import exit_without_teardown, reports_to_stderr
        with reports_to_stderr():
            measures = measure(bpy, args.repeat, args.floors)
        measures["bpy"] = bpy.app.version_string
        args.emit.write_text(json.dumps(measures), encoding="utf-8")
        exit_without_teardown(0)
    sys.path.insert(0, str(CHECKOUT))
    from tools.benchmark import checkout_commit, format_table
    before_runs, after_runs = [], []
    for _ in range(args.rounds):
        if args.base:
            before_runs.append(run_checkout(args.base, args.repeat, False))
        after_runs.append(run_checkout(CHECKOUT, args.repeat, True))
    after = merged(after_runs)
    before = merged(before_runs) if before_runs else None
    version = after.pop("bpy")
    if before:
        before.pop("bpy")

    def old(kind: str, name: str, key: str) -> str:
        return f"{before[kind][name][key]:.3f}" if before else ""

    def same(kind: str, name: str) -> str:
        if not before:
            return ""
        return "yes" if before[kind][name]["digest"] == after[kind][name]["digest"] != "runs differ" else "NO"

    md5_rows = [[name, str(now["anims"]), old("md5", name, "import"), f"{now['import']:.3f}", f"{now['floor']:.3f}",
                 old("md5", name, "untouched"), f"{now['untouched']:.3f}", f"{now['export floor']:.3f}",
                 f"{now['untouched'] / now['export floor']:.1f}x", old("md5", name, "edited"),
                 f"{now['edited']:.3f}", same("md5", name)] for name, now in after["md5"].items()]
    md3_rows = [[name, str(now["surfaces"]), old("md3", name, "import"), f"{now['import'] * 1000:.1f} ms",
                 f"{now['floor'] * 1000:.1f} ms", f"{now['import'] / now['floor']:.1f}x", same("md3", name)]
                for name, now in after["md3"].items()]
    if before:
        for row, name in zip(md3_rows, after["md3"]):
            row[2] = f"{before['md3'][name]['import'] * 1000:.1f} ms"
    environment = (f"bpy {version}, CPU seconds, best of {args.rounds} rounds x {args.repeat} runs, "
                   f"{'base and this checkout alternating' if args.base else 'this checkout only'}")
    print(environment)
    print(format_table(md5_rows, args.markdown, tuple(MD5_HEADERS), text_columns=1))
    print(format_table(md3_rows, args.markdown, tuple(MD3_HEADERS), text_columns=1))
    notes = [f"before: commit {checkout_commit(args.base)}, after: commit {checkout_commit(CHECKOUT)}"] if args.base else []
    command = (f"python tools/benchmark_md5_md3.py --markdown --rounds {args.rounds} --repeat {args.repeat}"
               + (" --base BASE" if args.base else ""))
    from tools.figures import write_record
    for path, headers, rows in ((args.json, MD5_HEADERS, md5_rows), (args.md3_json, MD3_HEADERS, md3_rows)):
        if path:
            write_record(path, script="tools/benchmark_md5_md3.py", command=command, environment=environment,
                         headers=headers, rows=rows, notes=notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
