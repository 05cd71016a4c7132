"""MD5 import in Blender: every corpus .md5mesh with the anims beside it; Blender's evaluated meshes at
anim frames against the codec's skinning (independent of Blender's deform: it checks bones, vertex
groups and keys); bones by joint index; a bad file through the operator leaves nothing."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.blender_helpers import corner_uvs, datablock_counts, evaluated_positions, polygon_vertices
from support.environment import corpus_files, corpus_params

MESHES = "md5/**/*.md5mesh"
TOLERANCE = 1e-4
AGREEING = 1e-5          # a vertex whose weights' bind positions lie this close: LBS must give the engines' pose


def _codec():
    from formats.md5.anim import read_md5anim
    from formats.md5.mesh import read_md5mesh
    from formats.md5.skinning import bind_joints, frame_joints, skin_vertices
    return read_md5mesh, read_md5anim, bind_joints, frame_joints, skin_vertices


def _ext(name: str):
    """A module of the enabled extension (``common.contract``): the extension's own package, as Blender loads it."""
    import importlib

    from tools.load_extension import enable_extension
    return importlib.import_module(f"{enable_extension()}.{name}")


def _import(bpy, path: Path, **options) -> set[str]:
    return bpy.ops.import_scene.md5(filepath=str(path), **options)


def _root(bpy):
    return next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")


def _blocks(bpy, root) -> list:
    MD5_MESH_INDEX = _ext("common.md5.contract").MD5_MESH_INDEX
    return sorted((o for o in root.children if o.type == "MESH"), key=lambda o: o[MD5_MESH_INDEX])


def _spread(mesh, part, positions):
    from formats.md5.skinning import bind_joints
    return _ext("common.md5.pose").weight_spread(part, *bind_joints(mesh), positions)


def _frames_checked(count: int) -> list[int]:
    return list(range(count))


@pytest.mark.parametrize("path", corpus_params(MESHES))
def test_corpus_mesh_imports_with_its_anims_as_the_codec_skins_them(bpy_scene, path):
    bpy = bpy_scene
    read_mesh, read_anim, bind_joints, frame_joints, skin_vertices = _codec()
    mesh = read_mesh(path.read_bytes())
    assert _import(bpy, path, find_anims="FOLDER") == {"FINISHED"}
    root = _root(bpy)
    blocks = _blocks(bpy, root)
    # bones: one per joint, found by index, parents by index, rest matrix = the joint's bind matrix
    MD5_JOINT_INDEX = _ext("common.md5.contract").MD5_JOINT_INDEX
    bones = sorted(root.data.bones, key=lambda b: b[MD5_JOINT_INDEX])
    assert [b[MD5_JOINT_INDEX] for b in bones] == list(range(mesh.num_joints))
    by_name = {b.name: b[MD5_JOINT_INDEX] for b in bones}
    assert [by_name[b.parent.name] if b.parent else -1 for b in bones] == [int(p) for p in mesh.joint_parents]
    assert [b.name for b in bones] == [n for n in mesh.joint_names] or len(set(mesh.joint_names)) < mesh.num_joints
    pos, quat = bind_joints(mesh)
    heads = np.array([b.head_local for b in bones])
    assert np.abs(heads - pos).max() < TOLERANCE * max(1.0, np.abs(pos).max())
    # meshes: vertex i at the bind pose, corners reversed, UVs with v flipped
    assert len(blocks) == len(mesh.meshes)
    for obj, part in zip(blocks, mesh.meshes):
        bind = skin_vertices(part, pos, quat)
        coords = np.empty(len(obj.data.vertices) * 3, np.float32)
        obj.data.vertices.foreach_get("co", coords)
        assert np.abs(coords.reshape(-1, 3) - bind).max() < TOLERANCE * max(1.0, np.abs(bind).max())
        tris = part.triangles[(part.triangles[:, 0] != part.triangles[:, 1]) & (part.triangles[:, 1] != part.triangles[:, 2])
                              & (part.triangles[:, 0] != part.triangles[:, 2])]
        assert np.array_equal(polygon_vertices(obj.data), tris[:, ::-1])
        expected_uv = np.stack([part.uv[tris[:, ::-1], 0], 1.0 - part.uv[tris[:, ::-1], 1]], axis=-1)
        assert np.abs(corner_uvs(obj.data) - expected_uv).max() < 1e-6
    # every anim of the folder that pairs with the mesh is an action; deformed as the codec skins it
    MD5_ANIM_FILE = _ext("common.md5.contract").MD5_ANIM_FILE
    from formats.md5.limits import pair_problems
    anims = {p.name: read_anim(p.read_bytes()) for p in sorted(path.parent.glob("*.md5anim"))}
    paired = {name for name, anim in anims.items() if not pair_problems(mesh, anim)}
    actions = {a[MD5_ANIM_FILE]: a for a in bpy.data.actions if MD5_ANIM_FILE in a}
    assert set(actions) == paired
    assign_action = _ext("common.actions").assign_action
    scene = bpy.context.scene
    start = root.classic_model.frame_offset
    scene_rate = scene.render.fps / scene.render.fps_base
    for name in sorted(paired):
        anim = anims[name]
        assign_action(root, actions[name])
        assert (actions[name]["anim_frame_rate"], actions[name]["anim_frame_count"]) == (anim.frame_rate,
                                                                                       anim.num_frames)
        step = scene_rate / anim.frame_rate
        for k in _frames_checked(anim.num_frames):
            frame = start + k * step
            scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))
            jp, jq = frame_joints(anim, k)
            for obj, part in zip(blocks, mesh.meshes):
                expected = skin_vertices(part, jp[0], jq[0])
                agreeing = _spread(mesh, part, skin_vertices(part, pos, quat)) <= AGREEING
                got = evaluated_positions(bpy, obj)
                error = np.abs(got - expected)[agreeing]
                scale = max(1.0, np.abs(expected).max())
                assert not len(error) or error.max() < TOLERANCE * scale, (name, k, obj.name, error.max())


