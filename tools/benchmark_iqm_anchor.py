"""Our IQM export side by side with the format author's Blender exporter (the anchor): CPU seconds for the
same rig and actions, and what each file holds, decoded by our codec and compared with Blender's pose.

    .venvs/bpy-4.2/bin/python tools/benchmark_iqm_anchor.py [--rounds N] [--markdown] [--json PATH]
                                                           [--anchor PATH] [--keep FOLDER]

The anchor is ``iqm_export.py`` of lsalzman/iqm (``/work/shared/anchors/iqm_export/``, ``--anchor``), loaded
from that path at run time as an add-on module and registered (``File > Export > Inter-Quake Model``,
``bpy.ops.export.iqm``); nothing of it is in this project. Where it does not register or its export fails,
its row says so.

Each round builds the same scene anew (``read_homefile``, :func:`build_rig`): an armature of 35 bones (a
connected spine chain, a head, arms and legs whose first bone is disconnected from its parent and off to the
side, two-bone fingers disconnected from the hand, a prop bone far from its parent hand), a skinned tube of
3,200 vertices weighted over two bones each, and three actions (``idle`` 1-30, ``run`` 1-45, ``wave`` 1-60)
that rotate every bone and move the disconnected ones. Ours is ``bpy.ops.export_scene.iqm`` with its
defaults (every action of the armature); the anchor is ``bpy.ops.export.iqm`` with its defaults and its
typed animation string naming the same actions, frames and rate (``idle:1:30:24,run:1:45:24,...``), the
rig and the mesh selected. Times are CPU seconds (``time.process_time``) of the operator call, best of
``--rounds``. Both files are then read with ``formats/iqm`` (``read_iqm``, ``frame_poses``, ``bind_pose``):
joints, meshes, vertices, triangles, anims, frames, and for each anim frame the joints' world matrices
(``translate @ rotate @ scale`` down the parents) against ``armature.matrix_world @ PoseBone.matrix`` of
Blender's evaluated pose at that scene frame, by joint name: the largest difference of any matrix entry and
the joint it is on, beside the file's own quantisation bound (per joint of the deepest chain half a
translation step plus twice a rotation step times the largest lever arm). A mangled disconnected bone shows
as an error far above the bound.
"""
from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
ANCHOR = Path("/work/shared/anchors/iqm_export/iqm_export.py")
ACTIONS = (("idle", 1, 30), ("run", 1, 45), ("wave", 1, 60))
FPS = 24
HEADERS = ["exporter", "CPU s (best)", "ours faster by", "joints", "meshes", "vertices", "triangles", "anims",
           "frames", "bounds", "largest joint error", "on joint", "quantisation bound"]

# name: (head, tail, parent, connected)
SPINE = [(f"spine{i}", (0, 0, 0.5 + 0.4 * i), (0, 0, 0.9 + 0.4 * i), "root" if i == 0 else f"spine{i - 1}", i > 0)
         for i in range(6)]


def rig_layout() -> dict[str, tuple]:
    bones = {"root": ((0, 0, 0), (0, 0, 0.5), None, False)}
    bones.update({name: (h, t, p, c) for name, h, t, p, c in SPINE})
    bones["head"] = ((0, 0.1, 3.2), (0, 0.1, 3.7), "spine5", False)
    for side, x in (("L", 1), ("R", -1)):
        bones[f"shoulder.{side}"] = ((0.35 * x, 0.05, 2.7), (0.6 * x, 0, 2.75), "spine5", False)
        bones[f"upper.{side}"] = ((0.6 * x, 0, 2.75), (1.2 * x, 0, 2.5), f"shoulder.{side}", True)
        bones[f"fore.{side}"] = ((1.2 * x, 0, 2.5), (1.8 * x, 0.1, 2.3), f"upper.{side}", True)
        bones[f"hand.{side}"] = ((1.8 * x, 0.1, 2.3), (2.0 * x, 0.1, 2.2), f"fore.{side}", True)
        for k in range(3):
            y = 0.06 * (k - 1)
            bones[f"finger{k}a.{side}"] = ((2.05 * x, y + 0.1, 2.2), (2.15 * x, y + 0.1, 2.15), f"hand.{side}", False)
            bones[f"finger{k}b.{side}"] = ((2.15 * x, y + 0.1, 2.15), (2.25 * x, y + 0.1, 2.1), f"finger{k}a.{side}", True)
        bones[f"thigh.{side}"] = ((0.3 * x, 0, 0.45), (0.3 * x, 0.05, -0.6), "root", False)
        bones[f"shin.{side}"] = ((0.3 * x, 0.05, -0.6), (0.3 * x, 0, -1.6), f"thigh.{side}", True)
        bones[f"foot.{side}"] = ((0.3 * x, 0, -1.6), (0.3 * x, -0.3, -1.7), f"shin.{side}", True)
    bones["prop"] = ((2.4, -0.8, 3.0), (2.4, -0.8, 4.0), "hand.R", False)
    return bones


