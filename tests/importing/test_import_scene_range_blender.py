"""Scene Timing: Automatic sets a fresh scene's rate and range on every import into a scene with nothing
else animated (issue 44): the import's own new objects (an MD5's armature) are not "another model in the
scene" that would keep the scene's longer range. The truth: the files' frame counts and rates, written here."""
from __future__ import annotations

import pytest
from support.md5_rates import write_folder


@pytest.mark.parametrize("startup", [False, True], ids=["empty scene", "default startup"])
@pytest.mark.parametrize("find_anims, frames, rate", [("STEM", 9, 15.0), ("FOLDER", 9, 15.0)])
def test_an_md5_import_sets_a_fresh_scenes_rate_and_range(extension, tmp_path, startup, find_anims, frames, rate):
    """The first anim's frames at its own rate: 1-9 at 15 fps (the scene was 1-250 at 24); with the folder's
    other anims (30 and 24 fps) too, the first one's."""
    import bpy
    bpy.ops.wm.read_homefile(use_empty=not startup)
    scene = bpy.context.scene
    assert (scene.frame_start, scene.frame_end, scene.render.fps) == (1, 250, 24)
    write_folder(tmp_path, {"thing": (frames, rate, 10.0), "wave": (5, 30.0, 12.0), "zoom": (40, 24.0, 3.0)})
    assert bpy.ops.import_scene.md5(filepath=str(tmp_path / "thing.md5mesh"), find_anims=find_anims) == {"FINISHED"}
    assert len(bpy.data.actions) == (1 if find_anims == "STEM" else 3)
    assert (scene.frame_start, scene.frame_end) == (1, frames)
    assert scene.render.fps / scene.render.fps_base == rate


def test_a_second_import_keeps_the_first_ones_range(extension, tmp_path):
    """What an import builds is not another model; a model imported before still is: its range is kept."""
    import bpy
    bpy.ops.wm.read_homefile(use_empty=True)
    write_folder(tmp_path / "a", {"thing": (30, 24.0, 2.0)})
    write_folder(tmp_path / "b", {"thing": (6, 24.0, 5.0)})
    bpy.ops.import_scene.md5(filepath=str(tmp_path / "a" / "thing.md5mesh"), scene_timing="SET")
    bpy.ops.import_scene.md5(filepath=str(tmp_path / "b" / "thing.md5mesh"), scene_timing="SET")
    scene = bpy.context.scene
    assert (scene.frame_start, scene.frame_end) == (1, 30)
