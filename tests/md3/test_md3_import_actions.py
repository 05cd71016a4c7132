"""MD3 import with *Animations: Actions*: each animation (a Quake III player's animation.cfg lines, else
each run of frame names, as MD2 and MDL) is its own action on every surface's shape keys and every tag
empty, each from the scene's first frame; picking it in the sidebar's list plays it. Every frame of
every action is compared with the file's frame as the codec decodes it (vertices, tags), on the mesh
and empties Blender evaluates."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from support.animation_reference import reference_animations
from support.blender_helpers import evaluated_positions
from support.environment import CORPUS, corpus_files

from formats.md3.codec import read_md3
from formats.md3.tags import tag_matrices
from formats.md3.vertices import decode_xyz

PLAYERS = CORPUS / "md3" / "openarena081" / "models" / "players"
ANIMATED = [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in corpus_files("md3/**/*.md3")
            if read_md3(p.read_bytes()).num_frames > 1] or \
    [pytest.param(None, marks=pytest.mark.skip(reason=f"no animated MD3 in the corpus at {CORPUS}"))]


def runs(names: list[str]) -> list[tuple[str, int, int]]:
    """(name, first, last) of each run of frames of one animation (the tests' own rule)."""
    out = []
    for i, name in enumerate(reference_animations(names)):
        if out and out[-1][0] == name:
            out[-1] = (name, out[-1][1], i)
        else:
            out.append((name, i, i))
    return [(n or "frames", a, b) for n, a, b in out]


def player_animations(folder: Path, part: str, num_frames: int) -> list[tuple[str, int, int]]:
    """(name, first, last) of the part's animations read from animation.cfg here, in the part's frames:
    LEGS_* less the torso frames lower.md3 lacks (cg_players.c CG_ParseAnimationFile ``skip``)."""
    lines = []
    for line in (folder / "animation.cfg").read_text("latin-1").splitlines():
        match = re.match(r"\s*(\d+)\s+(-?\d+)\s+\d+\s+[\d.]+\s*//\s*(\w+)", line)
        if match:
            lines.append((match.group(3), int(match.group(1)), int(match.group(2))))
    first = {name: f for name, f, _ in lines}
    skip = first["LEGS_WALKCR"] - first["TORSO_GESTURE"]
    kinds = {"lower": ("BOTH", "LEGS"), "upper": ("BOTH", "TORSO")}.get(part, ())
    out = []
    for name, f, count in lines:
        if name.split("_")[0] in kinds:
            f -= skip if name.startswith("LEGS") else 0
            if 0 <= f < num_frames:
                out.append((name, f, min(f + max(abs(count), 1) - 1, num_frames - 1)))
    return out


def check_actions(bpy, root, model, expected: list[tuple[str, int, int]]) -> int:
    """Play each listed animation as the sidebar does and compare each of its frames with the file's;
    returns the frames compared."""
    settings = root.classic_model
    assert settings.animation_mode == ("ACTIONS" if expected else "TIMELINE")   # nothing to act: the timeline
    assert [(a.name, a.frame_end - a.frame_start + 1) for a in settings.animations] == \
        [(n, last - first + 1) for n, first, last in expected]
    surfaces = sorted((c for c in root.children if c.type == "MESH"), key=lambda c: c["md3_surface_index"])
    tags = sorted((c for c in root.children if "md3_tag_index" in c), key=lambda c: c["md3_tag_index"])
    positions = [decode_xyz(s.xyz) for s in model.surfaces]
    if len(surfaces) == 1 and len(positions) > 1:                  # Merge Surfaces: one after the other
        positions = [np.concatenate(positions, axis=1)]
    truth_tags = tag_matrices(model.tag_origin, model.tag_axis) if model.num_tags else None
    scene = bpy.context.scene
    start = settings.animations[0].frame_start if len(settings.animations) else scene.frame_start
    compared = 0
    for index, (name, first, last) in enumerate(expected):
        settings.active_animation = index                    # what clicking in the sidebar list does
        assert (scene.frame_start, scene.frame_end) == (start, start + last - first)
        for obj in surfaces:
            action = obj.data.shape_keys.animation_data.action
            assert action is obj.classic_model.animations[index].action and action.use_fake_user
        for obj in tags:
            assert obj.animation_data.action is obj.classic_model.animations[index].action
        for j in range(last - first + 1):
            scene.frame_set(start + j)
            for obj, surface in zip(surfaces, positions):
                np.testing.assert_allclose(evaluated_positions(bpy, obj), surface[first + j], atol=2e-5)
            for t, obj in enumerate(tags):
                np.testing.assert_allclose(np.array(obj.matrix_local), truth_tags[first + j, t], atol=2e-5)
            compared += 1
    return compared


@pytest.mark.parametrize("path", ANIMATED)
def test_each_frame_name_run_is_an_action(bpy_scene, path):
    bpy = bpy_scene
    assert bpy.ops.import_scene.md3(filepath=str(path), animations="ACTIONS", assemble_player=False,
                                    scene_timing="SET") == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if o.get("md3_root") is not None and o.get("source_file") == str(path)]
    model = read_md3(path.read_bytes())
    expected = runs(model.frame_names)
    assert check_actions(bpy, root, model, expected) == model.num_frames     # runs cover every frame once
    assert not bpy.context.scene.timeline_markers


@pytest.mark.parametrize("merge", [False, True])
def test_player_animation_cfg_animations_are_actions(bpy_scene, merge):
    bpy = bpy_scene
    folder = PLAYERS / "major"
    if not (folder / "animation.cfg").is_file():
        pytest.skip(f"OpenArena's major player not in the corpus ({folder})")
    assert bpy.ops.import_scene.md3(filepath=str(folder / "lower.md3"), animations="ACTIONS",
                                    merge_surfaces=merge, scene_timing="SET") == {"FINISHED"}
    roots = {o["md3_root"]: o for o in bpy.data.objects if o.get("md3_root") is not None}
    for part in ("lower", "upper", "head"):
        model = read_md3((folder / f"{part}.md3").read_bytes())
        expected = player_animations(folder, part, model.num_frames)
        assert bool(expected) == (part != "head")
        check_actions(bpy, roots[part], model, expected)


FILLED_NAMES = "frame names are limited to 15 characters"


@pytest.mark.parametrize("path", ANIMATED)
def test_untouched_actions_import_exports_byte_for_byte(bpy_scene, tmp_path, path):
    """The export plays animation k on every surface and tag at once (the first surface's action stands
    for it): where the frame-name runs cover every frame once, in order, the file comes back byte for
    byte. A file whose frame names fill their 16-byte field (garbage bytes in two Nexuiz files) is
    refused with the 15-character limit and no file is written (Timeline mode writes it back)."""
    bpy = bpy_scene
    assert bpy.ops.import_scene.md3(filepath=str(path), animations="ACTIONS", assemble_player=False) == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if o.get("md3_root") is not None]
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == root)
    root.classic_model.active_animation = len(root.classic_model.animations) - 1     # whichever is active
    out = tmp_path / path.name
    model = read_md3(path.read_bytes())
    if any(len(n.encode("latin-1", "replace")) > 15 for n in model.frame_names):
        with pytest.raises(RuntimeError, match=FILLED_NAMES):
            bpy.ops.export_scene.md3(filepath=str(out))
        assert not out.exists()
        return
    assert bpy.ops.export_scene.md3(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == path.read_bytes()
