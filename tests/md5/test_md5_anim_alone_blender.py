"""An ``.md5anim`` chosen alone (issue 44): onto its own skeleton (the armature's poses are the anim's frames as
this test decodes them, md5_rig.frame_skeleton), onto the folder's mesh whose joints are its own, onto the mesh
a Sauerbraten ``md5.cfg`` / ``anims.cfg`` loads it with; exported alone it comes back byte for byte; a mesh
imported without an anim exports without one; images beside a standalone mesh under its shader names.
Small files written here (md5_scale_model: two joints, three frames)."""
from __future__ import annotations

import numpy as np
import pytest
from support.image_files import write_png
from support.md5_rig import frame_skeleton
from support.md5_scale_model import MESH, anim_text

from formats.md5.anim import read_md5anim

OTHER_MESH = MESH.replace(b"numJoints 2", b"numJoints 3").replace(
    b'\t"arm" 0 ( 0 0 2 ) ( 0 0 0 )\n', b'\t"arm" 0 ( 0 0 2 ) ( 0 0 0 )\n\t"hand" 1 ( 0 0 3 ) ( 0 0 0 )\n')


def _import(bpy, path, **options):
    return bpy.ops.import_scene.md5(filepath=str(path), **options)


def _armature(bpy):
    (root,) = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
    return root


def _meshes(bpy) -> list:
    return [o for o in bpy.context.scene.objects if o.type == "MESH"]


def _key_times(root) -> list[float]:
    """The scene frames the import keyed (every bone is keyed at every anim frame)."""
    action = root.animation_data.action
    curves = [c for layer in getattr(action, "layers", ()) for strip in layer.strips
              for bag in getattr(strip, "channelbags", ()) for c in bag.fcurves] or list(action.fcurves)
    return sorted({point.co.x for point in curves[0].keyframe_points})


def _joint_matrix(pos, wxyz) -> np.ndarray:
    from mathutils import Quaternion
    out = np.eye(4)
    out[:3, :3] = np.array(Quaternion(wxyz).to_matrix())
    out[:3, 3] = pos
    return out


def test_an_anim_alone_imports_on_its_own_skeleton_with_its_frames(bpy_scene, tmp_path):
    """No mesh beside it: an armature of the anim's hierarchy, rest pose its base frame, posed at each keyed
    frame as the anim's frame k (the test's own decoding), and no mesh object."""
    bpy = bpy_scene
    path = tmp_path / "walk.md5anim"
    path.write_bytes(anim_text())
    anim = read_md5anim(path.read_bytes())
    assert _import(bpy, path) == {"FINISHED"}
    root = _armature(bpy)
    assert _meshes(bpy) == [] and root.name == "walk"
    assert [b.name for b in root.data.bones] == ["root", "arm"]
    assert root.data.bones["arm"].parent.name == "root"
    rest = np.array([np.array(root.data.bones[n].matrix_local) for n in ("root", "arm")])
    base = [_joint_matrix(p, (1, 0, 0, 0)) for p in ((0, 0, 0), (0, 0, 2))]   # the base frame: identity turns
    assert np.allclose(rest, base, atol=1e-5)
    times = _key_times(root)
    assert len(times) == anim.num_frames
    for k, time in enumerate(times):
        bpy.context.scene.frame_set(int(time), subframe=time - int(time))
        positions, quats = frame_skeleton(anim, k)
        posed = [np.array(root.pose.bones[n].matrix) for n in ("root", "arm")]
        assert np.allclose(posed, [_joint_matrix(p, q) for p, q in zip(positions, quats)], atol=1e-5), k


def test_an_anim_alone_goes_onto_the_folder_mesh_whose_joints_are_its_own(bpy_scene, tmp_path):
    """``walk.md5anim`` beside ``a.md5mesh`` (other joints: passed over) and ``body.md5mesh`` (its joints)."""
    bpy = bpy_scene
    (tmp_path / "a.md5mesh").write_bytes(OTHER_MESH)
    (tmp_path / "body.md5mesh").write_bytes(MESH)
    (tmp_path / "walk.md5anim").write_bytes(anim_text())
    assert _import(bpy, tmp_path / "walk.md5anim") == {"FINISHED"}
    root = _armature(bpy)
    assert root.name == "body" and root["md5_mesh_file"] == "body.md5mesh"
    assert root.animation_data.action["md5_anim_file"] == "walk.md5anim"
    assert len(_meshes(bpy)) == 1
    bpy.ops.wm.read_homefile(use_empty=True)
    assert _import(bpy, tmp_path / "walk.md5anim", anim_mesh="SKELETON") == {"FINISHED"}
    assert _meshes(bpy) == [] and _armature(bpy).name == "walk"