def tube(rings: int = 50, around: int = 64):
    """(V, 3) vertices and (F, 4) quads of a closed-side tube from z -1.7 to 3.7, radius 0.45."""
    z = np.linspace(-1.7, 3.7, rings)
    angle = np.linspace(0, 2 * np.pi, around, endpoint=False)
    verts = np.stack([np.tile(0.45 * np.cos(angle), rings), np.tile(0.45 * np.sin(angle), rings),
                      np.repeat(z, around)], 1)
    r, i = np.meshgrid(np.arange(rings - 1), np.arange(around), indexing="ij")
    r, i = r.ravel(), i.ravel()
    quads = np.stack([r * around + i, r * around + (i + 1) % around, (r + 1) * around + (i + 1) % around,
                      (r + 1) * around + i], 1)
    return verts, quads


def build_rig(bpy):
    """(mesh object, armature object, [action names]) in the current, empty scene."""
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = FPS, 1.0
    layout = rig_layout()
    arm = bpy.data.armatures.new("anchor_rig")
    rig = bpy.data.objects.new("anchor_rig", arm)
    scene.collection.objects.link(rig)
    rig.location, rig.rotation_euler = (0.3, -0.2, 0.1), (0.0, 0.0, 0.4)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    for index, (name, (head, tail, parent, connected)) in enumerate(layout.items()):
        bone = arm.edit_bones.new(name)
        bone.head, bone.tail, bone.roll = head, tail, 0.1 * (index % 5)
        if parent:
            bone.parent = arm.edit_bones[parent]
            bone.use_connect = connected
    bpy.ops.object.mode_set(mode="OBJECT")
    verts, quads = tube()
    mesh = bpy.data.meshes.new("anchor_body")
    mesh.vertices.add(len(verts))
    mesh.vertices.foreach_set("co", verts.astype(np.float32).ravel())
    mesh.loops.add(quads.size)
    mesh.loops.foreach_set("vertex_index", quads.astype(np.int32).ravel())
    mesh.polygons.add(len(quads))
    mesh.polygons.foreach_set("loop_start", np.arange(0, quads.size, 4, dtype=np.int32))
    mesh.uv_layers.new(name="UVMap").data.foreach_set("uv", (verts[quads.ravel(), :2] * 0.5 + 0.5).astype(np.float32).ravel())
    mesh.update()
    mesh.materials.append(bpy.data.materials.new("anchor_skin"))
    obj = bpy.data.objects.new("anchor_body", mesh)
    scene.collection.objects.link(obj)
    obj.parent = rig
    obj.matrix_parent_inverse = rig.matrix_world.inverted()
    obj.modifiers.new("rig", "ARMATURE").object = rig
    # each vertex to its two nearest bone middles (in rest space), weights by inverse distance, in 1/16 steps
    names = list(layout)
    middles = np.array([(np.add(h, t)) / 2 for h, t, _, _ in layout.values()])
    distance = np.linalg.norm(verts[:, None] - middles[None], axis=2)
    nearest = np.argsort(distance, axis=1)[:, :2]
    near = np.take_along_axis(distance, nearest, 1)
    first = np.clip(np.rint(16 * near[:, 1] / near.sum(1)), 1, 15) / 16
    groups = [obj.vertex_groups.new(name=n) for n in names]
    for column, weights in ((0, first), (1, 1 - first)):
        for bone in np.unique(nearest[:, column]):
            for weight in np.unique(weights[nearest[:, column] == bone]):
                rows = np.flatnonzero((nearest[:, column] == bone) & (weights == weight))
                groups[bone].add(rows.tolist(), float(weight), "REPLACE")
    rig.animation_data_create()
    disconnected = {name for name, (_, _, parent, connected) in layout.items() if parent and not connected}
    for number, (action_name, start, end) in enumerate(ACTIONS):
        action = bpy.data.actions.new(action_name)
        action.use_fake_user = True         # kept when unassigned, as a user keeps an action for later
        rig.animation_data.action = action
        for frame in sorted({*range(start, end + 1, 5), end}):
            t = (frame - start) / (end - start)
            for k, pose_bone in enumerate(rig.pose.bones):
                pose_bone.rotation_mode = "XYZ"
                phase = 2.5 * t * (number + 1) + 0.3 * k
                pose_bone.rotation_euler = (0.4 * np.sin(phase), 0.3 * np.cos(phase) * t, 0.2 * np.sin(2 * phase))
                pose_bone.keyframe_insert("rotation_euler", frame=frame)
                if pose_bone.name in disconnected or pose_bone.name == "root":
                    pose_bone.location = (0.2 * np.sin(phase), 0.1 * t, 0.15 * np.cos(phase))
                    pose_bone.keyframe_insert("location", frame=frame)
        rig.animation_data.action = None
    for pose_bone in rig.pose.bones:
        pose_bone.location, pose_bone.rotation_euler = (0, 0, 0), (0, 0, 0)
    scene.frame_set(1)
    return obj, rig, [a[0] for a in ACTIONS]


