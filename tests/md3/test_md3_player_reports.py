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
    assert "no shader script defines" not in out            # every shader penguin's skins name has its image


def test_a_parts_rate_line_is_kept_apart_from_its_notes(bpy_scene, extension, tmp_path, capfd):
    """penguin's lower.md3 built as an MD3 (the player's parts are built so): its line on the rate is the
    result's ``rate``, not one of its ``info`` notes (a player's export leaves the parts' rate lines out by
    that, not by their text); the part exported alone says it first, the player export not at all."""
    from support.operators import extension_module
    bpy = bpy_scene
    folder = corpus(f"{PLAYERS}/penguin/lower.md3").parent
    assert bpy.ops.import_scene.md3(filepath=str(folder / "lower.md3")) == {"FINISHED"}
    roots = extension_module(extension, "exporters.md3.player_timeline").imported_parts(list(bpy.data.objects))
    build = extension_module(extension, "exporters.md3.build")
    result = build.build_md3(bpy.context, [roots["lower"]], build.Md3ExportOptions(frame_source="TIMELINE"))
    assert len(result.rate) == 1 and result.rate[0].startswith("Frame rate: "), result.rate
    assert result.info and not any(line.startswith("Frame rate: ") for line in result.info), result.info
    for obj in bpy.data.objects:
        obj.select_set(obj == roots["lower"] or obj.parent == roots["lower"])
    capfd.readouterr()
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / "alone" / "lower.md3"), lods=False) == {"FINISHED"}
    alone = [line for line in capfd.readouterr().out.splitlines() if line.startswith("Info: ")]
    assert alone[0].startswith("Info: Frame rate: "), alone[:3]               # the rate first, as before
    assert sum(line.startswith("Info: Frame rate: ") for line in alone) == 1, alone
    capfd.readouterr()
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / "player" / "lower.md3"), player=True) == {"FINISHED"}
    player = [line for line in capfd.readouterr().out.splitlines() if line.startswith("Info: Frame rate: ")]
    assert player == [f"Info: Frame rate: Quake III player: the game plays each animation at the rate animation.cfg "
                      f"gives it ({', '.join(_rates(folder))} frames a second)"], player


def test_the_player_export_names_a_skins_shader_without_an_image(bpy_scene, tmp_path, capfd):
    """major's leth skin set names models/players/major/buh.tga, which is nowhere (before: written silently)."""
    bpy = bpy_scene
    folder = corpus(f"{PLAYERS}/major/lower.md3").parent
    assert bpy.ops.import_scene.md3(filepath=str(folder / "lower.md3")) == {"FINISHED"}
    capfd.readouterr()
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / "lower.md3"), player=True) == {"FINISHED"}
    out = capfd.readouterr().out
    assert (tmp_path / "lower_leth.skin").read_bytes() == (folder / "lower_leth.skin").read_bytes()
    assert ("Quake III player: lower_leth.skin, upper_leth.skin name shader models/players/major/buh.tga, which no "
            "shader script defines and which has no image where the game looks (the path with .tga, .jpg, .jpeg, .png, "
            ".pcx or .bmp): put the image at that path in the game folder or a pk3, or name an existing one in the "
            "skin") in out, out
    from support.blender_helpers import reported
    assert [w for w in reported(out)[0] if "shader" in w] == [
        "Quake III player: 1 shader named in the skins not found, drawn with the game's default shader\u2026"]
    assert out.count("no shader script defines") == 1


def test_levels_of_detail_left_out_at_import_are_said_at_export(bpy_scene, tmp_path, capfd):
    """merman imported without Levels of Detail (the default) and exported as a player into a copy of its
    folder: each part's x_1.md3 and x_2.md3 lie beside its source and the old ones stay in the export's
    folder; the report says so, per part (before: nothing). A plain file exported alone says the same."""
    import shutil
    bpy = bpy_scene
    source = corpus(f"{PLAYERS}/merman/lower.md3").parent
    folder = tmp_path / "merman"
    shutil.copytree(source, folder)
    assert bpy.ops.import_scene.md3(filepath=str(folder / "lower.md3")) == {"FINISHED"}
    capfd.readouterr()
    assert bpy.ops.export_scene.md3(filepath=str(folder / "lower.md3"), player=True) == {"FINISHED"}
    out = capfd.readouterr().out
    for part in ("lower", "upper", "head"):
        assert (f"{part}.md3: levels of detail {part}_1.md3, {part}_2.md3 lie beside {part}.md3, which this model "
                "was imported from, but were not imported") in out, out
        assert f"the {part}_1.md3, {part}_2.md3 already in {folder} stay" in out
    from support.blender_helpers import reported
    warnings, messages = reported(out)                      # one line for the three parts, each its own below
    left_out = [w for w in warnings if "levels of detail" in w]
    assert left_out == ["levels of detail left out at import, none written for 3 models: lower.md3, upper.md3, "
                        "head.md3"], warnings
    assert sum("were not imported" in m for m in messages) == 3
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.md3(filepath=str(source / "head.md3")) == {"FINISHED"}
    capfd.readouterr()
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / "head.md3")) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "head.md3: levels of detail head_1.md3, head_2.md3 lie beside head.md3" in out and "stay" not in out, out
    assert bpy.ops.import_scene.md3(filepath=str(source / "head.md3"), load_lods=True) == {"FINISHED"}
    capfd.readouterr()
    head = next(o for o in bpy.data.objects if o.get("md3_root") == "" and o.get("md3_lod") == 0 and o.children
                and any(c.get("md3_lod") for c in o.children))
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == head)
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / "again" / "head.md3"), use_selection=True) == {"FINISHED"}
    assert "were not imported" not in capfd.readouterr().out          # imported with them: written, nothing to say


def test_levels_of_detail_left_out_of_a_pk3_import_are_said_at_export(bpy_scene, tmp_path, capfd):
    """merman packed into a .pk3 and imported from it without Levels of Detail: the archive's directory lists
    each part's x_1.md3 and x_2.md3 beside the member it came from, so the player export says so per part, and
    a part exported alone says it too (before: only a loose file's folder was looked at)."""
    from support.archive_builders import write, zip_bytes
    from support.operators import import_members
    bpy = bpy_scene
    source = corpus(f"{PLAYERS}/merman/lower.md3").parent
    members = [(f"models/players/merman/{p.name}", p.read_bytes()) for p in sorted(source.iterdir()) if p.is_file()]
    pk3 = write(tmp_path / "baseq3" / "merman.pk3", zip_bytes(members))
    assert import_members(bpy, pk3, ["models/players/merman/lower.md3"]) == {"FINISHED"}
    capfd.readouterr()
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / "out" / "lower.md3"), player=True) == {"FINISHED"}
    out = capfd.readouterr().out
    for part in ("lower", "upper", "head"):
        assert (f"{part}.md3: levels of detail {part}_1.md3, {part}_2.md3 lie beside models/players/merman/{part}.md3 "
                "in merman.pk3, which this model was imported from, but were not imported") in out, out
    bpy.ops.wm.read_homefile(use_empty=True)
    assert import_members(bpy, pk3, ["models/players/merman/head.md3"]) == {"FINISHED"}
    capfd.readouterr()
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / "alone" / "head.md3")) == {"FINISHED"}
    assert ("head.md3: levels of detail head_1.md3, head_2.md3 lie beside models/players/merman/head.md3 in "
            "merman.pk3") in capfd.readouterr().out
