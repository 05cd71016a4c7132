"""The MD5 defaults give every anim back (issue 44): an untouched MD5 imported and exported with the
default options comes back as the files it came from, each anim with its own frame count and rate
(*Frame Rate: Automatic*: several anims each to its own file), while a model made in Blender still gets
the game's 10 per second. The truth: the files' own bytes, and counts worked out from the scene here."""
from __future__ import annotations

import pytest
from support.blender_helpers import reported
from support.environment import CORPUS, corpus_files
from support.md5_rates import ANIMS, write_folder
from support.md5_rig import rigged

from formats.md5.anim import read_md5anim

MESHES = corpus_files("md5/**/*.md5mesh")


def _export_all(bpy, path, **options) -> None:
    assert bpy.ops.export_scene.md5(filepath=str(path), use_selection=False, **options) == {"FINISHED"}


@pytest.mark.parametrize("find_anims, names", [("STEM", ["thing"]), ("FOLDER", sorted(ANIMS))])
def test_an_untouched_import_comes_back_with_the_defaults(bpy_scene, tmp_path, find_anims, names):
    bpy = bpy_scene
    files = write_folder(tmp_path / "in")
    assert bpy.ops.import_scene.md5(filepath=str(tmp_path / "in" / "thing.md5mesh"),
                                    find_anims=find_anims) == {"FINISHED"}
    _export_all(bpy, tmp_path / "out" / "thing.md5mesh")
    written = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    assert sorted(written) == sorted(["thing.md5mesh"] + [f"{n}.md5anim" for n in names])
    for name, data in written.items():
        assert data == files[name], name
    for name in names:                      # each its own count and rate, none the game's 10 per second
        anim = read_md5anim(written[f"{name}.md5anim"])
        assert (anim.num_frames, anim.frame_rate) == ANIMS[name][:2]


def test_an_untouched_import_exported_under_another_name(bpy_scene, tmp_path):
    """The anim of the mesh's own name takes the export's name (the Quake layouts'), the others keep theirs."""
    bpy = bpy_scene
    files = write_folder(tmp_path / "in")
    bpy.ops.import_scene.md5(filepath=str(tmp_path / "in" / "thing.md5mesh"), find_anims="FOLDER")
    _export_all(bpy, tmp_path / "out" / "other.md5mesh")
    written = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    assert written == {"other.md5mesh": files["thing.md5mesh"], "other.md5anim": files["thing.md5anim"],
                       "walk.md5anim": files["walk.md5anim"], "wave.md5anim": files["wave.md5anim"]}


def test_the_default_rate_follows_the_model(bpy_scene, tmp_path):
    """An imported anim: its own rate, however the scene's rate was set since; a model made in Blender: the
    game's 10 per second, the same file as Frame Rate: Game."""
    bpy = bpy_scene
    files = write_folder(tmp_path / "in", {"thing": (14, 24.0, 6.0)})
    bpy.ops.import_scene.md5(filepath=str(tmp_path / "in" / "thing.md5mesh"))
    scene = bpy.context.scene
    _export_all(bpy, tmp_path / "a" / "thing.md5mesh")
    assert (tmp_path / "a" / "thing.md5anim").read_bytes() == files["thing.md5anim"]
    bpy.ops.wm.read_homefile(use_empty=True)
    objects = rigged(bpy)
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 24, 1.0
    scene.frame_start, scene.frame_end = 1, 16
    for name, options in (("auto", {}), ("game", {"frame_rate": "GAME"})):
        for obj in bpy.context.view_layer.objects:
            obj.select_set(obj in objects)
        assert bpy.ops.export_scene.md5(filepath=str(tmp_path / name / "m.md5mesh"), **options) == {"FINISHED"}
    auto = (tmp_path / "auto" / "m.md5anim").read_bytes()
    assert auto == (tmp_path / "game" / "m.md5anim").read_bytes()
    assert read_md5anim(auto).frame_rate == 10
    assert sorted(p.name for p in (tmp_path / "auto").iterdir()) == ["m.md5anim", "m.md5mesh"]