def blender_joints(bpy, rig) -> dict[str, tuple[list[str], np.ndarray]]:
    """Each action's (bone names, (F, B, 4, 4) world matrices of the evaluated pose at its scene frames)."""
    scene = bpy.context.scene
    out = {}
    names = [b.name for b in rig.pose.bones]
    for action_name, start, end in ACTIONS:
        rig.animation_data.action = bpy.data.actions[action_name]
        frames = []
        for frame in range(start, end + 1):
            scene.frame_set(frame)
            evaluated = rig.evaluated_get(bpy.context.evaluated_depsgraph_get())
            world = np.array(evaluated.matrix_world, np.float64)
            frames.append([world @ np.array(evaluated.pose.bones[n].matrix, np.float64) for n in names])
        out[action_name] = (names, np.array(frames))
    rig.animation_data.action = None
    return out


def file_worlds(model):
    """(F, J, 4, 4) world matrices of every frame's joints, our codec's channels composed here."""

    from formats.iqm.animation import bind_pose, frame_poses
    parents, *_ = bind_pose(model)
    translate, rotate, scale = (np.asarray(a, np.float64) for a in frame_poses(model))
    q = rotate / np.linalg.norm(rotate, axis=-1, keepdims=True)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    local = np.zeros(translate.shape[:-1] + (4, 4))
    local[..., :3, :3] = np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], -2) * scale[..., None, :]
    local[..., :3, 3] = translate
    local[..., 3, 3] = 1.0
    for joint, parent in enumerate(parents):
        if parent >= 0:
            local[:, joint] = local[:, parent] @ local[:, joint]
    return local


def quantisation_bound(model, worlds) -> float:
    parents = model.poses["parent"]
    depth = 1
    for joint in range(len(parents)):
        level, at = 1, joint
        while parents[at] >= 0:
            level, at = level + 1, parents[at]
        depth = max(depth, level)
    scales = model.poses["channelscale"]
    extent = 1.0 + float(np.abs(worlds[..., :3, 3]).max()) if worlds.size else 1.0
    return depth * (0.5 * float(scales[:, 0:3].max()) + 2.0 * float(scales[:, 3:7].max()) * extent) + 1e-5


def describe(path: Path, blender: dict) -> dict:
    """What the file holds and its largest joint error against ``blender`` (:func:`blender_joints`)."""

    from formats.iqm.animation import anim_frames
    from formats.iqm.codec import read_iqm
    model = read_iqm(path.read_bytes())
    worlds = file_worlds(model)
    missing = [name for name in blender if name not in model.anim_names]
    error, joint = (float("inf"), "no anim " + ", ".join(missing)) if missing else (0.0, "")
    for index, name in enumerate(model.anim_names):
        if name not in blender:
            continue
        bones, expected = blender[name]
        frames = list(anim_frames(model, index))
        if len(frames) != len(expected):
            error, joint = float("inf"), f"{name}: {len(frames)} frames, Blender {len(expected)}"
            continue
        columns = [model.joint_names.index(b) for b in bones]
        diff = np.abs(worlds[frames][:, columns] - expected).max(axis=(0, 2, 3))
        if diff.max() > error:
            error, joint = float(diff.max()), bones[int(diff.argmax())]
    return {"joints": len(model.joints), "meshes": len(model.meshes), "vertices": int(model.num_vertexes),
            "triangles": len(model.triangles), "anims": len(model.anims), "frames": int(model.num_frames),
            "bounds": "per frame" if model.bounds is not None and len(model.bounds) else "none",
            "error": error, "joint": joint, "bound": quantisation_bound(model, worlds)}