def test_weights_placing_a_vertex_apart_are_reported(bpy_scene, capfd):
    """The mine's weights disagree (0.22 units): the import says Blender deforms them otherwise."""
    path = next((p for p in corpus_files(MESHES) if p.parent.name == "mine"), None)
    if path is None:
        pytest.skip("the corpus's mine.md5mesh is absent")
    assert _import(bpy_scene, path, find_anims="NONE") == {"FINISHED"}
    assert "have weights that place them apart in the bind pose" in capfd.readouterr().out


def test_anims_chosen_with_the_mesh_and_their_list(bpy_scene):
    """Anims chosen in the file browser become actions (the same-stem rule finds none in Red Eclipse); several
    fill the animation list, and choosing one there makes it the armature's action."""
    path = next((p for p in corpus_files(MESHES) if p.parent.name == "door1"), None)
    if path is None:
        pytest.skip("the corpus's door1 is absent")
    bpy = bpy_scene
    folder = path.parent
    names = ["open.md5anim", "close.md5anim"]
    files = [{"name": path.name}] + [{"name": n} for n in names]
    assert bpy.ops.import_scene.md5(directory=str(folder), files=files, find_anims="NONE") == {"FINISHED"}
    root = _root(bpy)
    listed = [item.name for item in root.classic_model.animations]
    assert listed == ["open", "close"]
    assert root.classic_model.animation_mode == "ACTIONS"
    assert root.animation_data.action.name == "open"
    root.classic_model.active_animation = 1
    assert root.animation_data.action.name == "close"
    assert all(bpy.data.actions[n].use_fake_user for n in ("open", "close"))     # both kept in a saved file