def test_a_sauerbraten_cfg_names_the_mesh_an_anim_goes_onto(bpy_scene, tmp_path):
    """Sauerbraten's md5.cfg loads ``body.md5mesh`` and runs ``anims.cfg``, whose ``md5anim`` lines load the
    anims onto it (md5.h ``md5load``, ``md5anim``, ``exec``): ``idle.md5anim`` goes onto body, not onto
    ``alpha.md5mesh`` (the same joints, first by name)."""
    bpy = bpy_scene
    folder = tmp_path / "packages" / "models" / "snout"
    folder.mkdir(parents=True)
    (folder / "alpha.md5mesh").write_bytes(MESH)
    (folder / "body.md5mesh").write_bytes(MESH)
    (folder / "idle.md5anim").write_bytes(anim_text())
    (folder / "md5.cfg").write_text('md5load "alpha.md5mesh"\nmd5load body.md5mesh   // the body\n'
                                    'md5skin * "skin.png"\nexec "packages/models/snout/anims.cfg"\n')
    (folder / "anims.cfg").write_text('md5anim "idle" "idle.md5anim" 1 // stand\nmd5anim "walk" "walk.md5anim" 10\n')
    assert _import(bpy, folder / "idle.md5anim") == {"FINISHED"}
    assert _armature(bpy).name == "body"


def test_an_anim_alone_exports_alone_byte_for_byte(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    path = tmp_path / "walk.md5anim"
    path.write_bytes(anim_text())
    assert _import(bpy, path) == {"FINISHED"}
    out = tmp_path / "out"
    assert bpy.ops.export_scene.md5(filepath=str(out / "walk.md5mesh")) == {"FINISHED"}     # the defaults
    assert sorted(p.name for p in out.iterdir()) == ["walk.md5anim"]
    assert (out / "walk.md5anim").read_bytes() == anim_text()
    printed = capfd.readouterr().out
    assert f"Exported {out / 'walk.md5anim'}" in printed and "walk.md5mesh" not in printed     # what was written


def test_a_mesh_imported_without_an_anim_exports_without_one(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "body.md5mesh").write_bytes(MESH)
    assert _import(bpy, tmp_path / "body.md5mesh") == {"FINISHED"}
    out = tmp_path / "out"
    assert bpy.ops.export_scene.md5(filepath=str(out / "body.md5mesh")) == {"FINISHED"}
    assert sorted(p.name for p in out.iterdir()) == ["body.md5mesh"]
    assert (out / "body.md5mesh").read_bytes() == MESH


@pytest.mark.parametrize("shader, image", [("guard1_body", "guard1_body.png"),
                                           ("models/guard/Guard1_Body", "guard1_body.png"),
                                           ("C:\\art\\guard1_body.tga", "guard1_body.png"),
                                           ("guard1_body.tga", "GUARD1_BODY.PNG")])
def test_an_image_beside_a_standalone_mesh_under_its_shader_name_is_shown(bpy_scene, tmp_path, shader, image):
    bpy = bpy_scene
    text = MESH.replace(b'shader "m"', b'shader "' + shader.encode() + b'"')
    (tmp_path / "guard.md5mesh").write_bytes(text)
    pixels = np.zeros((2, 2, 4), np.uint8)
    pixels[..., 0], pixels[..., 3] = 200, 255
    write_png(tmp_path / image, pixels)
    assert _import(bpy, tmp_path / "guard.md5mesh") == {"FINISHED"}
    (block,) = _meshes(bpy)
    images = [n.image for n in block.active_material.node_tree.nodes if n.type == "TEX_IMAGE"]
    assert [i.size[:] for i in images if i is not None] == [(2, 2)]
    shown = np.empty(16, np.float32)
    images[0].pixels.foreach_get(shown)
    assert np.allclose(shown.reshape(4, 4)[:, 0], 200 / 255, atol=1e-3)


def test_an_edited_anim_alone_exports_its_poses_with_the_joints_box_as_bounds(bpy_scene, tmp_path):
    """A key moved on the anim's own skeleton: the anim is written as Blender poses it (the root 3 units along
    its X in frame 1), each frame's bounds the box of its joints (there is no mesh to skin)."""
    from formats.md5.skinning import frame_joints
    bpy = bpy_scene
    path = tmp_path / "walk.md5anim"
    path.write_bytes(anim_text())
    assert _import(bpy, path) == {"FINISHED"}
    action = _armature(bpy).animation_data.action
    curves = [c for layer in getattr(action, "layers", ()) for strip in layer.strips
              for bag in getattr(strip, "channelbags", ()) for c in bag.fcurves] or list(action.fcurves)
    (moved,) = [c for c in curves if c.data_path.endswith('["root"].location') and c.array_index == 0]
    moved.keyframe_points[1].co.y += 3.0
    moved.update()
    out = tmp_path / "out"
    assert bpy.ops.export_scene.md5(filepath=str(out / "walk.md5mesh")) == {"FINISHED"}
    assert sorted(p.name for p in out.iterdir()) == ["walk.md5anim"]
    written = read_md5anim((out / "walk.md5anim").read_bytes())
    expected = read_md5anim(anim_text())
    pos, _ = frame_joints(written)
    want = np.array([frame_skeleton(expected, k)[0] for k in range(3)])
    want[1] += (3.0, 0.0, 0.0)                      # the root and the arm it carries
    assert np.allclose(pos, want, atol=1e-5)
    assert np.allclose(written.bounds[:, 0], pos.min(axis=1), atol=1e-5)
    assert np.allclose(written.bounds[:, 1], pos.max(axis=1), atol=1e-5)
