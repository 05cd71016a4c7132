"""Proof in a real engine: DarkPlaces loads our IQM export of a rig made in Blender
(tests/support/iqm_rig.py) and decompiles it (tests/support/darkplaces_iqm.py): the OBJ's vertices are
Blender's rest-pose mesh, the SMDs' nodes are the bones parents first, and every frame of each anim's
SMD composes (DarkPlaces' own Euler angles, the test's own composition) to Blender's bone matrices at
the scene frame it was sampled at, within the file's quantisation plus DarkPlaces' 16-bit pose
storage. Broken exports (an anim's frames offset by one, two joints swapped) fail that comparison.
The ``.iqm.framegroups`` text written beside the model names and splits the groups in DarkPlaces.
Assimp reads the meshes, their materials and the vertices' extent."""
from __future__ import annotations

import re
import subprocess
from importlib import import_module

import numpy as np
from support.darkplaces_iqm import anim_poses, decompile, dp_steps
from support.engine_tools import require
from support.iqm_rig import BONES, WALK, WAVE, blender_frames, rest_positions, rig_scene, smd_world

from formats.iqm.codec import read_iqm
from formats.iqm.records import POSITION
from formats.iqm.write import write_iqm

FRAMES = {"walk": list(range(WALK[0], WALK[1] + 1)), "wave": list(range(WAVE[0], WAVE[1] + 1, 2))}


def _export(bpy, extension, tmp_path):
    obj, rig, actions = rig_scene(bpy)
    build = import_module(f"{extension}.exporters.iqm.build")
    anims = [(actions["walk"], "walk", WALK[0], WALK[1], 24.0, True),
             (actions["wave"], "wave", WAVE[0], WAVE[1], 12.0, False)]
    model = build.build_iqm(bpy.context, rig, [obj], anims)
    path = tmp_path / "rig.iqm"
    path.write_bytes(write_iqm(model))
    blender = {name: blender_frames(bpy, rig, obj, actions[name], frames)[0] for name, frames in FRAMES.items()}
    return obj, rig, build, read_iqm(path.read_bytes()), path, blender


def tolerance(model, blender) -> float:
    """The file's half steps and DarkPlaces' truncated 16-bit steps, per joint of the 4-deep chain,
    rotations times the largest lever arm; plus the 6 decimals the SMD is printed with."""
    scales = model.poses["channelscale"]
    dp_translate, dp_rotate = dp_steps(model)
    extent = 1.0 + max(float(np.abs(b[..., :3, 3]).max()) for b in blender.values())
    per_joint = (0.5 * float(scales[:, :3].max()) + dp_translate
                 + (2.0 * float(scales[:, 3:7].max()) + 4.0 * dp_rotate + 2e-6) * extent)
    return len(BONES) * per_joint + 1e-5


def smd_errors(smds, blender) -> dict[str, float]:
    """Per anim: the largest difference between DarkPlaces' joints (matched by name) and Blender's."""
    out = {}
    for name, expected in blender.items():
        smd = smds[name]
        names = [n for n, _ in smd.nodes]
        world = smd_world([p for _, p in smd.nodes], smd.frames)
        assert len(world) == len(expected), f"{name}: DarkPlaces has {len(world)} frames, Blender {len(expected)}"
        out[name] = float(np.abs(world[:, [names.index(b) for b in BONES]] - expected).max())
    return out


