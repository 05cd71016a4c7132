"""Skin lookup: game-relative names, any case, other extensions, and nothing outside the tree."""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from formats.archives import skin_lookup
from formats.archives.skin_lookup import find_skin

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def touch(path: Path, content: bytes = b"image") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def symlink_or_skip(link: Path, target: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    try:
        link.symlink_to(target, target_is_directory=target.is_dir())
    except (OSError, NotImplementedError) as exc:
        pytest.skip(f"cannot create symlinks here: {exc}")


@pytest.fixture
def baseq2(tmp_path: Path) -> Path:
    return tmp_path / "quake2" / "baseq2"


def case_sensitive(directory: Path) -> bool:
    probe = touch(directory / "case_probe")
    try:
        return not (directory / "CASE_PROBE").exists()
    finally:
        probe.unlink()


# -- found -----------------------------------------------------------------------------------

def test_player_skin_next_to_the_model_in_another_case(baseq2: Path) -> None:
    model = touch(baseq2 / "players" / "male" / "tris.md2")
    skin = touch(baseq2 / "players" / "male" / "GRUNT.PCX")

    lookup = find_skin(model, "players/male/grunt.pcx")

    assert lookup.path == skin
    assert lookup.warning is None


def test_backslash_name(baseq2: Path) -> None:
    model = touch(baseq2 / "players" / "zarlag" / "weapon.md2")
    skin = touch(baseq2 / "players" / "zarlag" / "WEAPON.PCX")
    assert find_skin(model, "players\\zarlag\\Weapon.pcx").path == skin


def test_backslash_name_resolved_through_the_game_directory(baseq2: Path) -> None:
    model = touch(baseq2 / "models" / "x" / "tris.md2")
    skin = touch(baseq2 / "Players" / "Zarlag" / "weapon.pcx")
    assert find_skin(model, "players\\zarlag\\Weapon.pcx").path == skin


def test_alternative_extension_when_the_stored_one_is_missing(baseq2: Path) -> None:
    model = touch(baseq2 / "players" / "male" / "tris.md2")
    skin = touch(baseq2 / "players" / "male" / "grunt.tga")

    lookup = find_skin(model, "players/male/grunt.pcx")

    assert lookup.path == skin
    assert "grunt.tga" in lookup.warning


def test_stored_extension_comes_first(baseq2: Path) -> None:
    model = touch(baseq2 / "players" / "male" / "tris.md2")
    touch(baseq2 / "players" / "male" / "grunt.png")
    pcx = touch(baseq2 / "players" / "male" / "grunt.pcx")
    assert find_skin(model, "players/male/grunt.pcx").path == pcx


def test_stored_extension_outside_the_list_is_still_tried_first(baseq2: Path) -> None:
    model = touch(baseq2 / "models" / "w" / "tris.md2")
    touch(baseq2 / "models" / "w" / "skin.png")
    wal = touch(baseq2 / "models" / "w" / "skin.wal")
    assert find_skin(model, "models/w/skin.wal").path == wal


def test_custom_extension_list(baseq2: Path) -> None:
    model = touch(baseq2 / "models" / "w" / "tris.md2")
    touch(baseq2 / "models" / "w" / "skin.png")
    assert find_skin(model, "models/w/skin.pcx", extensions=(".pcx", ".tga")).path is None


def test_bare_name_next_to_the_model(tmp_path: Path) -> None:
    model = touch(tmp_path / "anywhere" / "thing.md2")
    skin = touch(tmp_path / "anywhere" / "Skin.Pcx")
    assert find_skin(model, "skin.pcx").path == skin


def test_skin_in_a_subfolder_of_the_model_folder(baseq2: Path) -> None:
    model = touch(baseq2 / "models" / "x" / "tris.md2")
    skin = touch(baseq2 / "models" / "x" / "skins" / "A.PCX")

    lookup = find_skin(model, "models/x/skins/a.pcx")

    assert lookup.path == skin
    assert lookup.warning is None


def test_skin_in_another_model_folder_of_the_game_directory(baseq2: Path) -> None:
    model = touch(baseq2 / "models" / "x" / "tris.md2")
    skin = touch(baseq2 / "models" / "monsters" / "tank" / "skin.pcx")
    assert find_skin(model, "models/monsters/tank/skin.pcx").path == skin


def test_directory_components_match_in_any_case(baseq2: Path) -> None:
    model = touch(baseq2 / "models" / "y" / "tris.md2")
    skin = touch(baseq2 / "Players" / "MALE" / "Grunt.pcx")
    assert find_skin(model, "players/male/grunt.pcx").path == skin


def test_game_directory_containing_the_model_beats_a_nearer_lookalike(baseq2: Path) -> None:
    model = touch(baseq2 / "players" / "male" / "sub" / "tris.md2")
    touch(baseq2 / "players" / "male" / "sub" / "players" / "male" / "grunt.pcx", b"decoy")
    skin = touch(baseq2 / "players" / "male" / "grunt.pcx")
    assert find_skin(model, "players/male/grunt.pcx").path == skin


def test_falls_back_to_a_farther_game_directory_that_holds_the_file(baseq2: Path) -> None:
    model = touch(baseq2 / "players" / "male" / "tris.md2")
    skin = touch(baseq2.parent / "players" / "male" / "grunt.pcx")
    assert find_skin(model, "players/male/grunt.pcx").path == skin


def test_exact_spelling_wins_over_other_cases(baseq2: Path) -> None:
    folder = baseq2 / "players" / "male"
    model = touch(folder / "tris.md2")
    if not case_sensitive(folder):
        pytest.skip("file system is case-insensitive")
    touch(folder / "GRUNT.PCX")
    exact = touch(folder / "grunt.pcx")
    assert find_skin(model, "players/male/grunt.pcx").path == exact


def test_a_directory_with_the_skin_name_is_not_a_skin(baseq2: Path) -> None:
    model = touch(baseq2 / "players" / "male" / "tris.md2")
    (baseq2 / "players" / "male" / "grunt.pcx").mkdir()
    tga = touch(baseq2 / "players" / "male" / "grunt.tga")
    assert find_skin(model, "players/male/grunt.pcx").path == tga


def test_real_zarlag_weapon_skin() -> None:
    model = CORPUS / "md2" / "petaaar88-zarlag" / "weapon.md2"
    if not model.is_file():
        pytest.skip(f"{model} absent (shared corpus not mounted)")
    lookup = find_skin(model, "players\\zarlag\\Weapon.pcx")
    assert lookup.path == model.parent / "WEAPON.PCX"


# -- refused ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["/etc/passwd", "C:\\quake2\\baseq2\\skin.pcx", "c:skin.pcx",
                                  "\\\\server\\share\\skin.pcx", "\\skin.pcx",
                                  "/players/male/grunt.pcx", "  /players/male/grunt.pcx"])
