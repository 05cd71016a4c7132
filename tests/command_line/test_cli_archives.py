"""The command line on archives: ``list``, ``pack``, and ``info``/``check``/``convert`` of a whole
``.pak``/``.pk3`` or one ``ARCHIVE:MEMBER``, run as a user runs them (subprocesses, as in test_cli_info_check.py
and test_cli.py).
"""
from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest
from support.archive_builders import pack_bytes, patch_zip_member, raw_pack, write, zip_bytes
from support.environment import CORPUS, needs_bpy
from support.image_files import write_pcx
from support.md2_synthetic import grid_model

from formats.archives.archive import open_archive
from formats.md2.codec import parse_md2, serialize_md2

QUESS = CORPUS / "pak" / "quess" / "pak0.pak"
QUESS_MODELS = ["zombie", "null", "headcam", "hknight", "knight", "ogre", "shambler", "demon"]
GREY = np.repeat(np.arange(256, dtype=np.uint8)[:, None], 3, axis=1)


def quess() -> Path:
    if not QUESS.is_file():
        pytest.skip(f"corpus archive not found at {QUESS}")
    return QUESS


def pcx_bytes(tmp_path: Path, value: int, size=(8, 16)) -> bytes:
    """A PCX of one colour but its top-left texel, black as a real Quake II skin's (a skin of one colour is
    filled black by the game's load, and check says so: formats/images/corner_fill.py)."""
    pixels = np.full(size, value, np.uint8)
    pixels[0, 0] = 0
    path = write_pcx(tmp_path / f"_pcx{value}.pcx", pixels, GREY)
    data = path.read_bytes()
    path.unlink()
    return data


def q2_player_members(tmp_path: Path) -> list[tuple[str, bytes]]:
    """A Quake II player (tris.md2 naming its skin, the skin, its icon, weapon models) and a
    weapon view model, laid out as under baseq2/."""
    player = grid_model()
    player.skins = ["players/male/grunt.pcx"]
    weapon = grid_model(nx=3, ny=2)
    weapon.skins = ["players/male/weapon.pcx"]
    view = grid_model(nx=2, ny=2, frames=2)
    view.skins = ["models/weapons/v_blast/skin.pcx"]
    return [("players/male/tris.md2", serialize_md2(player)),
            ("players/male/grunt.pcx", pcx_bytes(tmp_path, 10)),
            ("players/male/grunt_i.pcx", pcx_bytes(tmp_path, 20, (32, 32))),
            ("players/male/weapon.md2", serialize_md2(weapon)),
            ("players/male/weapon.pcx", pcx_bytes(tmp_path, 30)),
            ("players/male/w_blaster.md2", serialize_md2(weapon)),
            ("models/weapons/v_blast/tris.md2", serialize_md2(view)),
            ("models/weapons/v_blast/skin.pcx", pcx_bytes(tmp_path, 40))]


# --- list ----------------------------------------------------------------------------------------

