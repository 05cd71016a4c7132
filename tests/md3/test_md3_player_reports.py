"""What the import and the export of a Quake III player say (issue 44): an assembled import counts the
files it read and the objects it made; the player export names animation.cfg's rates, which the game
plays, not Quake's 10 per second ("the animation runs 1.5 times as long in the game" was wrong)."""
from __future__ import annotations

import re

from support.environment import corpus

PLAYERS = "md3/openarena081/models/players"


def _rates(folder) -> list[str]:
    rates = set()
    for line in (folder / "animation.cfg").read_text(encoding="latin-1").splitlines():
        match = re.match(r"\s*\d+\s+\d+\s+\d+\s+(\d+)\s*//", line)
        if match:
            rates.add(int(match.group(1)))
    return [str(r) for r in sorted(rates)]


def test_an_assembled_player_import_counts_its_files_and_objects(bpy_scene, capfd):
    """merman's three parts given together, with its levels of detail: 9 files read (3 parts, 6 LODs), and
    every object made counted (each file's root, surfaces and tags), not 1 object from 1 (or 3) file(s)."""
    bpy = bpy_scene
    folder = corpus(f"{PLAYERS}/merman/lower.md3").parent
    files = [{"name": n} for n in ("lower.md3", "upper.md3", "head.md3")]
    assert bpy.ops.import_scene.md3(directory=str(folder), files=files, load_lods=True) == {"FINISHED"}
    out = capfd.readouterr().out
    assert f"Imported {len(bpy.data.objects)} object(s) from 9 file(s)" in out, out[-600:]
    assert len(bpy.data.objects) > 9


def test_the_player_export_names_animation_cfgs_rates(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    folder = corpus(f"{PLAYERS}/penguin/lower.md3").parent
    assert bpy.ops.import_scene.md3(filepath=str(folder / "lower.md3")) == {"FINISHED"}
    assert bpy.context.scene.render.fps != 10
    capfd.readouterr()
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / "lower.md3"), player=True) == {"FINISHED"}
    out = capfd.readouterr().out
    assert (tmp_path / "lower.md3").read_bytes() == (folder / "lower.md3").read_bytes()
    assert "times as long" not in out and "the game plays 10 per" not in out, out
    assert (f"the game plays each animation at the rate animation.cfg gives it ({', '.join(_rates(folder))} "
            "frames a second)") in out, out