def test_bad_file_is_refused_with_its_line_and_nothing_is_left(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    before = datablock_counts(bpy)
    path = tmp_path / "broken.md5mesh"
    path.write_bytes(b'MD5Version 10\ncommandline ""\nnumJoints 1\nnumMeshes 1\njoints {\n'
                     b'\t"root" -1 ( 0 0 0 ) ( 0 0 oops )\n}\n')
    with pytest.raises(RuntimeError) as refused:     # an operator's error report, in background mode
        _import(bpy, path)
    out = str(refused.value) + capfd.readouterr().out
    assert "broken.md5mesh" in out and "line 6" in out
    assert "Traceback" not in out and "internal error" not in out
    assert datablock_counts(bpy) == before
    assert len(bpy.data.armatures) == 0


def test_bad_anim_beside_a_good_mesh_is_refused_and_nothing_is_left(bpy_scene, tmp_path, capfd):
    """An anim that cannot be read stops the whole import (all or nothing), naming the anim."""
    source = next((p for p in corpus_files(MESHES) if p.parent.name == "door1"), None)
    if source is None:
        pytest.skip("the corpus's door1 is absent")
    bpy = bpy_scene
    before = datablock_counts(bpy)
    (tmp_path / "door.md5mesh").write_bytes(source.read_bytes())
    (tmp_path / "door.md5anim").write_bytes(b"MD5Version 10\nnumFrames x\n")
    with pytest.raises(RuntimeError) as refused:
        _import(bpy, tmp_path / "door.md5mesh")
    out = str(refused.value) + capfd.readouterr().out
    assert "door.md5anim" in out and "Traceback" not in out
    assert datablock_counts(bpy) == before and len(bpy.data.armatures) == 0


def test_an_anim_alone_imports_the_mesh_of_its_name(bpy_scene, tmp_path):
    """Dropping or choosing ``door.md5anim`` imports ``door.md5mesh`` beside it with that anim; ticking both in
    the Game Archive dialog imports the model once; an anim of another name goes onto the folder's mesh of
    its joints (test_md5_anim_alone_blender.py: onto its own skeleton without one)."""
    source = next((p for p in corpus_files(MESHES) if p.parent.name == "door1"), None)
    if source is None:
        pytest.skip("the corpus's door1 is absent")
    bpy = bpy_scene
    (tmp_path / "door.md5mesh").write_bytes(source.read_bytes())
    (tmp_path / "door.md5anim").write_bytes((source.parent / "open.md5anim").read_bytes())
    assert _import(bpy, tmp_path / "door.md5anim") == {"FINISHED"}
    root = _root(bpy)
    assert root.name == "door" and root.animation_data.action["md5_anim_file"] == "door.md5anim"
    bpy.ops.wm.read_homefile(use_empty=True)
    from support.archive_builders import pack_bytes
    archive = tmp_path / "pak0.pak"
    archive.write_bytes(pack_bytes([("progs/door.md5mesh", source.read_bytes()),
                                    ("progs/door.md5anim", (source.parent / "open.md5anim").read_bytes())]))
    ticked = [{"name": n, "format": "", "size": 0, "problem": "", "ticked": True}
              for n in ("progs/door.md5mesh", "progs/door.md5anim")]
    assert bpy.ops.import_scene.game_archive(filepath=str(archive), models=ticked) == {"FINISHED"}
    assert len(bpy.data.armatures) == 1 and len(bpy.data.actions) == 1
    bpy.ops.wm.read_homefile(use_empty=True)
    (tmp_path / "lone.md5anim").write_bytes((source.parent / "open.md5anim").read_bytes())
    assert _import(bpy, tmp_path / "lone.md5anim") == {"FINISHED"}
    root = _root(bpy)
    assert root.name == "door" and root.animation_data.action["md5_anim_file"] == "lone.md5anim"


def _damaged(text: bytes, rng) -> bytes:
    """``text`` cut short, with a token replaced by a strange one, or with random bytes put in."""
    kind = rng.integers(3)
    at = int(rng.integers(1, len(text)))
    if kind == 0:
        return text[:at]
    if kind == 1:
        tokens = text.split(b" ")
        pick = int(rng.integers(len(tokens)))
        tokens[pick] = [b"nan", b"1e39", b"-1", b"99999", b"inf", b"\"", b"}", b"0.5", b"-1e30"][int(rng.integers(9))]
        return b" ".join(tokens)
    return text[:at] + rng.integers(0, 256, int(rng.integers(1, 8)), dtype=np.uint8).tobytes() + text[at:]


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_damaged_meshes_and_anims_import_or_are_refused_cleanly(bpy_scene, tmp_path, capfd):
    """Damaged copies of a corpus mesh and anim (cut, a token replaced by nan, inf, huge or negative numbers,
    stray bytes): each imports or gives our error naming the file, never an internal error, and a refusal
    leaves nothing behind."""
    source = next((p for p in corpus_files(MESHES) if p.parent.name == "door1"), None)
    if source is None:
        pytest.skip("the corpus's door1 is absent")
    bpy = bpy_scene
    rng = np.random.default_rng(5)
    mesh_text, anim_text = source.read_bytes(), (source.parent / "open.md5anim").read_bytes()
    refused = {"mesh": 0, "anim": 0}
    for trial in range(120):
        folder = tmp_path / f"t{trial}"
        folder.mkdir()
        damaged = "mesh" if trial % 2 == 0 else "anim"
        (folder / "m.md5mesh").write_bytes(_damaged(mesh_text, rng) if damaged == "mesh" else mesh_text)
        (folder / "m.md5anim").write_bytes(_damaged(anim_text, rng) if damaged == "anim" else anim_text)
        bpy.ops.wm.read_homefile(use_empty=True)
        before = datablock_counts(bpy)
        try:
            status = _import(bpy, folder / "m.md5mesh")
        except RuntimeError as exc:
            message = str(exc)
            assert "internal error" not in message and "Traceback" not in message, message
            assert f"m.md5{damaged}" in message, message
            assert datablock_counts(bpy) == before and len(bpy.data.armatures) == 0
            refused[damaged] += 1
        else:
            assert status == {"FINISHED"}
        assert "internal error" not in capfd.readouterr().out
    assert refused["mesh"] > 10 and refused["anim"] > 10, refused


def test_an_anim_whose_joints_are_not_the_meshs_is_left_out_with_a_warning(bpy_scene, tmp_path, capfd):
    """Folder: the drone's anim beside the door's mesh (other joints: ironwail, Q2PRO and FTE refuse the pair)
    is left out and said so; the door's own anim imports."""
    door = next((p for p in corpus_files(MESHES) if p.parent.name == "door1"), None)
    drone = next((p for p in corpus_files(MESHES) if p.parent.name == "drone"), None)
    if door is None or drone is None:
        pytest.skip("the corpus's door1 or drone is absent")
    (tmp_path / "door.md5mesh").write_bytes(door.read_bytes())
    (tmp_path / "open.md5anim").write_bytes((door.parent / "open.md5anim").read_bytes())
    (tmp_path / "idle.md5anim").write_bytes((drone.parent / "idle.md5anim").read_bytes())
    assert _import(bpy_scene, tmp_path / "door.md5mesh", find_anims="FOLDER") == {"FINISHED"}
    assert [a.name for a in bpy_scene.data.actions] == ["open"]
    out = capfd.readouterr().out
    assert "anim not imported: their joints are not the mesh's" in out
    assert "idle.md5anim: not imported with door.md5mesh: the anim has" in out and "internal error" not in out