def load_anchor(path: Path):
    """The anchor's module, registered; or the reason it is not."""
    spec = importlib.util.spec_from_file_location("iqm_export", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["iqm_export"] = module
    spec.loader.exec_module(module)
    module.register()
    return module


def cpu(fn) -> float:
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def measure(bpy, rounds: int, folder: Path, anchor_ok: bool) -> dict:
    best = {"ours": float("inf"), "anchor": float("inf")}
    failures = {}
    spec = ",".join(f"{name}:{start}:{end}:{FPS}" for name, start, end in ACTIONS)
    for _ in range(rounds):
        bpy.ops.wm.read_homefile(use_empty=True)
        obj, rig, _names = build_rig(bpy)
        for other in bpy.context.view_layer.objects:
            other.select_set(other in (obj, rig))
        bpy.context.view_layer.objects.active = rig
        best["ours"] = min(best["ours"], cpu(lambda: bpy.ops.export_scene.iqm(filepath=str(folder / "ours.iqm"))))
        if anchor_ok:
            try:
                best["anchor"] = min(best["anchor"], cpu(lambda: bpy.ops.export.iqm(
                    filepath=str(folder / "anchor.iqm"), animspec=spec)))
            except Exception as exc:     # the anchor's own failure: reported in its row
                failures["anchor"] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1]}"
                anchor_ok = False
    blender = blender_joints(bpy, rig)
    out = {"ours": {"cpu": best["ours"], **describe(folder / "ours.iqm", blender)}}
    if anchor_ok and (folder / "anchor.iqm").is_file():
        out["anchor"] = {"cpu": best["anchor"], **describe(folder / "anchor.iqm", blender)}
    else:
        out["anchor"] = {"failed": failures.get("anchor", "wrote no file")}
    out["bones"] = len(rig.data.bones)
    out["disconnected"] = sum(1 for b in rig.data.bones if b.parent and not b.use_connect)
    out["mesh vertices"] = len(obj.data.vertices)
    return out


def rows_of(result: dict) -> list[list[str]]:
    ours, anchor = result["ours"], result["anchor"]
    rows = []
    for label, values in (("ours (export_scene.iqm)", ours), ("anchor (lsalzman iqm_export.py)", anchor)):
        if "failed" in values:
            rows.append([label, values["failed"]] + [""] * (len(HEADERS) - 2))
            continue
        ratio = f"{anchor['cpu'] / ours['cpu']:.1f}x" if values is ours and "cpu" in anchor else ""
        rows.append([label, f"{values['cpu']:.3f}", ratio, str(values["joints"]), str(values["meshes"]),
                     str(values["vertices"]), str(values["triangles"]), str(values["anims"]), str(values["frames"]),
                     values["bounds"], f"{values['error']:.2e}", values["joint"], f"{values['bound']:.2e}"])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="fresh scenes, each exported by both (default 3)")
    parser.add_argument("--anchor", type=Path, default=ANCHOR, help="the author's iqm_export.py")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--json", type=Path, help="write the table as a record for tools/figures.py")
    parser.add_argument("--keep", type=Path, help="write both files into this folder (else a temporary one)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(CHECKOUT))
    from tools.load_extension import enable_extension
    enable_extension()
    import bpy

    from tools.benchmark import format_table, reports_to_stderr
    anchor_note = ""
    try:
        with reports_to_stderr():
            load_anchor(args.anchor)
        anchor_ok = True
    except Exception as exc:          # an old add-on on a new Blender: say why
        anchor_ok, anchor_note = False, f"the anchor does not register: {type(exc).__name__}: {exc}"
    with tempfile.TemporaryDirectory(prefix="iqm_anchor_") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        with reports_to_stderr():
            result = measure(bpy, args.rounds, folder, anchor_ok)
    if anchor_note:
        result["anchor"] = {"failed": anchor_note}
    load = os.getloadavg()
    environment = (f"bpy {bpy.app.version_string}, CPU seconds of the operator, best of {args.rounds} fresh scenes; "
                   f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    rig = (f"rig: {result['bones']} bones ({result['disconnected']} disconnected from their parent), "
           f"a tube of {result['mesh vertices']} vertices, actions "
           + ", ".join(f"{n} {s}-{e}" for n, s, e in ACTIONS) + f" at {FPS} fps")
    rows = rows_of(result)
    print(environment)
    print(rig)
    print(format_table(rows, args.markdown, tuple(HEADERS), text_columns=1))
    if args.json:
        from tools.figures import write_record
        write_record(args.json, script="tools/benchmark_iqm_anchor.py",
                     command=f"python tools/benchmark_iqm_anchor.py --markdown --rounds {args.rounds}",
                     environment=environment, headers=HEADERS, rows=rows, notes=[rig])
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(CHECKOUT))
    from tools.benchmark import exit_without_teardown
    exit_without_teardown(main())
