"""An assembled Quake III player imported into a scene with nothing else animated sets the scene's range
(issue 44: it kept the default 1-250, its own first part counted as another model): with Animations:
Timeline the longest part's frames, with Actions the longest first animation. The truth: the parts' frame
counts and animation.cfg, read here."""
from __future__ import annotations

import pytest
from support.environment import CORPUS

from formats.md3.codec import read_md3

PLAYER = CORPUS / "md3" / "openarena081" / "models" / "players" / "major"


def first_animation_frames(folder) -> int:
    """The frame count of animation.cfg's first animation line (BOTH_DEATH1: every part's first action)."""
    for line in (folder / "animation.cfg").read_text("latin-1").splitlines():
        fields = line.split("//")[0].split()
        if len(fields) == 4 and all(f.lstrip("-").isdigit() for f in fields):
            return int(fields[1])
    raise AssertionError("animation.cfg has no animation line")


@pytest.mark.parametrize("animations", ["TIMELINE", "ACTIONS"])
def test_a_player_import_sets_a_fresh_scenes_range(extension, animations):
    if not (PLAYER / "animation.cfg").is_file():
        pytest.skip(f"OpenArena's major player not in the corpus ({PLAYER})")
    import bpy
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    assert bpy.ops.import_scene.md3(filepath=str(PLAYER / "lower.md3"), animations=animations) == {"FINISHED"}
    if animations == "TIMELINE":
        expected = max(read_md3((PLAYER / f"{p}.md3").read_bytes()).num_frames for p in ("lower", "upper", "head"))
    else:
        expected = first_animation_frames(PLAYER)
    assert (scene.frame_start, scene.frame_end) == (1, expected)
