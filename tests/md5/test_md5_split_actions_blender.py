"""MD5 beside its classic model imported with *Animations: Actions*: the one ``.md5anim`` split into one
action per animation of the classic model (an MD2's runs of frame names, an MDL's frame groups and runs
of single frames), each from the first frame, listed in the sidebar. Each action's poses are checked at
every frame against the anim decoded by the test's own MD5 reader (support.md5_rig), the groups against
the frame names read by the test's own MD2/MDL readers; exported untouched (Frames: Actions, the list's
order, or with every default) the split actions write the anim back byte for byte."""
from __future__ import annotations

import re

import numpy as np
import pytest
from support.actions import select_only
from support.environment import CORPUS
from support.md2_reference import decode as decode_md2
from support.md5_rig import frame_skeleton, turning_anim

MESH = CORPUS / "md5/redeclipse/data/luckystrike/door1/mesh.md5mesh"
MD2 = CORPUS / "md2/petaaar88-zarlag/tris.md2"


def _runs(names: list[str]) -> list[tuple[str, int, int]]:
    """(animation, first, last) of consecutive frames sharing a stem (the name without its digits); where
    every name of a run has three digits or more, the digits before the last two name the animation
    (pain101..pain104, pain201.. are pain1, pain2: Quake II's player frames)."""
    stems = [re.sub(r"\d+$", "", n) or n for n in names]
    keys = []
    for k, (name, stem) in enumerate(zip(names, stems)):
        run = [names[i][len(stem):] for i in range(len(names)) if stems[i] == stem]
        keys.append(stem + name[len(stem):-2] if all(len(d) >= 3 for d in run) else stem)
    out = []
    for k, key in enumerate(keys):
        if out and out[-1][0] == key and out[-1][2] == k - 1:
            out[-1] = (key, out[-1][1], k)
        else:
            out.append((key, k, k))
    return out


def _ext(name: str):
    import importlib

    from tools.load_extension import enable_extension
    return importlib.import_module(f"{enable_extension()}.{name}")


def _check_split(bpy, anim_bytes: bytes, expected: list[tuple[str, int, int]]) -> None:
    """The root's animation list is ``expected``; each action plays its anim frames from the first frame."""
    from formats.md5.anim import read_md5anim
    anim = read_md5anim(anim_bytes)
    scene = bpy.context.scene
    root = next(o for o in scene.objects if o.type == "ARMATURE")
    settings = root.classic_model
    start = settings.frame_offset
    assert settings.animation_mode == "ACTIONS"
    assert [(item.name, item.frame_start, item.frame_end) for item in settings.animations] == [
        (name, start, start + last - first) for name, first, last in expected]
    assert not len(scene.timeline_markers)              # the actions, not markers, say where animations are
    assert [f.name for f in settings.frames][:2] and len(settings.frames) == anim.num_frames
    activate = _ext("common.actions").activate_animation
    for index, (name, first, last) in enumerate(expected):
        action = settings.animations[index].action
        assert action["md5_anim_file"].endswith(".md5anim")
        assert tuple(action["md5_anim_frames"]) == (first, last)
        assert (action["anim_frame_rate"], action["anim_frame_count"]) == (anim.frame_rate, last - first + 1)
        if last > first:
            assert tuple(round(f) for f in action.frame_range) == (start, start + last - first)
        activate(scene, root, index)                     # what the sidebar's list does
        assert (scene.frame_start, scene.frame_end) == (start, start + last - first)
        for k in range(first, last + 1):
            scene.frame_set(start + k - first)
            evaluated = root.evaluated_get(bpy.context.evaluated_depsgraph_get())
            pos, wxyz = frame_skeleton(anim, k)
            for j, bone in enumerate(sorted(root.data.bones, key=lambda b: b["md5_joint_index"])):
                matrix = np.array(root.matrix_world @ evaluated.pose.bones[bone.name].matrix)
                assert np.abs(matrix[:3, 3] - pos[j]).max() < 1e-4, (name, k, j)
                from mathutils import Quaternion
                expected_matrix = np.array(Quaternion(wxyz[j]).to_matrix())
                assert np.abs(matrix[:3, :3] - expected_matrix).max() < 1e-5, (name, k, j)


def _export_untouched(bpy, tmp_path):
    blocks = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    bpy.context.scene.classic_export_actions.clear()     # the default: every action, in the list's order
    select_only(bpy, blocks)
    out = tmp_path / "out" / "x.md5mesh"
    out.parent.mkdir()
    assert bpy.ops.export_scene.md5(filepath=str(out), frame_source="ACTIONS", frame_rate="SCENE") == {"FINISHED"}
    files = out.read_bytes(), out.with_suffix(".md5anim").read_bytes()
    default = tmp_path / "default" / "x.md5mesh"      # every default: the split actions back to their one file
    assert bpy.ops.export_scene.md5(filepath=str(default)) == {"FINISHED"}
    assert sorted(p.name for p in default.parent.iterdir()) == ["x.md5anim", "x.md5mesh"]
    assert (default.read_bytes(), default.with_suffix(".md5anim").read_bytes()) == files
    return files