def test_list_prints_every_member_with_its_size(run):
    path = quess()
    result = run("list", path, block_bpy=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"{path}: pak, 46 member(s), 4106605 bytes"
    data = path.read_bytes()
    dirofs, dirlen = struct.unpack_from("<ii", data, 4)
    expected = [(n.split(b"\0")[0].decode(), s) for n, _, s in struct.iter_unpack("<56sii", data[dirofs:dirofs + dirlen])]
    assert [tuple(l.split()[::-1]) for l in lines[1:]] == [(n, str(s)) for n, s in expected]
    listed = json.loads(run("list", "--json", path, block_bpy=True).stdout)["archives"][0]
    assert [(m["name"], m["size"]) for m in listed["members"]] == expected


# --- info / check --------------------------------------------------------------------------------

def test_check_of_the_quess_archive_reports_the_truncated_member_and_goes_on(run):
    path = quess()
    result = run("check", "--json", path, block_bpy=True)
    assert result.returncode == 1
    files = {f["file"]: f for f in json.loads(result.stdout)["files"]}
    assert list(files) == [f"{path}:progs/{name}.mdl" for name in QUESS_MODELS]
    null = files[f"{path}:progs/null.mdl"]
    assert null["status"] == "error" and "only 4 remain" in null["problems"][0]["message"]
    assert all(f["status"] == "clean" for name, f in files.items() if "null" not in name)
    batch = run("info", path, block_bpy=True)
    assert batch.returncode == 1
    assert f"{path}:progs/null.mdl: cannot be read\n  error: " in batch.stdout
    assert "@ offset 49348: " in batch.stdout and "only 4 remain" in batch.stdout
    assert batch.stdout.count(": Quake MDL version 6, ") == 7
    info = run("info", f"{path}:progs/knight.mdl", block_bpy=True)
    assert info.returncode == 0
    assert info.stdout.startswith(f"{path}:progs/knight.mdl: Quake MDL version 6, 277312 bytes")


def test_info_of_a_member_equals_info_of_the_loose_file(run, tmp_path):
    path = quess()
    with open_archive(path) as archive:
        write(tmp_path / "progs" / "ogre.mdl", archive.read("progs/ogre.mdl"))
    packed = json.loads(run("info", "--json", f"{path}:progs/ogre.mdl", block_bpy=True).stdout)["files"][0]
    loose = json.loads(run("info", "--json", tmp_path / "progs" / "ogre.mdl", block_bpy=True).stdout)["files"][0]
    assert packed.pop("file") == f"{path}:progs/ogre.mdl"
    loose.pop("file")
    assert packed == loose


@pytest.mark.parametrize("kind", ["pak", "pk3"])
def test_a_quake2_player_in_an_archive_finds_its_skins_there(run, tmp_path, kind):
    members = q2_player_members(tmp_path)
    game = tmp_path / "baseq2"
    archive = write(game / f"pak0.{kind}", pack_bytes(members) if kind == "pak" else zip_bytes(members))
    result = run("check", archive, block_bpy=True)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert f"{archive}:players/male/tris.md2: skin players/male/grunt.pcx: found {archive}:players/male/grunt.pcx" in out
    assert f"{archive}:models/weapons/v_blast/tris.md2: skin models/weapons/v_blast/skin.pcx: found " \
           f"{archive}:models/weapons/v_blast/skin.pcx" in out
    assert "checked 4 file(s): 4 clean" in out   # tris, weapon, w_blaster, v_blast
    assert "/tmp/classic_models_archive_" not in out and "classic_models_archive_" not in result.stderr


def test_an_ms3d_member_finds_its_texture_in_the_archive(run, tmp_path):
    folder = CORPUS / "ms3d" / "sge"
    if not (folder / "zombie.ms3d").is_file():
        pytest.skip(f"corpus file ms3d/sge/zombie.ms3d not found under {CORPUS}")
    members = [("models/zombie/zombie.ms3d", (folder / "zombie.ms3d").read_bytes()),
               ("models/zombie/zombie.tga", (folder / "zombie.tga").read_bytes())]
    write(tmp_path / "mod" / "pak0.pk3", zip_bytes(members))
    result = run("info", "mod/pak0.pk3", block_bpy=True)    # a relative path stays relative in the report
    assert result.returncode == 0, result.stdout + result.stderr
    assert "mod/pak0.pk3:models/zombie/zombie.ms3d: MilkShape 3D MS3D version 4" in result.stdout
    assert ".\\zombie.tga: found mod/pak0.pk3:models/zombie/zombie.tga" in result.stdout
    write(tmp_path / "other" / "pak0.pk3", zip_bytes(members[:1]))
    missing = run("check", "other/pak0.pk3", block_bpy=True)
    assert "texture '.\\zombie.tga' not found: looked for zombie.tga in other/pak0.pk3:models/zombie" in missing.stdout
    assert str(tmp_path) not in missing.stdout and "classic_models_archive_" not in missing.stdout


def test_skins_come_from_the_game_folder_in_engine_order(run, tmp_path):
    """pak0 holds the player and its skin; pak1 overrides the skin; a loose copy loses to both."""
    members = q2_player_members(tmp_path)
    game = tmp_path / "baseq2"
    pak0 = write(game / "pak0.pak", pack_bytes(members))
    pak1 = write(game / "pak1.pak", pack_bytes([("players/male/grunt.pcx", pcx_bytes(tmp_path, 99, (4, 4)))]))
    write(game / "players" / "male" / "grunt.pcx", pcx_bytes(tmp_path, 77, (2, 2)))
    result = json.loads(run("info", "--json", f"{pak0}:players/male/tris.md2", block_bpy=True).stdout)["files"][0]
    [skin] = [s for s in result["skins"] if s["name"] == "players/male/grunt.pcx"]
    assert skin["found"] and skin["path"] == f"{pak1}:players/male/grunt.pcx"
    assert skin["note"].startswith("PCX 4x2") or "4x4" in skin["note"]
    data = (game / "players" / "male" / "loose.md2")
    model = grid_model()
    model.skins = ["players/male/grunt.pcx"]
    data.write_bytes(serialize_md2(model))
    result = json.loads(run("info", "--json", data, block_bpy=True).stdout)["files"][0]
    assert result["skins"][0]["path"] == str(game / "players" / "male" / "grunt.pcx")  # loose lookup unchanged


def test_an_archive_without_models_is_an_error(run, tmp_path):
    archive = write(tmp_path / "sounds.pk3", zip_bytes([("sound/a.wav", b"RIFF")]))
    result = run("check", archive, block_bpy=True)
    assert result.returncode == 1
    assert f"{archive}: error: no .md2, .mdl, .ms3d, .md3, .md5mesh, .md5anim, .iqm members in this archive" in result.stdout


def test_member_arguments_that_name_nothing_are_errors(run, tmp_path):
    path = quess()
    result = run("check", f"{path}:progs/nothere.mdl", f"{path}:quake.rc", f"{path}:PROGS/Ogre.MDL", block_bpy=True)
    assert result.returncode == 1
    assert f"{path}:progs/nothere.mdl: error: no such member in the archive" in result.stdout
    assert f"{path}:quake.rc: error: not a model" in result.stdout
    assert "checked 3 file(s): 1 clean, 0 with warnings, 2 with errors" in result.stdout


def _bad_archives(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Each bad-archive case: its file and the words the CLI must print about it."""
    good = serialize_md2(grid_model())
    entry = lambda name, pos, size: (name.ljust(56, b"\0")[:56], pos, size)  # noqa: E731
    cases = {
        "truncated": (b"PACK\x0c\x00\x00", "truncated: the header needs 12 bytes"),
        "directory outside": (raw_pack(good, [entry(b"a.md2", 12, len(good))], dirofs=10 ** 7),
                              "lies outside the file"),
        "member outside": (raw_pack(good, [entry(b"m/out.md2", 12, len(good) + 100)]), ("m/out.md2", "lies outside the file (1100 bytes)")),
        "negative size": (raw_pack(good, [entry(b"m/neg.md2", 12, -1)]), ("m/neg.md2", "negative offset 12 or size -1")),
        "no NUL": (raw_pack(good, [(b"m/" + b"x" * 50 + b".md2", 12, len(good))]), ("m/" + "x" * 50 + ".md2", "has no NUL terminator")),
        "absolute": (raw_pack(good, [entry(b"/abs/x.md2", 12, len(good))]), ("/abs/x.md2", "absolute name")),
        "dotdot": (raw_pack(good, [entry(b"../../x.md2", 12, len(good))]), ("../../x.md2", "name with '..'")),
        "drive": (raw_pack(good, [entry(b"C:\\x.md2", 12, len(good))]), ("C:\\x.md2", "name with a drive letter")),
        "duplicate": (raw_pack(good + b"junk", [entry(b"d.md2", 12, len(good)), entry(b"D.MD2", 12 + len(good), 4)]),
                      "duplicate member 'D.MD2' (entries 0 and 1); entry 0 is read"),
        "overlap": (raw_pack(good, [entry(b"o1.md2", 12, len(good)), entry(b"o2.md2", 12, len(good))]),
                    "members 'o1.md2' and 'o2.md2' share bytes"),
    }
    paths = {name: (write(tmp_path / name.replace(" ", "_") / "pak0.pak", raw), words)
             for name, (raw, words) in cases.items()}
    raw = zip_bytes([("m/x.md2", good)])
    zips = {
        "encrypted": (patch_zip_member(raw, 0, flags=1), ("m/x.md2", "encrypted member")),
        "unsupported": (patch_zip_member(raw, 0, method=14), ("m/x.md2", "compression method 14")),
        "zip bomb": (patch_zip_member(raw, 0, file_size=100), ("m/x.md2", "inflates past the 100 bytes it declares")),
        "zip dotdot": (zip_bytes([("../x.md2", good)]), ("../x.md2", "name with '..'")),
        "not a zip": (b"PK\x03\x04" + bytes(30), "bad zip directory"),
    }
    for name, (raw_zip, words) in zips.items():
        paths[name] = (write(tmp_path / name.replace(" ", "_") / "mod.pk3", raw_zip), words)
    return paths


def test_every_bad_archive_is_refused_cleanly_in_the_cli(run, tmp_path):
    cases = _bad_archives(tmp_path / "bad")
    result = run("check", *(path for path, _ in cases.values()), block_bpy=True)
    assert result.returncode == 1
    out = result.stdout + result.stderr
    assert "Traceback" not in out
    for name, (path, words) in cases.items():
        member, words = words if isinstance(words, tuple) else (None, words)
        lines = [l for l in out.splitlines() if (f"{path}:{member}" if member else str(path)) in l]
        assert any(words in l for l in lines), (name, words, lines)
    listing = run("list", *(path for path, _ in cases.values()), block_bpy=True)
    assert listing.returncode == 1 and "Traceback" not in listing.stdout + listing.stderr
    for name in ("truncated", "absolute", "encrypted", "negative size"):
        path, words = cases[name]
        assert (words[1] if isinstance(words, tuple) else words) in listing.stdout + listing.stderr, name


# --- pack ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["pak", "pk3"])
def test_pack_writes_an_archive_that_lists_the_same_files(run, tmp_path, kind):
    mod = tmp_path / "mymod"
    members = q2_player_members(tmp_path)
    for name, data in members:
        write(mod / name, data)
    output = mod / f"pak1.{kind}"
    output.write_bytes(b"an older archive, replaced whole")
    result = run("pack", mod, "-o", output, block_bpy=True)
    assert result.returncode == 0, result.stderr
    assert f"wrote {output}: {len(members)} member(s)" in result.stdout
    with open_archive(output) as archive:
        assert sorted((m.name, archive.read(m.name)) for m in archive.members()) == sorted(members)
    if kind == "pk3":
        with zipfile.ZipFile(output) as archive:
            assert archive.testzip() is None
    listed = json.loads(run("list", "--json", output, block_bpy=True).stdout)["archives"][0]["members"]
    assert sorted((m["name"], m["size"]) for m in listed) == sorted((n, len(d)) for n, d in members)
    repacked = run("pack", mod, "-o", output, block_bpy=True)   # the archive is not packed into itself
    assert repacked.returncode == 0
    with open_archive(output) as archive:
        assert len(archive.members()) == len(members)


@pytest.mark.parametrize("name, words", [("a" * 60 + ".md2", "70 bytes, a PACK name holds at most 55"),
                                         ("back\\slash.md2", "use '/' as the separator"),
                                         ("c:x.md2", "name with ':'")])
def test_pack_refuses_names_that_do_not_fit_and_writes_nothing(run, tmp_path, name, words):
    mod = tmp_path / "mod"
    write(mod / "progs" / "ok.mdl", b"x")
    write(mod / "progs" / name, b"y")
    result = run("pack", mod, "-o", tmp_path / "out.pak", block_bpy=True)
    assert result.returncode == 1
    assert f"progs/{name}" in result.stderr and words in result.stderr and "nothing written" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mod"]


def test_pack_usage_errors(run, tmp_path):
    write(tmp_path / "mod" / "a.txt", b"")
    assert run("pack", tmp_path / "mod", "-o", tmp_path / "x.zip", block_bpy=True).returncode == 2
    assert run("pack", tmp_path / "mod", "-o", tmp_path / "no" / "x.pak", block_bpy=True).returncode == 2
    result = run("pack", tmp_path / "mod" / "a.txt", "-o", tmp_path / "x.pak", block_bpy=True)
    assert result.returncode == 1 and "not a folder" in result.stderr


# --- convert -------------------------------------------------------------------------------------

def test_convert_needs_an_output_folder_for_archives(run, tmp_path):
    needs_bpy()   # convert asks for bpy before it reads its arguments
    result = run("convert", f"{quess()}:progs/ogre.mdl", "--to", "mdl")
    assert result.returncode == 2 and "archive inputs need -o DIR" in result.stderr


def test_convert_of_a_member_equals_convert_of_the_loose_file(run, tmp_path):
    needs_bpy()
    path = quess()
    loose = tmp_path / "loose"
    with open_archive(path) as archive:
        write(loose / "progs" / "headcam.mdl", archive.read("progs/headcam.mdl"))
    packed = run("convert", f"{path}:progs/headcam.mdl", "--to", "mdl", "-o", tmp_path / "a", "-j", "1")
    assert packed.returncode == 0, packed.stdout + packed.stderr
    assert f"{path}:progs/headcam.mdl -> {tmp_path / 'a' / 'progs' / 'headcam.mdl'}" in packed.stdout
    plain = run("convert", loose, "--to", "mdl", "-o", tmp_path / "b", "-j", "1")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert (tmp_path / "a" / "progs" / "headcam.mdl").read_bytes() == (tmp_path / "b" / "progs" / "headcam.mdl").read_bytes()


def test_convert_of_a_q2_player_member_with_its_skin_equals_the_loose_player(run, tmp_path):
    needs_bpy()
    members = q2_player_members(tmp_path)
    archive = write(tmp_path / "baseq2" / "pak0.pk3", zip_bytes(members))
    loose = tmp_path / "loose"
    for name, data in members:
        write(loose / name, data)
    packed = run("convert", f"{archive}:players/male/tris.md2", "--to", "glb", "-o", tmp_path / "a", "-j", "1")
    assert packed.returncode == 0, packed.stdout + packed.stderr
    plain = run("convert", loose / "players" / "male" / "tris.md2", "--to", "glb", "-o", tmp_path / "b", "-j", "1")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    a = (tmp_path / "a" / "players" / "male" / "tris.glb").read_bytes()
    b = (tmp_path / "b" / "tris.glb").read_bytes()
    assert a == b and b"grunt" in a
    assert "not found" not in packed.stdout and "MISSING" not in packed.stdout


def test_batch_convert_of_the_quess_archive_reports_null_and_converts_the_rest(run, tmp_path):
    needs_bpy()
    path = quess()
    out = tmp_path / "out"
    result = run("convert", path, "--to", "glb", "-o", out, "-j", "1", "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["summary"]["converted"] == 7 and report["summary"]["failed"] == 1
    [failed] = [r for r in report["results"] if not r["ok"]]
    assert failed["source"] == f"{path}:progs/null.mdl" and "only 4 remain" in failed["error"]
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert written == sorted(f"out/progs/{n}.glb" for n in QUESS_MODELS if n != "null")


def test_convert_never_writes_outside_the_output_folder(run, tmp_path):
    needs_bpy()
    good = serialize_md2(grid_model())
    archive = write(tmp_path / "game" / "evil.pk3", zip_bytes([("../../escape.md2", good), ("/abs.md2", good),
                                                               ("ok/fine.md2", good)]))
    out = tmp_path / "game" / "out"
    result = run("convert", archive, "--to", "md2", "-o", out, "-j", "1")
    assert result.returncode == 1
    assert "../../escape.md2: name with '..'" in result.stdout and "/abs.md2: absolute name" in result.stdout
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert files == ["game/evil.pk3", "game/out/ok/fine.md2"]
    assert parse_md2((out / "ok" / "fine.md2").read_bytes()).num_frames == 5
