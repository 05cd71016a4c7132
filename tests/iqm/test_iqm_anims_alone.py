"""A file of anims alone that counts vertices no array holds: Red Eclipse's ``reload_pistol.iqm`` (no mesh,
no joint, 78 poses, one anim of 22 frames, and 3,110 vertices in its header from the player's mesh). The
codec reads it (compared with the struct reading of tests/support/iqm_files.py) and writes it back byte for
byte, lists DarkPlaces' refusal as a warning; the import makes one bone per pose and one action; the
untouched export writes the file back (formats/iqm/codec.py says why such a file is accepted)."""
from __future__ import annotations

import numpy as np
from support.actions import select_only
from support.environment import corpus
from support.iqm_files import reference_read

from formats.iqm.codec import read_iqm
from formats.iqm.write import write_iqm

PATH = "md5/redeclipse/data/actors/player/reload_pistol.iqm"


def test_the_codec_reads_a_file_of_anims_alone_and_writes_it_back():
    data = corpus(PATH).read_bytes()
    model = read_iqm(data)
    ref = reference_read(data)
    h = ref["header"]
    assert (h["num_vertexes"], h["num_vertexarrays"], h["num_meshes"], h["num_joints"]) == (3110, 0, 0, 0)
    assert model.num_vertexes == 3110 and model.vertex_arrays == [] and len(model.meshes) == 0
    assert len(model.poses) == h["num_poses"] == 78 and model.num_frames == h["num_frames"] == 22
    assert [tuple(int(v) for v in row) for row in model.frames] == ref["frames"]
    assert [(int(a["first_frame"]), int(a["num_frames"])) for a in model.anims] == [(a[1], a[2]) for a in ref["anims"]]
    assert write_iqm(model) == data
    assert model.warnings == ["no usable position, texcoord, blend indexes, blend weights array: DarkPlaces refuses "
                              "the model (missing vertex array data)"]


def test_a_file_of_anims_alone_imports_and_exports_back(bpy_scene, tmp_path):
    bpy = bpy_scene
    path = corpus(PATH)
    data = path.read_bytes()
    assert bpy.ops.import_scene.iqm(filepath=str(path)) == {"FINISHED"}
    objects = list(bpy.context.scene.objects)
    assert [o.type for o in objects] == ["ARMATURE"] and len(objects[0].data.bones) == 78
    assert len(bpy.data.actions) == 1 and len(bpy.data.meshes) == 0
    action = bpy.data.actions[0]
    assert tuple(action["iqm_anim_frames"]) == (0, 22)
    select_only(bpy, objects)
    assert bpy.ops.export_scene.iqm(filepath=str(tmp_path / "out.iqm")) == {"FINISHED"}
    assert (tmp_path / "out.iqm").read_bytes() == data
    assert np.array_equal(read_iqm(data).frames, read_iqm((tmp_path / "out.iqm").read_bytes()).frames)


def test_an_edited_file_of_anims_alone_is_written_without_bounds(bpy_scene, tmp_path):
    """Scale 2 (an edit): the joints' translations doubled, and no bounds block, as the file had none (there
    is no vertex to bound; the author's exporter writes none either)."""
    bpy = bpy_scene
    file = read_iqm(corpus(PATH).read_bytes())
    assert file.bounds is None or len(file.bounds) == 0
    assert bpy.ops.import_scene.iqm(filepath=str(corpus(PATH))) == {"FINISHED"}
    select_only(bpy, list(bpy.context.scene.objects))
    assert bpy.ops.export_scene.iqm(filepath=str(tmp_path / "out.iqm"), scale=2.0) == {"FINISHED"}
    out = read_iqm((tmp_path / "out.iqm").read_bytes())
    assert out.num_frames == file.num_frames == 22 and len(out.poses) == 78
    assert out.bounds is None or len(out.bounds) == 0
