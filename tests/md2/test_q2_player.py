"""The Quake II player profile: ``check --profile q2-player`` on player folders made here (no Blender)."""
from __future__ import annotations

import json
import struct

import pytest
from support.environment import CORPUS
from support.md2_synthetic import grid_model
from support.players import TABLE, standard_names

from formats.md2.codec import serialize_md2
from formats.md2.player import STANDARD_FRAMES, standard_animation


def write_md2(path, names, skins=("players/test/skin.pcx",)):
    model = grid_model(nx=3, ny=2, frames=len(names))
    model.frame_names = list(names)
    model.skins = list(skins)
    path.write_bytes(serialize_md2(model))


def make_player(folder, body_names, weapon_names, skin=True, skin_names=("players/test/skin.pcx",), icon=True):
    folder.mkdir(parents=True)
    write_md2(folder / "tris.md2", body_names, skin_names)
    write_md2(folder / "weapon.md2", weapon_names, skin_names)
    if skin:
        (folder / "skin.pcx").write_bytes(b"present")   # the lookup only needs the file to exist
        if icon:
            (folder / "skin_i.pcx").write_bytes(b"present")   # the menu only lists the folder's file names
    return folder


def test_table_has_198_frames_and_maps_quake2_names():
    assert STANDARD_FRAMES == sum(n for _, n in TABLE) == 198
    assert [standard_animation(n) for n in ("pain101", "crpain1", "death308", "crdeath5", "run1", "walk01")] == [
        "pain1", "crpain", "death3", "crdeath", "run", None]