def test_quake2_remaster_anim_split_into_the_md2s_animations(bpy_scene, tmp_path):
    if not (MD2.is_file() and MESH.is_file()):
        pytest.skip(f"corpus files {MD2} or {MESH} not found")
    bpy = bpy_scene
    names = list(decode_md2(MD2.read_bytes()).frame_names)
    folder = tmp_path / "models" / "m"
    (folder / "md5").mkdir(parents=True)
    (folder / "tris.md2").write_bytes(MD2.read_bytes())
    mesh_text, anim_text = MESH.read_bytes(), turning_anim(MESH.read_bytes(), len(names))
    (folder / "md5" / "tris.md5mesh").write_bytes(mesh_text)
    (folder / "md5" / "tris.md5anim").write_bytes(anim_text)
    assert bpy.ops.import_scene.md5(filepath=str(folder / "md5" / "tris.md5mesh"), animations="ACTIONS",
                                    load_skins=False) == {"FINISHED"}
    expected = _runs(names)
    assert ("pain2", 58, 61) in expected and ("run", 40, 45) in expected      # the rule as the test reads it
    _check_split(bpy, anim_text, expected)
    assert _export_untouched(bpy, tmp_path) == (mesh_text, anim_text)


def test_quake_rerelease_anim_split_by_the_mdls_frame_groups(bpy_scene, tmp_path):
    """progs/m.mdl with frames stand1, stand2 and a frame group torch1..3: anim frames 0-1 are ``stand``,
    anim frame 2 (the group's one slot: QuakeC numbers slots) is ``torch``."""
    if not MESH.is_file():
        pytest.skip(f"corpus file {MESH} not found")
    bpy = bpy_scene
    from support.mdl_models import grouped_mdl
    from support.mdl_reference import decode as decode_mdl

    from formats.mdl.codec import serialize_mdl
    mdl = serialize_mdl(grouped_mdl())
    slots = decode_mdl(mdl).frames
    first_names = [s.poses[0].name_raw.split(b"\0")[0].decode() for s in slots]
    assert first_names == ["stand1", "stand2", "torch1"] and len(slots[2].poses) == 3
    progs = tmp_path / "progs"
    progs.mkdir()
    mesh_text = re.sub(rb'shader "[^"]*"', b'shader "m"', MESH.read_bytes())
    anim_text = turning_anim(mesh_text, len(slots))
    (progs / "m.mdl").write_bytes(mdl)
    (progs / "m.md5mesh").write_bytes(mesh_text)
    (progs / "m.md5anim").write_bytes(anim_text)
    assert bpy.ops.import_scene.md5(filepath=str(progs / "m.md5mesh"), animations="ACTIONS",
                                    load_skins=False) == {"FINISHED"}
    _check_split(bpy, anim_text, [("stand", 0, 1), ("torch", 2, 2)])
    assert _export_untouched(bpy, tmp_path) == (mesh_text, anim_text)


def test_split_from_the_game_archive_dialog(bpy_scene, tmp_path):
    """The same Quake layout in a .pak, ticked in the Game Archive dialog with its shared Animations option."""
    if not MESH.is_file():
        pytest.skip(f"corpus file {MESH} not found")
    bpy = bpy_scene
    from support.archive_builders import pack_bytes
    from support.mdl_models import grouped_mdl

    from formats.mdl.codec import serialize_mdl
    mesh_text = re.sub(rb'shader "[^"]*"', b'shader "m"', MESH.read_bytes())
    anim_text = turning_anim(mesh_text, 3)
    archive = tmp_path / "pak0.pak"
    archive.write_bytes(pack_bytes([("progs/m.mdl", serialize_mdl(grouped_mdl())), ("progs/m.md5mesh", mesh_text),
                                    ("progs/m.md5anim", anim_text)]))
    entry = {"name": "progs/m.md5mesh", "format": "", "size": 0, "problem": "", "ticked": True}
    assert bpy.ops.import_scene.game_archive(filepath=str(archive), models=[entry], animations="ACTIONS",
                                             load_skins=False) == {"FINISHED"}
    _check_split(bpy, anim_text, [("stand", 0, 1), ("torch", 2, 2)])


def test_without_a_classic_model_actions_keep_one_action_per_anim(bpy_scene, tmp_path):
    if not MESH.is_file():
        pytest.skip(f"corpus file {MESH} not found")
    bpy = bpy_scene
    assert bpy.ops.import_scene.md5(filepath=str(MESH), animations="ACTIONS", find_anims="FOLDER") == {"FINISHED"}
    anims = sorted(p.stem for p in MESH.parent.glob("*.md5anim"))
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    assert sorted(item.name for item in root.classic_model.animations) == anims
    assert not any("md5_anim_frames" in a for a in bpy.data.actions)
