"""A Quake monster made in Blender (issue 26): a rigged mesh with the armature actions ``stand`` and
``walk``, exported with the product's options. What is written is decoded and compared with what is
computed here from the decoded file: the ``.qc`` ``$frame`` lines and the DarkPlaces ``.framegroups``
against the frame table, the MDL header flags, sync type and eye position of a NEW object, and
``info --qc`` / ``--frames`` / the flag names of ``info``."""
from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest
from support.actions import export, rigged_model

from formats.frame_scripts import framegroups_text, mdl_animations
from formats.md2.codec import parse_md2
from formats.md3.codec import read_md3
from formats.mdl.codec import MdlFrameSlot, parse_mdl, serialize_mdl

TRAILING_DIGITS = re.compile(r"\d+$")


def monster(bpy):
    """The rigged column of quads with its actions renamed ``stand`` and ``walk``."""
    obj, rig, actions = rigged_model(bpy, name="monster")
    actions["attack"].name = "stand"
    return obj, rig


def runs_by_name(names: list[str]) -> list[tuple[str, int, int]]:
    """(animation, first, count) of consecutive names equal without their trailing digits."""
    out: list[list] = []
    for i, name in enumerate(names):
        base = TRAILING_DIGITS.sub("", name) or name
        if out and out[-1][0] == base:
            out[-1][2] += 1
        else:
            out.append([base, i, 1])
    return [tuple(r) for r in out]


def frame_lines(text: str) -> list[list[str]]:
    return [line.split()[1:] for line in text.splitlines() if line.startswith("$frame")]


def framegroup_rows(text: str) -> list[tuple[int, int, float, int, str]]:
    """``first count fps loop name`` per line, read as DarkPlaces' Mod_FrameGroupify_ParseGroups does."""
    rows = []
    for line in text.splitlines():
        first, count, fps, loop, name = line.split(maxsplit=4)
        rows.append((int(first), int(count), float(fps), int(loop), name.strip('"')))
    return rows


def test_a_new_monster_exports_qc_framegroups_and_its_header(bpy_scene, tmp_path, run):
    bpy = bpy_scene
    obj, _rig = monster(bpy)
    assert obj.classic_model.source_format == ""          # a new object, never imported
    settings = obj.classic_model
    settings.mdl_flag_rotate = True
    settings.mdl_flag_rocket = True
    settings.mdl_synctype = "RAND"
    settings.mdl_eye_position = (1.5, -2.0, 24.0)
    path = tmp_path / "monster.mdl"
    model = parse_mdl(export(bpy, "mdl", [obj], path, frame_source="ACTIONS", frame_rate="GAME",
                             write_qc=True, write_framegroups=True))
    assert (model.flags, model.synctype) == (1 | 8, 1)
    assert np.allclose(model.eye_position, (1.5, -2.0, 24.0))

    names = model.pose_names
    expected_runs = runs_by_name(names)
    assert [r[0] for r in expected_runs] == ["stand", "walk"]       # both actions, each its own animation
    qc = (tmp_path / "monster.qc").read_text()
    assert frame_lines(qc) == [names[first:first + count] for _, first, count in expected_runs]
    groups = (tmp_path / "monster.mdl.framegroups").read_text()
    assert framegroup_rows(groups) == [(first, count, 10.0, 1, name) for name, first, count in expected_runs]

    info = run("info", path, "--frames")
    assert info.returncode == 0, info.stderr
    assert "flags 9 (rocket trail, rotate), synctype 1" in info.stdout
    rows = [line.split() for line in info.stdout.splitlines() if re.match(r"\s+\d+\s+\d+\s+\S+\s+\S+\s+-$", line)]
    assert rows == [[str(i), str(i), name, TRAILING_DIGITS.sub("", name), "-"] for i, name in enumerate(names)]
    printed = run("info", "--qc", path)
    assert printed.returncode == 0 and printed.stdout.strip() == qc.strip()