CORPUS_MESHES = [pytest.param(p, id=str(p.relative_to(CORPUS / "md5"))) for p in MESHES
                 if any(p.parent.glob("*.md5anim"))] or \
    [pytest.param(None, marks=pytest.mark.skip(reason=f"no MD5 with anims in the corpus at {CORPUS}"))]


@pytest.mark.parametrize("path", CORPUS_MESHES)
def test_corpus_folders_come_back_with_the_defaults(bpy_scene, tmp_path, path):
    """Each corpus mesh with every anim of its folder (Anims: Folder), exported with every default: each
    anim that imported comes back byte for byte under its own name, and the mesh too."""
    bpy = bpy_scene
    assert bpy.ops.import_scene.md5(filepath=str(path), find_anims="FOLDER") == {"FINISHED"}
    imported = sorted(a["md5_anim_file"] for a in bpy.data.actions)
    assert imported
    _export_all(bpy, tmp_path / path.name)
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted([path.name] + imported)
    for name in written:
        assert (tmp_path / name).read_bytes() == (path.parent / name).read_bytes(), name


def test_actions_of_anims_of_one_rate_are_written_at_it(bpy_scene, tmp_path):
    """Frames: Actions puts the actions one after another in one anim: at their anims' rate where they share
    one (every key of each: 14 + 5 frames), else (24 and 30 fps) at the game's 10 per second."""
    bpy = bpy_scene
    for case, rates, written in (("one", (24.0, 24.0), 24.0), ("two", (24.0, 30.0), 10.0)):
        bpy.ops.wm.read_homefile(use_empty=True)
        write_folder(tmp_path / case, {"thing": (14, rates[0], 6.0), "wave": (5, rates[1], -12.0)})
        bpy.ops.import_scene.md5(filepath=str(tmp_path / case / "thing.md5mesh"), find_anims="FOLDER")
        out = tmp_path / f"{case}_out"
        _export_all(bpy, out / "x.md5mesh", frame_source="ACTIONS")
        assert sorted(p.name for p in out.iterdir()) == ["x.md5anim", "x.md5mesh"]
        anim = read_md5anim((out / "x.md5anim").read_bytes())
        assert anim.frame_rate == written, case
        if written != 10:
            assert anim.num_frames == 14 + 5



@pytest.mark.parametrize("frame_rate", ["GAME", "SCENE"])
def test_another_rate_names_the_imported_anims_the_timeline_leaves_out(bpy_scene, tmp_path, capfd, frame_rate):
    """Frame Rate: Game or Every Frame with Frames: Timeline on a model imported with several anims: one
    ``x.md5anim`` of the scene's range (the first anim plays there), and a warning naming the other two;
    Frames: Actions at that rate has them all, one after another, without the warning."""
    bpy = bpy_scene
    write_folder(tmp_path / "in")
    bpy.ops.import_scene.md5(filepath=str(tmp_path / "in" / "thing.md5mesh"), find_anims="FOLDER")
    capfd.readouterr()
    _export_all(bpy, tmp_path / "timeline" / "thing.md5mesh", frame_rate=frame_rate)
    timeline_warnings, _ = reported(capfd.readouterr().out)
    _export_all(bpy, tmp_path / "actions" / "thing.md5mesh", frame_rate=frame_rate, frame_source="ACTIONS")
    actions_warnings, _ = reported(capfd.readouterr().out)
    assert sorted(p.name for p in (tmp_path / "timeline").iterdir()) == ["thing.md5anim", "thing.md5mesh"]
    left = [w for w in timeline_warnings if "imported anims are not in the .md5anim" in w]
    assert len(left) == 1 and left[0].startswith("2 of the 3 imported anims") and "walk" in left[0] \
        and "wave" in left[0]
    assert not [w for w in actions_warnings if "imported anims are not in" in w]
    timeline = read_md5anim((tmp_path / "timeline" / "thing.md5anim").read_bytes())
    actions = read_md5anim((tmp_path / "actions" / "thing.md5anim").read_bytes())
    assert actions.num_frames > timeline.num_frames      # the three anims against the scene's range