def test_conforming_player_is_clean(run, tmp_path):
    folder = make_player(tmp_path / "players" / "good", standard_names(), standard_names())
    result = run("check", "--profile", "q2-player", tmp_path / "players", block_bpy=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "checked 1 Quake II player(s): 1 conform, 0 with deviations, 0 with errors"
    assert str(folder) not in result.stdout


def test_broken_player_has_one_line_per_deviation(run, tmp_path):
    names = standard_names()
    taunt = [i for i, n in enumerate(names) if n.startswith("taunt")]
    body = names[:taunt[0]] + names[taunt[-1] + 1:]            # no taunt: 181 frames
    body[0] = "idle01"                                         # one frame of no standard animation
    weapon = names[:190]
    folder = make_player(tmp_path / "bad", body, weapon, skin=False, skin_names=("players/test/skin.pcx",))
    write_md2(folder / "w_railgun.md2", names, ("s" * 63,))
    data = bytearray((folder / "w_railgun.md2").read_bytes())
    ofs_skins = struct.unpack_from("<i", data, 44)[0]
    data[ofs_skins + 63] = ord("s")                             # 64 characters, no NUL: over the limit
    (folder / "w_railgun.md2").write_bytes(bytes(data))
    long_skin = "s" * 64
    result = run("check", "--profile", "q2-player", folder, block_bpy=True)
    assert result.returncode == 1
    lines = [line.removeprefix(f"{folder}: warning: ") for line in result.stdout.splitlines()[:-1]]
    # the animations after taunt sit 17 frames early and the body has 181 frames only because taunt is
    # missing (and idle01 replaced a stand frame): no line repeats that (issue 29)
    assert lines == [
        "tris.md2: animation 'stand' has 39 frames, expected 40",
        "tris.md2: animation 'taunt' is missing (expected 17 frames at frames 95-111)",
        "tris.md2: 1 frames belong to no standard animation ('idle01')",
        "tris.md2: skin 'players/test/skin.pcx' not found",
        "w_railgun.md2: 198 frames, tris.md2 has 181; its frames 181-197 are never shown (Quake II draws a weapon "
        "at the body's frame)",
        f"w_railgun.md2: skin {long_skin!r} not found",
        f"w_railgun.md2: skin name {long_skin!r} is over 63 characters",
        "weapon.md2: 190 frames, tris.md2 has 181; its frames 181-189 are never shown (Quake II draws a weapon at "
        "the body's frame)",
        "weapon.md2: skin 'players/test/skin.pcx' not found",
        "no player skin (.pcx) in the folder: Quake II's player menu lists a player only with a skin and its "
        "icon <skin>_i.pcx",
    ]
    assert result.stdout.splitlines()[-1] == "checked 1 Quake II player(s): 0 conform, 1 with deviations, 0 with errors"
    # deviations are warnings: --fail-on error passes; --json carries the same lines
    assert run("check", "--profile", "q2-player", "--fail-on", "error", folder, block_bpy=True).returncode == 0
    report = json.loads(run("check", "--profile", "q2-player", "--json", folder, block_bpy=True).stdout)
    assert report["players"][0]["deviations"] == lines


def test_unreadable_model_is_an_error_and_no_player_is_a_usage_error(run, tmp_path):
    folder = make_player(tmp_path / "p", standard_names(), standard_names())
    (folder / "weapon.md2").write_bytes(b"IDP2 broken")
    result = run("check", "--profile", "q2-player", "--fail-on", "error", folder, block_bpy=True)
    assert result.returncode == 1
    assert f"{folder}: error: weapon.md2: cannot be read" in result.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("check", "--profile", "q2-player", empty, block_bpy=True)
    assert result.returncode == 2 and "no tris.md2" in result.stderr


def test_skins_without_icons_are_reported_one_line_each(run, tmp_path):
    """Quake II's menu (client/menu.c IconOfSkinExists) lists <skin>.pcx only beside <skin>_i.pcx, named
    exactly; the weapon's skin is no player skin; --no-skins leaves skin files alone."""
    names = standard_names()
    folder = make_player(tmp_path / "players" / "test", names, names, icon=False)
    (folder / "red.pcx").write_bytes(b"present")
    (folder / "RED_I.PCX").write_bytes(b"present")              # wrong case: the menu uses strcmp
    (folder / "blue.pcx").write_bytes(b"present")
    (folder / "blue_i.pcx").write_bytes(b"present")
    write_md2(folder / "weapon.md2", names, ("players/test/weapon.pcx",))
    (folder / "weapon.pcx").write_bytes(b"present")             # a weapon skin needs no icon
    result = run("check", "--profile", "q2-player", folder, block_bpy=True)
    assert result.returncode == 1
    assert [line.removeprefix(f"{folder}: warning: ") for line in result.stdout.splitlines()[:-1]] == [
        "skin 'red.pcx': its icon is named 'RED_I.PCX', but the menu compares names exactly: rename it 'red_i.pcx'",
        "skin 'skin.pcx' has no icon 'skin_i.pcx': Quake II's player menu does not list this skin"]
    assert run("check", "--profile", "q2-player", "--no-skins", folder, block_bpy=True).returncode == 0
    (folder / "skin_i.pcx").write_bytes(b"present")
    (folder / "RED_I.PCX").rename(folder / "red_i.pcx")
    assert run("check", "--profile", "q2-player", folder, block_bpy=True).returncode == 0


def test_animation_names_are_compared_in_any_case(run, tmp_path):
    names = [n.capitalize() for n in standard_names()]          # Stand01 ... Death308: the game plays by index
    folder = make_player(tmp_path / "players" / "caps", names, names)
    result = run("check", "--profile", "q2-player", folder, block_bpy=True)
    assert result.returncode == 0, result.stdout


def test_a_real_player_has_the_standard_frames(run, tmp_path):
    folder = CORPUS / "md2" / "petaaar88-zarlag"
    if not (folder / "tris.md2").is_file():
        pytest.skip(f"corpus player {folder} not found")
    result = run("check", "--profile", "q2-player", "--no-skins", folder, block_bpy=True)
    assert result.returncode == 0, result.stdout + result.stderr
    result = run("check", "--profile", "q2-player", folder, block_bpy=True)   # its skin name points elsewhere
    assert result.stdout.splitlines()[0] == f"{folder}: warning: tris.md2: skin 'models/maxx/skin.pcx' not found"
    # its team skins have no icons: the game's menu lists zarlag alone
    assert [line.removeprefix(f"{folder}: warning: ") for line in result.stdout.splitlines()[1:-1]] == [
        f"skin {name!r} has no icon {name[:-4] + '_i.pcx'!r}: Quake II's player menu does not list this skin"
        for name in ("Zlwgren.pcx", "Zlwred.pcx")]


@pytest.mark.parametrize("kind", ["pak", "pk3"])
def test_players_inside_an_archive_give_the_lines_of_the_same_folders_loose(run, tmp_path, kind):
    """``check --profile q2-player pak0.pak`` (and ``pak0.pak:players/bad``) over the members: the same
    deviations as the same player folders loose; a skin in another archive of the game folder counts."""
    from formats.archives.archive import write_archive
    names = standard_names()
    loose = tmp_path / "loose" / "baseq2"
    make_player(loose / "players" / "good", names, names, skin_names=("players/good/skin.pcx",))
    make_player(loose / "players" / "bad", names[:190], names[:180], skin=False,
                skin_names=("players/bad/skin.pcx",))
    files = sorted((p.relative_to(loose).as_posix(), p.read_bytes()) for p in loose.rglob("*") if p.is_file())
    game = tmp_path / "game" / "baseq2"
    game.mkdir(parents=True)
    write_archive(game / f"pak0.{kind}", [f for f in files if not f[0].endswith("good/skin.pcx")])
    write_archive(game / f"pak1.{kind}", [f for f in files if f[0].endswith("good/skin.pcx")])
    expected = {}
    for player in ("good", "bad"):
        report = json.loads(run("check", "--profile", "q2-player", "--json", loose / "players" / player,
                                block_bpy=True).stdout)
        expected[player] = report["players"][0]["deviations"]
    assert expected["good"] == [] and len(expected["bad"]) >= 3       # frame counts and the missing skin
    archive = game / f"pak0.{kind}"
    report = json.loads(run("check", "--profile", "q2-player", "--json", archive, block_bpy=True).stdout)
    got = {r["folder"]: r["deviations"] for r in report["players"]}
    assert got == {f"{archive}:players/bad": expected["bad"], f"{archive}:players/good": expected["good"]}
    one = run("check", "--profile", "q2-player", f"{archive}:players/bad", block_bpy=True)
    assert one.returncode == 1 and one.stdout.splitlines()[-1].startswith("checked 1 Quake II player(s)")
    none = run("check", "--profile", "q2-player", f"{archive}:models", block_bpy=True)
    assert none.returncode == 2 and "no tris.md2 in this archive folder" in none.stderr
