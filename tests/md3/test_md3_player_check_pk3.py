"""``check --profile q3-player`` on players inside pk3s: a pk3 given finds each models/players/NAME/ holding
lower.md3 and checks it with that folder's members, as the loose folder would be checked; a game folder's
pk3s are seen together, a later pk3 by name overriding an earlier one member by member (as ioquake3's
search path), checked here against the same files extracted in that order; a member that cannot be read is
an error naming it. OpenArena's installed pk3s: every player in them found and read."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from support.archive_builders import write, zip_bytes
from support.environment import CORPUS

MAJOR = CORPUS / "md3" / "openarena081" / "models" / "players" / "major"
BASEOA = Path("/usr/share/games/openarena/baseoa")
INSTALL = ("apt-get install openarena-data openarena-081-players openarena-085-data openarena-088-data "
           "(Debian's OpenArena data, GPL-2+)")


def _report(run, *inputs) -> dict:
    result = run("check", "--profile", "q3-player", "--json", *inputs, block_bpy=True)
    assert result.stdout, result.stderr
    return json.loads(result.stdout)


def _major():
    if not MAJOR.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    return [(f"models/players/major/{p.name}", p.read_bytes()) for p in sorted(MAJOR.iterdir())]


def test_a_player_in_a_pk3_is_checked_as_its_loose_folder(run, tmp_path):
    members = _major()
    pk3 = write(tmp_path / "players.pk3", zip_bytes(members + [("models/players/major2/head.md3", members[0][1])]))
    loose = _report(run, MAJOR)["players"]
    packed = _report(run, pk3)
    assert [p["folder"] for p in packed["players"]] == [f"{pk3}:models/players/major/"]
    assert packed["players"][0]["deviations"] == loose[0]["deviations"] != []     # major's leth set has no icon
    assert packed["players"][0]["status"] == "warning" and packed["summary"]["missing"] == []


def test_a_game_folders_pk3s_are_seen_together_the_later_winning(run, tmp_path):
    """pak0.pk3 holds major; zz-patch.pk3 (later by name) a head.md3 that is not an MD3 and the icon the
    leth set lacked: checked together, the patch's head is an error and the leth deviation is gone; the
    patch alone holds no lower.md3 and is said to hold no player."""
    members = _major()
    folder = tmp_path / "baseoa"
    write(folder / "pak0.pk3", zip_bytes(members))
    icon = next(data for name, data in members if name.endswith("icon_default.tga"))
    patch = write(folder / "zz-patch.pk3", zip_bytes([("models/players/MAJOR/Head.md3", b"not an md3"),
                                                      ("models/players/major/icon_leth.tga", icon)]))
    report = _report(run, folder)
    [player] = report["players"]
    assert player["folder"] == f"{folder}:models/players/major/" and player["status"] == "error"
    assert len(player["errors"]) == 1 and player["errors"][0].startswith("head.md3: cannot be read")
    assert not any("icon_leth" in d for d in player["deviations"])
    alone = run("check", "--profile", "q3-player", patch, block_bpy=True)
    assert alone.returncode == 2 and "no models/players/NAME/lower.md3 in it" in alone.stderr


@pytest.mark.skipif(not BASEOA.is_dir(), reason=f"OpenArena's data not installed: {INSTALL}")
def test_openarenas_installed_players_are_checked_in_their_pk3s(run, tmp_path):
    pk3s = sorted(BASEOA.glob("*.pk3"), key=lambda p: p.name.lower())
    extracted = tmp_path / "extracted"
    for pk3 in pk3s:                                  # in name order: a later pk3 overwrites an earlier one's file
        with zipfile.ZipFile(pk3) as archive:        # the players, and the images and scripts their skins name
            for name in archive.namelist():
                parts = name.lower().split("/")
                if parts[0] in ("models", "scripts", "textures") and parts[-1]:
                    target = extracted.joinpath(*parts)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(archive.read(name))
    names = sorted(p.parent.name for p in extracted.glob("models/players/*/lower.md3"))
    report = _report(run, BASEOA)
    assert [p["folder"] for p in report["players"]] == [f"{BASEOA}:models/players/{n}/" for n in names]
    assert len(names) >= 12 and report["summary"]["missing"] == []
    assert all(p["errors"] == [] for p in report["players"])
    loose = {Path(p["folder"]).name: p["deviations"] for p in _report(run, extracted)["players"]}
    assert {n: p["deviations"] for n, p in zip(names, report["players"])} == loose