def test_absolute_names_are_refused(baseq2: Path, name: str) -> None:
    model = touch(baseq2 / "players" / "male" / "tris.md2")
    touch(baseq2 / "players" / "male" / "grunt.pcx")
    touch(baseq2 / "players" / "male" / "skin.pcx")

    lookup = find_skin(model, name)

    assert lookup.path is None
    assert "absolute" in lookup.warning


@pytest.mark.parametrize("name", ["../male/grunt.pcx", "players/../players/male/grunt.pcx",
                                  "players\\male\\..\\male\\grunt.pcx", ".."])
def test_dot_dot_is_refused(baseq2: Path, name: str) -> None:
    model = touch(baseq2 / "players" / "male" / "tris.md2")
    touch(baseq2 / "players" / "male" / "grunt.pcx")

    lookup = find_skin(model, name)

    assert lookup.path is None
    assert "'..'" in lookup.warning


@pytest.mark.parametrize("name", ["", "   ", "/", "./"])
def test_names_without_a_file_are_refused(baseq2: Path, name: str) -> None:
    model = touch(baseq2 / "players" / "male" / "tris.md2")
    lookup = find_skin(model, name)
    assert lookup.path is None and lookup.warning


def test_symlinked_skin_leading_outside_is_not_followed(tmp_path: Path, baseq2: Path) -> None:
    secret = touch(tmp_path / "outside" / "secret.pcx")
    model = touch(baseq2 / "players" / "male" / "tris.md2")
    symlink_or_skip(baseq2 / "players" / "male" / "grunt.pcx", secret)

    lookup = find_skin(model, "players/male/grunt.pcx")

    assert lookup.path is None
    assert "outside" in lookup.warning and "grunt.pcx" in lookup.warning


def test_symlinked_folder_leading_outside_is_not_followed(tmp_path: Path, baseq2: Path) -> None:
    touch(tmp_path / "elsewhere" / "male" / "grunt.pcx")
    model = touch(baseq2 / "models" / "x" / "tris.md2")
    symlink_or_skip(baseq2 / "players", tmp_path / "elsewhere")

    lookup = find_skin(model, "players/male/grunt.pcx")

    assert lookup.path is None
    assert "outside" in lookup.warning


def test_outside_link_is_skipped_for_a_genuine_alternative(tmp_path: Path, baseq2: Path) -> None:
    secret = touch(tmp_path / "outside" / "secret.pcx")
    model = touch(baseq2 / "players" / "male" / "tris.md2")
    symlink_or_skip(baseq2 / "players" / "male" / "grunt.pcx", secret)
    tga = touch(baseq2 / "players" / "male" / "grunt.tga")

    lookup = find_skin(model, "players/male/grunt.pcx")

    assert lookup.path == tga
    assert "outside" in lookup.warning


def test_symlink_inside_the_game_directory_is_followed(baseq2: Path) -> None:
    target = touch(baseq2 / "players" / "female" / "athena.pcx")
    model = touch(baseq2 / "players" / "male" / "tris.md2")
    link = baseq2 / "players" / "male" / "grunt.pcx"
    symlink_or_skip(link, target)

    lookup = find_skin(model, "players/male/grunt.pcx")

    assert lookup.path == link
    assert lookup.warning is None


