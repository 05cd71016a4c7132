"""Quake III player export: a body rigged as one in Blender comes out as lower.md3, upper.md3 and head.md3
that the game's tag rules (cg_players.c: the torso on the legs' tag_torso, the head on the torso's
tag_head) put back together where Blender shows the body, frame for frame of each animation; animation.cfg
numbers the frames as CG_ParseAnimationFile reads them; each part has its skin file."""
from __future__ import annotations

import numpy as np
import pytest
from support.md3_scenes import evaluated, play, player_model, world_matrix

from formats.md3.animation_cfg import parse_animation_cfg
from formats.md3.codec import read_md3
from formats.md3.player import player_problems
from formats.md3.skin_file import parse_skin
from formats.md3.tags import find_tag, tag_matrices
from formats.md3.vertices import decode_xyz

TOLERANCE = 1.0 / 64 + 1e-4       # two half steps: the part's own and its tag's placement


def export_player(bpy, objects, folder, **options):
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj.name in objects)
    bpy.context.view_layer.objects.active = next(iter(objects.values()))
    options.setdefault("frame_rate", "SCENE")
    assert bpy.ops.export_scene.md3(filepath=str(folder / "anything.md3"), player=True, **options) == {"FINISHED"}
    return {part: read_md3((folder / f"{part}.md3").read_bytes()) for part in ("lower", "upper", "head")}


def _placed(model, frame: int, parent: np.ndarray) -> np.ndarray:
    """The model's vertices at ``frame`` placed by ``parent`` (4 x 4), as the game draws them."""
    every = np.concatenate([decode_xyz(s.xyz[frame]) for s in model.surfaces]).astype(np.float64)
    return every @ parent[:3, :3].T + parent[:3, 3]


def _tag(model, name: str, frame: int) -> np.ndarray:
    index = find_tag(model, name, frame)
    assert index is not None, f"{name} missing"
    return tag_matrices(model.tag_origin[frame, index], model.tag_axis[frame, index])


def _matches(points: np.ndarray, truth: np.ndarray) -> float:
    distance = np.abs(points[:, None, :] - truth[None, :, :]).max(axis=2)
    return max(distance.min(axis=1).max(), distance.min(axis=0).max())


def test_player_parts_assemble_as_blender_shows_the_body(bpy_scene, tmp_path):
    bpy = bpy_scene
    objects, rig, actions = player_model(bpy)
    parts = export_player(bpy, objects, tmp_path)
    cfg = parse_animation_cfg((tmp_path / "animation.cfg").read_bytes())
    named = {a.name: a for a in cfg.animations}
    assert (named["BOTH_DEATH1"].first, named["BOTH_DEATH1"].num) == (0, 6)
    assert (named["TORSO_STAND"].first, named["TORSO_STAND"].num, named["TORSO_STAND"].looping) == (6, 3, 3)
    assert (named["LEGS_IDLE"].first, named["LEGS_IDLE"].num) == (9 + 5, 4)     # after LEGS_RUN, game order
    assert (named["LEGS_RUN"].first, named["LEGS_RUN"].num) == (9, 5)
    assert parts["upper"].num_frames == 9 and parts["lower"].num_frames == 6 + 5 + 4 and parts["head"].num_frames == 1
    assert parts["lower"].tag_names == ["tag_torso"]
    assert sorted(parts["upper"].tag_names) == ["tag_head", "tag_weapon"]
    skins = {p.name: parse_skin(p.read_bytes()) for p in tmp_path.glob("*.skin")}
    assert player_problems(parts, cfg, skins, [p.name for p in tmp_path.iterdir()]) == [], "what the game needs"
    for part in ("lower", "upper", "head"):
        skin = parse_skin((tmp_path / f"{part}_default.skin").read_bytes())
        assert [(e.surface, e.shader) for e in skin.entries] == [
            (s.name.lower(), s.shaders[0].name) for s in parts[part].surfaces]
    checked = 0
    for name, lower_frames, upper_frames in (("BOTH_DEATH1", range(0, 6), range(0, 6)),
                                             ("LEGS_RUN", [cfg.model_first_frame(15) + j for j in range(5)], None),
                                             ("TORSO_STAND", None, range(6, 9))):
        play(bpy, rig, actions[name])
        for j in range(len(lower_frames or upper_frames)):
            bpy.context.scene.frame_set(1 + j)
            truth = {n: evaluated(bpy, objects[n])["positions"] for n in ("l_legs", "u_torso", "h_head")}
            lf = lower_frames[j] if lower_frames is not None else None
            if lf is not None:
                assert _matches(_placed(parts["lower"], lf, np.eye(4)), truth["l_legs"]) <= TOLERANCE
            if upper_frames is not None:
                # the legs' tag_torso: the file's at this legs frame, or (the torso playing alone, legs at rest)
                # where Blender shows the tag
                torso = _tag(parts["lower"], "tag_torso", lf) if lf is not None else \
                    world_matrix(bpy, objects["tag_torso"])
                assert _matches(_placed(parts["upper"], upper_frames[j], torso), truth["u_torso"]) <= TOLERANCE
                head = torso @ _tag(parts["upper"], "tag_head", upper_frames[j])
                assert _matches(_placed(parts["head"], 0, head), truth["h_head"]) <= TOLERANCE
            checked += 1
    assert checked == 6 + 5 + 3


def test_a_player_without_tag_torso_is_refused_and_writes_nothing(bpy_scene, tmp_path):
    bpy = bpy_scene
    objects, rig, actions = player_model(bpy)
    del objects["tag_torso"]
    with pytest.raises(RuntimeError, match="tag_torso"):
        export_player(bpy, objects, tmp_path)
    assert not list(tmp_path.iterdir())