def test_md2_export_writes_qc_and_framegroups_at_the_scene_rate(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, _rig = monster(bpy)
    bpy.context.scene.render.fps = 24
    path = tmp_path / "monster.md2"
    model = parse_md2(export(bpy, "md2", [obj], path, frame_source="ACTIONS", frame_rate="SCENE",
                             write_qc=True, write_framegroups=True))
    expected_runs = runs_by_name(model.frame_names)
    assert len(expected_runs) == 2
    assert frame_lines((tmp_path / "monster.qc").read_text()) == [
        model.frame_names[first:first + count] for _, first, count in expected_runs]
    assert framegroup_rows((tmp_path / "monster.md2.framegroups").read_text()) == [
        (first, count, 24.0, 1, name) for name, first, count in expected_runs]


def test_md3_export_writes_qc_and_framegroups_from_its_frame_names(bpy_scene, tmp_path):
    """MD3 offers the same two files (its dialog's Frames group): read back from the MD3 written (the
    scripts of an MD3 were read as an MD2 and the export failed on the MD3's magic)."""
    bpy = bpy_scene
    obj, _rig = monster(bpy)
    path = tmp_path / "monster.md3"
    model = read_md3(export(bpy, "md3", [obj], path, frame_source="ACTIONS", frame_rate="GAME", write_qc=True,
                            write_framegroups=True))
    expected_runs = runs_by_name(model.frame_names)
    assert [r[0] for r in expected_runs] == ["stand", "walk"]
    assert frame_lines((tmp_path / "monster.qc").read_text()) == [
        model.frame_names[first:first + count] for _, first, count in expected_runs]
    assert framegroup_rows((tmp_path / "monster.md3.framegroups").read_text()) == [
        (first, count, 10.0, 1, name) for name, first, count in expected_runs]


def test_without_the_options_no_script_is_written(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, _rig = monster(bpy)
    export(bpy, "mdl", [obj], tmp_path / "monster.mdl", frame_source="ACTIONS")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["monster.mdl"]


def test_an_mdl_frame_group_is_one_quakec_frame_and_one_framegroups_line(bpy_scene, tmp_path, run):
    """The walk poses made into one frame group: QuakeC numbers it as one frame (its first pose's
    name); DarkPlaces plays its poses at the rate the intervals give."""
    bpy = bpy_scene
    obj, _rig = monster(bpy)
    path = tmp_path / "monster.mdl"
    model = parse_mdl(export(bpy, "mdl", [obj], path, frame_source="ACTIONS"))
    runs = runs_by_name(model.pose_names)
    (_, stand_first, stand_count), (_, walk_first, walk_count) = runs
    intervals = np.arange(1, walk_count + 1, dtype=np.float32) * 0.25         # 4 poses a second
    group = MdlFrameSlot(walk_first, walk_count, intervals, model.pose_bbox_min[walk_first],
                         model.pose_bbox_max[walk_first])
    grouped = replace(model, frames=model.frames[:stand_count] + [group])
    (tmp_path / "grouped.mdl").write_bytes(serialize_mdl(grouped))
    printed = run("info", "--qc", tmp_path / "grouped.mdl")
    assert printed.returncode == 0, printed.stderr
    assert frame_lines(printed.stdout) == [model.pose_names[stand_first:stand_first + stand_count],
                                           [model.pose_names[walk_first]]]
    frames = run("info", "--frames", tmp_path / "grouped.mdl")
    grouped_rows = [line.split() for line in frames.stdout.splitlines() if line.endswith(f"group of {walk_count}")]
    assert [(r[0], r[1], r[2]) for r in grouped_rows] == [
        (str(stand_count), str(walk_first + k), model.pose_names[walk_first + k]) for k in range(walk_count)]

    text = framegroups_text(mdl_animations(parse_mdl((tmp_path / "grouped.mdl").read_bytes()), 10.0))
    assert framegroup_rows(text) == [
        (stand_first, stand_count, 10.0, 1, "stand"), (walk_first, walk_count, 4.0, 1, "walk")]


class _Layout:
    """Records what a panel draws; ``prop`` resolves its path like Blender would."""

    def __init__(self, lines):
        self.lines = lines

    def box(self):
        return self

    def grid_flow(self, columns=0, align=False):
        return self

    def panel(self, idname, default_closed=False):
        return self, self            # a folded group, opened (its header and body)

    def label(self, text=""):
        self.lines.append(text)

    def prop(self, data, path, text=None):
        data.path_resolve(path)
        self.lines.append(f"prop {path}")


def test_a_new_mesh_shows_the_quake_model_fields(bpy_scene):
    bpy = bpy_scene
    obj, _rig = monster(bpy)
    bpy.context.view_layer.objects.active = obj
    sidebar, properties = bpy.types.VIEW3D_PT_quake_model, bpy.types.OBJECT_PT_quake_model
    assert sidebar.poll(bpy.context) and properties.poll(bpy.context)
    assert not bpy.types.VIEW3D_PT_classic_model.poll(bpy.context)      # the import panel stays hidden
    lines: list[str] = []
    sidebar.draw(type("Panel", (), {"layout": _Layout(lines)})(), bpy.context)
    for path in ("mdl_flag_rotate", "mdl_flag_rocket", "mdl_flag_grenade", "mdl_flag_gib", "mdl_flag_holey",
                 "mdl_synctype", "mdl_eye_position", "mdl_flags"):
        assert f"prop {path}" in lines


def test_the_monster_converts_to_glb_with_one_animation_per_action(bpy_scene, tmp_path, run):
    from support.glb import accessor_floats, glb_chunks

    from tools import validate_glb
    bpy = bpy_scene
    obj, _rig = monster(bpy)
    path = tmp_path / "monster.mdl"
    model = parse_mdl(export(bpy, "mdl", [obj], path, frame_source="ACTIONS"))
    result = run("convert", path, "--to", "glb", "-o", tmp_path / "out", "-j", "1")
    assert result.returncode == 0, result.stderr
    gltf, blob = glb_chunks(tmp_path / "out" / "monster.glb")
    expected = runs_by_name(model.pose_names)
    assert [a["name"] for a in gltf["animations"]] == [name for name, _, _ in expected]
    for animation, (_, _, count) in zip(gltf["animations"], expected):
        sampler = animation["samplers"][animation["channels"][0]["sampler"]]
        assert len(accessor_floats(gltf, blob, sampler["input"])) == count
    module = validate_glb.validator_module()
    if module is None:
        pytest.skip(f"Khronos glTF validator not installed in {validate_glb.default_dir()}; the animations matched")
    (report,) = validate_glb.validate([tmp_path / "out" / "monster.glb"], module)
    assert validate_glb.errors(report) == [], report


def test_death_animations_do_not_loop_and_bad_names_are_reported():
    from formats.frame_scripts import md2_animations, qc_name_problems, qc_text
    names = ["stand1", "stand2", "death1", "death2", "death3", "dieb1", "2fast", "stand1"]
    animations = md2_animations(names)
    rows = framegroup_rows(framegroups_text(animations))
    assert [(r[0], r[1], r[3], r[4]) for r in rows] == [
        (0, 2, 1, "stand"), (2, 3, 0, "death"), (5, 1, 0, "dieb"), (6, 1, 1, "2fast"), (7, 1, 1, "stand")]
    assert frame_lines(qc_text(animations, "x.md2")) == [["stand1", "stand2"], ["death1", "death2", "death3"],
                                                         ["dieb1"], ["2fast"], ["stand1"]]
    assert framegroups_text(md2_animations(["big guy1", "big guy2"])) == '0 2 10 1 "big guy"\n'
    problems = qc_name_problems(animations)
    assert any("not QuakeC identifiers: '2fast'" in p for p in problems)
    assert any("used more than once: stand1" in p for p in problems)


def test_convert_writes_the_scripts_through_export_options(tmp_path, run):
    pytest.importorskip("bpy", reason="convert runs the operators in the bpy wheel")
    from support.md2_synthetic import grid_model

    from formats.md2.codec import serialize_md2
    (tmp_path / "grid.md2").write_bytes(serialize_md2(grid_model(frames=6)))
    result = run("convert", tmp_path / "grid.md2", "--to", "mdl", "-o", tmp_path / "out", "-j", "1",
                 "--export-option", "write_qc=true", "--export-option", "write_framegroups=true")
    assert result.returncode == 0, result.stdout + result.stderr
    model = parse_mdl((tmp_path / "out" / "grid.mdl").read_bytes())
    expected = runs_by_name(model.pose_names)
    assert frame_lines((tmp_path / "out" / "grid.qc").read_text()) == [
        model.pose_names[first:first + count] for _, first, count in expected]
    assert framegroup_rows((tmp_path / "out" / "grid.mdl.framegroups").read_text()) == [
        (first, count, 10.0, 1, name) for name, first, count in expected]


def test_a_script_that_cannot_be_written_says_the_model_was(bpy_scene, tmp_path):
    """The .qc comes after the model: when it cannot be written the report says the model is on disk
    (not that the old file is untouched)."""
    bpy = bpy_scene
    obj, _rig = monster(bpy)
    (tmp_path / "monster.qc").mkdir()                   # a folder where the .qc would go
    with pytest.raises(RuntimeError, match=r"monster\.mdl was written, but .*monster\.qc.* could not be written"):
        export(bpy, "mdl", [obj], tmp_path / "monster.mdl", frame_source="ACTIONS", write_qc=True)
    assert parse_mdl((tmp_path / "monster.mdl").read_bytes()).num_poses > 0