def test_iqm_export_loads_in_darkplaces_as_blender_shows_it(bpy_scene, extension, tmp_path):
    require("darkplaces-server")
    bpy = bpy_scene
    obj, rig, build, model, path, blender = _export(bpy, extension, tmp_path)
    decompiled, anims = anim_poses(path, tmp_path, model.num_frames)
    assert decompiled.groups == [(0, 9, 24.0, True, "walk"), (9, 4, 12.0, False, "wave")]
    # the vertices: Blender's mesh in its rest pose, every vertex there
    rest = rest_positions(bpy, obj, rig)
    assert len(decompiled.positions) == model.num_vertexes
    nearest = [int(np.argmin(((rest - p) ** 2).sum(1))) for p in decompiled.positions]
    assert np.abs(rest[nearest] - decompiled.positions).max() < 2e-5
    assert set(nearest) == set(range(len(rest)))
    # the skeleton: the bones, parents first
    assert set(decompiled.smds) == {"walk", "wave"}
    for smd in anims.values():
        assert smd.nodes == [("root", -1), ("spine", 0), ("arm", 1), ("hand", 2)]
    allowed = tolerance(model, blender)
    errors = smd_errors(anims, blender)
    assert max(errors.values()) <= allowed, (errors, allowed)
    # broken exports fail the same comparison
    shifted = read_iqm(path.read_bytes())
    shifted.anims["first_frame"][1] -= 1
    (tmp_path / "shifted.iqm").write_bytes(write_iqm(shifted))
    assert smd_errors(anim_poses(tmp_path / "shifted.iqm", tmp_path, model.num_frames)[1], blender)["wave"] > 10 * allowed
    swapped = read_iqm(path.read_bytes())
    names = swapped.joints["name"].copy()
    swapped.joints["name"][1], swapped.joints["name"][2] = names[2], names[1]
    (tmp_path / "swapped.iqm").write_bytes(write_iqm(swapped))
    assert max(smd_errors(anim_poses(tmp_path / "swapped.iqm", tmp_path, model.num_frames)[1], blender).values()) \
        > 10 * allowed


def test_iqm_export_framegroups_split_and_name_the_groups_in_darkplaces(bpy_scene, extension, tmp_path):
    require("darkplaces-server")
    bpy = bpy_scene
    obj, rig, build, model, path, blender = _export(bpy, extension, tmp_path)
    text = build.framegroups_text(model)
    # the file's anims renamed and split otherwise: DarkPlaces follows the framegroups, not the anims
    changed = text.replace("walk", "stride").replace("wave", "hello")
    decompiled = decompile(path, tmp_path, framegroups=changed)
    assert set(decompiled.smds) == {"stride", "hello"}
    assert [len(decompiled.smds[n].frames) for n in ("stride", "hello")] == [9, 4]
    assert "scene hello.smd fps 12  noloop" in (tmp_path / "dp_home/.darkplaces/id1/progs/m_decompiled/out_zym.txt").read_text()
    assert decompiled.groups == [(0, 9, 24.0, True, "stride"), (9, 4, 12.0, False, "hello")]
    # (Debian's decompiler writes every group from pose 0: the first group's poses are the walk's)
    assert smd_errors({"stride": decompiled.smds["stride"]}, {"stride": blender["walk"]})["stride"] <= \
        tolerance(model, blender)


def test_iqm_export_reads_in_assimp(bpy_scene, extension, tmp_path):
    exe = require("assimp")
    bpy = bpy_scene
    obj, rig, build, model, path, blender = _export(bpy, extension, tmp_path)
    run = subprocess.run([exe, "info", str(path)], capture_output=True, text=True, timeout=120)
    text = run.stdout + run.stderr
    assert run.returncode == 0 and "Faces:" in text, text[-2000:]

    def number(label):
        return int(re.search(rf"^{label}:\s+(\d+)", text, re.M).group(1))
    assert number("Vertices") == model.num_vertexes and number("Faces") == len(model.triangles)
    assert number("Meshes") == 2
    assert re.findall(r"^    '(.*)' \(prop\)", text.split("Named Materials:", 1)[1], re.M) == \
        ["thing_skin_low", "thing_skin_high"]
    # Assimp turns IQM's Z up to its Y up: (x, z, -y)
    positions = model.array(POSITION).data.astype(np.float64)[:, [0, 2, 1]] * np.array([1, 1, -1])

    def point(label):
        return np.array([float(v) for v in re.search(rf"^{label}\s+\(([^)]*)\)", text, re.M).group(1).split()])
    assert np.allclose(point("Minimum point"), positions.min(axis=0), atol=1e-5)
    assert np.allclose(point("Maximum point"), positions.max(axis=0), atol=1e-5)
