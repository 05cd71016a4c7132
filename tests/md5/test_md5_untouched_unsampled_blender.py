"""An untouched imported anim is written from its kept text without sampling (issue 44, the MD5 export's
speed): the import stores digests of each whole anim's file, keys and rest pose on its action
(``common/md5/keys.py``) and the export writes the text of every anim whose digests hold, untouched, with no
pose sampled and no anim text parsed; the corpus drone comes back byte for byte. A key moved in one anim
sends that anim alone through the sampling, which writes its new pose; a bone turned by Euler angles (the
keys the same, the pose not) sends every anim through it. Fails on the old code, which sampled and compared
every anim."""
from __future__ import annotations

from importlib import import_module

import numpy as np
import pytest
from support.md5_drone import DRONE, import_drone

from formats.md5.anim import read_md5anim
from formats.md5.skinning import frame_joints


def _files(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _corpus() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(DRONE.parent.iterdir()) if p.suffix in (".md5mesh", ".md5anim")}


def _counting(monkeypatch, extension, fail: bool = False) -> dict[str, list]:
    """The actions whose poses were sampled (raising with ``fail``) and the anim texts read."""
    calls: dict[str, list] = {"sampled": [], "read": []}
    pose = import_module(f"{extension}.exporters.md5.pose")
    original = pose._channels_now            # once per action sampled, from its F-curves or stepped

    def sample(context, armature, frames, *args):
        if fail:
            raise AssertionError("an untouched anim was sampled")
        calls["sampled"].append(frames[0].action)
        return original(context, armature, frames, *args)
    monkeypatch.setattr(pose, "_channels_now", sample)
    write_back = import_module(f"{extension}.exporters.md5.write_back")
    monkeypatch.setattr(write_back, "read_md5anim", lambda text, original=write_back.read_md5anim:
                        calls["read"].append(text) or original(text))
    return calls


def test_an_untouched_import_is_written_without_sampling(bpy_scene, extension, tmp_path, monkeypatch):
    bpy = bpy_scene
    import_drone(bpy, "as imported")
    calls = _counting(monkeypatch, extension, fail=True)
    assert bpy.ops.export_scene.md5(filepath=str(tmp_path / DRONE.name)) == {"FINISHED"}
    assert _files(tmp_path) == _corpus()
    assert calls["read"] == []


def _location_curve(bpy, action, rig):
    if hasattr(action, "slots"):
        from bpy_extras import anim_utils
        curves = anim_utils.action_get_channelbag_for_slot(action, action.slots[0]).fcurves
    else:
        curves = action.fcurves
    return next(c for c in curves if c.data_path.endswith(".location") and c.array_index == 2
                and rig.data.bones[c.data_path.split('"')[1]].parent is None)


def test_an_edit_goes_through_the_sampling(bpy_scene, extension, tmp_path, monkeypatch):
    bpy = bpy_scene
    rig = import_drone(bpy, "as imported")
    corpus = _corpus()
    action = bpy.data.actions["attack1"]
    curve = _location_curve(bpy, action, rig)
    joint = rig.data.bones[curve.data_path.split('"')[1]]["md5_joint_index"]
    point = curve.keyframe_points[1]
    imported = tuple(point.co)
    point.co = (imported[0], imported[1] + 2.0)             # a root joint moved 2 units in frame 1
    calls = _counting(monkeypatch, extension)
    assert bpy.ops.export_scene.md5(filepath=str(tmp_path / "key" / DRONE.name)) == {"FINISHED"}
    written = _files(tmp_path / "key")
    assert calls["sampled"] == ["attack1"] and len(calls["read"]) == 1
    assert sorted(name for name in written if written[name] != corpus[name]) == ["attack1.md5anim"]
    before, after = read_md5anim(corpus["attack1.md5anim"]), read_md5anim(written["attack1.md5anim"])
    moved = frame_joints(after)[0] - frame_joints(before)[0]                      # (F, J, 3)
    assert after.num_frames == before.num_frames
    assert abs(float(np.linalg.norm(moved[1, joint])) - 2.0) < 1e-3
    assert float(np.abs(np.delete(moved, 1, axis=0)).max()) < 1e-3, "the other frames stay"
    point.co = imported                                     # back as imported: unsampled again
    calls["sampled"].clear()
    assert bpy.ops.export_scene.md5(filepath=str(tmp_path / "back" / DRONE.name)) == {"FINISHED"}
    assert calls["sampled"] == [] and _files(tmp_path / "back") == corpus
    turned = next(b for b in rig.pose.bones if b.parent is not None)
    turned.rotation_mode = "XYZ"                            # the keys the same, the pose not
    assert bpy.ops.export_scene.md5(filepath=str(tmp_path / "euler" / DRONE.name)) == {"FINISHED"}
    assert len(calls["sampled"]) == 23


@pytest.mark.parametrize("edit", ["scaled", "bone moved", "moved"])
def test_an_edited_rig_is_sampled(bpy_scene, extension, tmp_path, monkeypatch, edit):
    """The armature scaled, a bone's rest moved, or the armature moved just before the export (its matrix
    not yet evaluated): every anim sampled, as before."""
    bpy = bpy_scene
    rig = import_drone(bpy, edit)
    if edit == "moved":
        rig.location.x += 1.0
    calls = _counting(monkeypatch, extension)
    assert bpy.ops.export_scene.md5(filepath=str(tmp_path / DRONE.name)) == {"FINISHED"}
    assert len(calls["sampled"]) == 23