def test_bare_name_link_leaving_the_model_folder_is_refused(tmp_path: Path) -> None:
    target = touch(tmp_path / "parent_secret.pcx")
    model = touch(tmp_path / "models" / "thing.md2")
    symlink_or_skip(tmp_path / "models" / "skin.pcx", target)
    assert find_skin(model, "skin.pcx").path is None


# -- missing ---------------------------------------------------------------------------------

def test_missing_skin_names_the_skin_and_where_it_looked(baseq2: Path) -> None:
    model = touch(baseq2 / "models" / "x" / "tris.md2")
    (baseq2 / "players" / "male").mkdir(parents=True)

    lookup = find_skin(model, "players/male/grunt.pcx")

    assert lookup.path is None
    assert "players/male/grunt.pcx" in lookup.warning
    assert str(model.parent) in lookup.warning
    assert str(baseq2 / "players" / "male") in lookup.warning


def test_missing_game_directory_is_explained(tmp_path: Path) -> None:
    model = touch(tmp_path / "loose" / "tris.md2")

    lookup = find_skin(model, "models/maxx/skin.pcx")

    assert lookup.path is None
    assert "models/maxx" in lookup.warning and "game directory" in lookup.warning


def test_lookup_lists_only_the_folders_it_needs(baseq2: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = touch(baseq2 / "models" / "x" / "tris.md2")
    for i in range(30):
        touch(baseq2 / "maps" / f"area{i}" / "deep" / "file.bsp")
    skin = touch(baseq2 / "models" / "monsters" / "tank" / "skin.pcx")
    listed: list[str] = []
    real_scandir = os.scandir

    def counting_scandir(path: Path) -> Iterator[os.DirEntry[str]]:
        listed.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(skin_lookup.os, "scandir", counting_scandir)

    assert find_skin(model, "models/monsters/tank/skin.pcx").path == skin
    assert not any("maps" in p for p in listed)
    assert len(listed) == len(set(listed))
    assert len(listed) <= 3 + len(model.parents)


# -- the model's own images, when the file names none or names a missing one ------------------

from formats.archives.skin_lookup import find_own_skins  # noqa: E402


def own(model: Path) -> list[str]:
    found = find_own_skins(model)
    return [p.name for p in found.paths] if found else []


def test_own_name_first_in_extension_order(tmp_path: Path) -> None:
    model = touch(tmp_path / "gun.md2")
    touch(tmp_path / "GUN.JPG")
    touch(tmp_path / "gun.png")
    touch(tmp_path / "skin.pcx")
    assert own(model) == ["gun.png"]
    assert "own name" in find_own_skins(model).reason


def test_skin_star_for_a_model_alone_in_its_folder(tmp_path: Path) -> None:
    model = touch(tmp_path / "ogro" / "tris.md2")
    touch(tmp_path / "ogro" / "Skin.JPG")
    touch(tmp_path / "ogro" / "md2.cfg")
    assert own(model) == ["Skin.JPG"]
    assert find_own_skins(model).reason == "Skin.JPG beside the model"


def test_quake2_player_skins_need_their_icon(tmp_path: Path) -> None:
    folder = tmp_path / "players" / "zarlag"
    model = touch(folder / "tris.md2")
    touch(folder / "weapon.md2")
    for name in ("zarlag.pcx", "zarlag_i.pcx", "Blue.PCX", "blue_i.pcx", "nocon.pcx", "weapon.pcx"):
        touch(folder / name)
    assert own(model) == ["Blue.PCX", "zarlag.pcx"]
    assert own(folder / "weapon.md2") == ["weapon.pcx"]


def test_image_named_after_the_model(tmp_path: Path) -> None:
    faerie = touch(tmp_path / "faerie.md2")
    wolf = touch(tmp_path / "wolf.md2")
    touch(tmp_path / "faerie2.bmp")
    touch(tmp_path / "wolf_texture.png")
    assert own(faerie) == ["faerie2.bmp"]
    assert own(wolf) == ["wolf_texture.png"]


def test_another_models_image_is_never_borrowed(tmp_path: Path) -> None:
    flag = touch(tmp_path / "flag.md2")
    touch(tmp_path / "dolphin.md2")
    touch(tmp_path / "dolphin_f.bmp")
    touch(tmp_path / "skin.png")
    touch(tmp_path / "flagpole.md2")
    touch(tmp_path / "flagpole_wood.png")
    assert own(flag) == []
    assert own(tmp_path / "dolphin.md2") == ["dolphin_f.bmp"]
    assert own(tmp_path / "flagpole.md2") == ["flagpole_wood.png"]


def test_own_image_symlinked_out_of_the_folder_is_skipped(tmp_path: Path) -> None:
    secret = touch(tmp_path / "secret" / "photo.png")
    model = touch(tmp_path / "m" / "box.md2")
    symlink_or_skip(tmp_path / "m" / "box.png", secret)
    assert own(model) == []
