"""PACK and PK3 archives and the game-folder view, without Blender.

Archives are built with ``struct`` and the standard ``zipfile`` (tests/support/archive_builders.py), so the
reader is checked against the layout; the real mod archive ``corpus/pak/quess/pak0.pak`` is checked
against its directory decoded here with ``struct``.
"""
from __future__ import annotations

import struct
import zipfile
import zlib

import pytest
from support.archive_builders import pack_bytes, patch_zip_member, raw_pack, write, zip_bytes, zip_entries
from support.environment import CORPUS

from formats.archives.archive import (
    MAX_MEMBER_SIZE,
    ArchiveError,
    Member,
    is_archive_name,
    open_archive,
    unsafe_name,
    write_archive,
)
from formats.archives.game_folder import GameFile, GameFolder, search_archives
from formats.errors import FormatError

QUESS = CORPUS / "pak" / "quess" / "pak0.pak"
FILES = [("progs/player.mdl", b"IDPO" + bytes(range(200))), ("sound/a.wav", b"RIFF" * 10),
         ("maps/e1m1.bsp", bytes(1000)), ("README.txt", b"hello")]


def quess():
    if not QUESS.is_file():
        pytest.skip(f"corpus archive not found at {QUESS}")
    return QUESS


def directory_by_struct(data: bytes) -> list[tuple[str, int, int]]:
    magic, dirofs, dirlen = struct.unpack_from("<4sii", data, 0)
    assert magic == b"PACK"
    return [(name.split(b"\0")[0].decode("latin-1"), pos, size)
            for name, pos, size in struct.iter_unpack("<56sii", data[dirofs:dirofs + dirlen])]


# --- reading -------------------------------------------------------------------------------------

def test_quess_lists_its_directory_and_reads_each_member(tmp_path):
    data = quess().read_bytes()
    expected = directory_by_struct(data)
    with open_archive(QUESS) as archive:
        assert archive.kind == "pak"
        assert [(m.name, m.size) for m in archive.members()] == [(n, s) for n, _, s in expected]
        assert len(archive.members()) == 46
        assert sum(m.name.endswith(".mdl") for m in archive.members()) == 8
        assert not archive.problems and not archive.warnings
        for name, pos, size in expected:
            assert archive.read(name) == data[pos:pos + size]
        assert archive.find("PROGS\\Null.MDL") == Member("progs/null.mdl", 49352)
        assert archive.read("Progs/NULL.mdl") == archive.read("progs/null.mdl")


@pytest.mark.parametrize("kind", ["pak", "pk3"])
def test_built_archives_read_back(tmp_path, kind):
    raw = pack_bytes(FILES) if kind == "pak" else zip_bytes(FILES)
    path = write(tmp_path / f"a.{kind}", raw)
    with open_archive(path) as archive:
        assert archive.kind == kind
        assert archive.members() == [Member(n, len(d)) for n, d in FILES]
        for name, data in FILES:
            assert archive.read(name.upper()) == data
        with pytest.raises(ArchiveError, match=r"a\.%s:nothere\.txt: no such member" % kind):
            archive.read("nothere.txt")
    with pytest.raises(ArchiveError, match="closed"):
        archive.read(FILES[0][0])


def test_pk3_stored_members_and_content_not_suffix_decide_the_kind(tmp_path):
    path = write(tmp_path / "stored.pak", zip_bytes(FILES, zipfile.ZIP_STORED))
    with open_archive(path) as archive:
        assert archive.kind == "pk3"
        assert archive.read("maps/e1m1.bsp") == bytes(1000)


def test_unsafe_names():
    for name in ("progs/player.mdl", "a b/c.d", "players/male/tris.md2", "x"):
        assert unsafe_name(name) is None, name
    for name, why in (("", "empty"), ("/a", "absolute"), ("\\a", "absolute"), ("C:a", "drive letter"),
                      ("a/b:c", "':'"), ("a/../b", "'..'"), ("a\\..\\b", "'..'"), ("a//b", "empty"),
                      ("./a", "'.'"), ("a/", "empty"), ("a\tb", "control character")):
        assert why in unsafe_name(name), name


def test_is_archive_name():
    assert is_archive_name("x/PAK0.PAK") and is_archive_name("mod.pk3")
    assert not is_archive_name("pak0.zip") and not is_archive_name("tris.md2")


def test_listing_reads_only_the_directory(tmp_path, monkeypatch):
    """Opening and listing read the header and directory; reading a member reads only its bytes."""
    import builtins
    members = [(f"m/{i}.bin", bytes([i % 256]) * 5000) for i in range(50)]
    path = write(tmp_path / "big.pak", pack_bytes(members))
    reads: list[int] = []
    real_open = builtins.open

    class Counting:
        def __init__(self, stream):
            self.stream = stream

        def read(self, n=-1):
            data = self.stream.read(n)
            reads.append(len(data))
            return data

        def __getattr__(self, name):
            return getattr(self.stream, name)

    monkeypatch.setattr(builtins, "open", lambda *a, **k: Counting(real_open(*a, **k)))
    archive = open_archive(path)
    monkeypatch.setattr(builtins, "open", real_open)
    assert len(archive.members()) == 50
    assert sum(reads) == 4 + 12 + 50 * 64
    reads.clear()
    assert archive.read("m/7.bin") == bytes([7]) * 5000
    assert reads == [5000]
    archive.close()


# --- bad archives --------------------------------------------------------------------------------

def _entry(name: bytes, pos: int, size: int) -> tuple[bytes, int, int]:
    return name.ljust(56, b"\0")[:56], pos, size


BAD_OPEN = {
    "short header": (b"PACK\x0c\x00", "truncated: the header needs 12 bytes"),
    "not an archive": (b"IDPO" + bytes(40), "not a PACK or zip archive"),
    "directory outside the file": (raw_pack(b"abc", [_entry(b"a", 12, 3)], dirofs=4000), "lies outside the file"),
    "negative directory length": (raw_pack(b"abc", [], dirlen=-64), "negative directory offset 15 or length -64"),
    "directory length not whole entries": (raw_pack(b"abc", [_entry(b"a", 12, 3)], dirlen=63),
                                           "not a multiple of 64"),
    "bad zip directory": (b"PK\x05\x06" + bytes(10), "bad zip directory"),
    # the directory at offset 0 reads the header as an entry: a 2-byte member named "PACK"
    "directory overlapping the header": (raw_pack(bytes(44) + struct.pack("<ii", 12, 2), [], dirofs=0, dirlen=64),
                                         "directory (64 bytes at offset 0) overlaps the 12-byte header"),
}


@pytest.mark.parametrize("case", BAD_OPEN)
def test_bad_archives_are_refused_naming_the_file(tmp_path, case):
    raw, message = BAD_OPEN[case]
    path = write(tmp_path / "bad.pak", raw)
    with pytest.raises(ArchiveError) as caught:
        open_archive(path)
    assert str(path) in str(caught.value) and message in str(caught.value)
    assert isinstance(caught.value, FormatError)


BAD_ENTRIES = {
    "member outside the file": (_entry(b"a/out.mdl", 12, 500), "lies outside the file"),
    "member starting past the end": (_entry(b"a/far.mdl", 10 ** 6, 1), "lies outside the file"),
    "negative size": (_entry(b"a/neg.mdl", 12, -5), "negative offset 12 or size -5"),
    "negative offset": (_entry(b"a/negofs.mdl", -1, 1), "negative offset -1"),
    "absolute name": (_entry(b"/etc/passwd", 12, 3), "absolute name"),
    "parent folder": (_entry(b"progs/../../evil.mdl", 12, 3), "name with '..'"),
    "backslash parent": (_entry(b"..\\evil.mdl", 12, 3), "name with '..'"),
    "drive letter": (_entry(b"C:/evil.mdl", 12, 3), "drive letter"),
    "no NUL": ((b"x" * 56, 12, 3), "no NUL terminator"),
    "empty name": (_entry(b"", 12, 3), "empty name"),
    "member in the header": (_entry(b"a/head.mdl", 0, 16), "data (16 bytes at offset 0) overlaps the 12-byte header"),
    "member in the directory": (_entry(b"a/dir.mdl", 16, 8), "overlaps the directory (128 bytes at offset 18)"),
}


@pytest.mark.parametrize("case", BAD_ENTRIES)
def test_bad_pak_entries_are_left_out_and_named(tmp_path, case):
    entry, message = BAD_ENTRIES[case]
    path = write(tmp_path / "mod.pak", raw_pack(b"abcdef", [_entry(b"good.txt", 12, 6), entry]))
    with open_archive(path) as archive:
        assert archive.members() == [Member("good.txt", 6)]
        assert archive.read("good.txt") == b"abcdef"
        [problem] = archive.problems
        assert message in problem.message and str(path) in str(problem)
        if entry[0].rstrip(b"\0"):
            shown = problem.member
            assert shown and shown in str(problem)
            if b"\0" in entry[0]:
                with pytest.raises(ArchiveError, match="lies outside|negative|name|overlaps"):
                    archive.read(shown)


def test_pak_duplicates_first_wins_overlaps_warn(tmp_path):
    body = b"first" + b"second"
    raw = raw_pack(body, [_entry(b"progs/a.mdl", 12, 5), _entry(b"PROGS/A.MDL", 17, 6), _entry(b"b.mdl", 14, 6)])
    path = write(tmp_path / "dup.pak", raw)
    with open_archive(path) as archive:
        assert len(archive.members()) == 3
        assert archive.read("progs/a.mdl") == b"first"
        assert archive.find("progs/a.mdl").size == 5
        text = " ".join(archive.warnings)
        assert "duplicate member 'PROGS/A.MDL' (entries 0 and 1); entry 0 is read" in text
        assert "'progs/a.mdl' and 'b.mdl' share bytes" in text
        assert archive.warnings_for("b.mdl") and archive.warnings_for("progs/a.mdl")


def test_pk3_duplicates_last_wins(tmp_path):
    raw = zip_bytes([("a.txt", b"one"), ("A.TXT", b"two")])
    path = write(tmp_path / "dup.pk3", raw)
    with open_archive(path) as archive:
        assert archive.read("a.txt") == b"two"
        assert "entry 1 is read" in archive.warnings[0]


def _zip_case(case: str) -> tuple[bytes, str]:
    members = [("good.txt", b"fine" * 10), ("models/x.md2", bytes(range(256)) * 40)]
    raw = zip_bytes(members)
    if case == "encrypted":
        return patch_zip_member(raw, 1, flags=1), "encrypted member"
    if case == "unsupported method":
        return patch_zip_member(raw, 1, method=12), "compression method 12 is not supported"
    if case == "zip bomb":
        return patch_zip_member(raw, 1, file_size=1000), "inflates past the 1000 bytes it declares"
    if case == "huge declared size":
        return patch_zip_member(raw, 1, file_size=MAX_MEMBER_SIZE + 1), "more than the"
    if case == "bad crc":
        return patch_zip_member(raw, 1, crc=1234), "CRC-32 mismatch"
    if case == "absolute name":
        return zip_bytes([members[0], ("/abs/x.md2", b"x")]), "absolute name"
    if case == "parent folder":
        return zip_bytes([members[0], ("a/../../x.md2", b"x")]), "name with '..'"
    if case == "drive letter":
        return zip_bytes([members[0], ("c:/x.md2", b"x")]), "drive letter"
    if case == "member outside the file":
        return patch_zip_member(raw, 1, local_offset=len(raw) + 100), "outside the file"
    if case == "short deflate":
        return patch_zip_member(raw, 1, file_size=20000), "holds 10240 bytes, declares 20000"
    raise KeyError(case)


ZIP_CASES = ["encrypted", "unsupported method", "zip bomb", "huge declared size", "bad crc", "absolute name",
             "parent folder", "drive letter", "member outside the file", "short deflate"]


@pytest.mark.parametrize("case", ZIP_CASES)
def test_bad_pk3_members_are_refused_naming_the_member(tmp_path, case):
    raw, message = _zip_case(case)
    path = write(tmp_path / "mod.pk3", raw)
    with open_archive(path) as archive:
        assert archive.read("good.txt") == b"fine" * 10
        bad = [m.name for m in archive.members() if m.name != "good.txt"]
        if bad:   # listed (the problem shows when the member is read)
            with pytest.raises(ArchiveError) as caught:
                archive.read(bad[0])
            error = caught.value
        else:
            [error] = archive.problems
            with pytest.raises(ArchiveError):
                archive.read(error.member)
        assert message in str(error) and str(path) in str(error) and error.member in str(error)


def test_overlapping_zip_members_are_refused(tmp_path):
    raw = zip_bytes([("a.txt", b"a" * 100), ("b.txt", b"b" * 100)])
    first = zip_entries(raw)[0]["local"]
    path = write(tmp_path / "overlap.pk3", patch_zip_member(raw, 1, local_offset=first))
    with pytest.raises(ArchiveError, match="overlapping zip members"):
        open_archive(path)


def test_zip_bomb_stops_at_the_bound(tmp_path):
    """A member declaring 1 KB that inflates to 50 MB stops after 1 KB + 1 byte."""
    bomb = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = bomb.compress(bytes(50 << 20)) + bomb.flush()
    raw = zip_bytes([("bomb.bin", bytes(50 << 20))])
    assert len(raw) < 200_000 and len(packed) < 100_000
    path = write(tmp_path / "bomb.pk3", patch_zip_member(raw, 0, file_size=1024))
    import tracemalloc
    with open_archive(path) as archive:
        tracemalloc.start()
        with pytest.raises(ArchiveError, match="inflates past the 1024 bytes"):
            archive.read("bomb.bin")
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 5 << 20


# --- writing -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["pak", "pk3"])
def test_write_archive_round_trips(tmp_path, kind):
    path = tmp_path / f"out.{kind}"
    write_archive(path, FILES)
    with open_archive(path) as archive:
        assert [(m.name, archive.read(m.name)) for m in archive.members()] == FILES
    again = tmp_path / f"again.{kind}"
    write_archive(again, FILES)
    assert again.read_bytes() == path.read_bytes(), "the same files give the same archive"
    if kind == "pak":
        data = path.read_bytes()
        assert [(n, s) for n, _, s in directory_by_struct(data)] == [(n, len(d)) for n, d in FILES]
    else:
        with zipfile.ZipFile(path) as archive:
            assert [(i.filename, archive.read(i)) for i in archive.infolist()] == FILES


@pytest.mark.parametrize("name, message", [
    ("a" * 56, "56 bytes, a PACK name holds at most 55"), ("../x", "'..'"), ("/x", "absolute"),
    ("c:x", "drive letter"), ("a\\b", "use '/'"), ("a//b", "empty"), ("caf\u20ac", "Latin-1"),
    ("README.TXT", "same name as 'README.txt'")])
def test_write_archive_refuses_bad_names_and_leaves_nothing(tmp_path, name, message):
    path = tmp_path / "out.pak"
    path.write_bytes(b"old")
    with pytest.raises(ArchiveError, match=message) as caught:
        write_archive(path, FILES + [(name, b"x")])
    assert caught.value.member == name
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.pak"]


def test_write_archive_fits_55_bytes_and_zip_names_are_longer(tmp_path):
    name = "a" * 51 + ".mdl"
    write_archive(tmp_path / "ok.pak", [(name, b"x")])
    with open_archive(tmp_path / "ok.pak") as archive:
        assert archive.members() == [Member(name, 1)]
    write_archive(tmp_path / "ok.pk3", [("b" * 80 + ".mdl", b"y")])
    with pytest.raises(ArchiveError, match="must end in .pak or .pk3"):
        write_archive(tmp_path / "x.zip", [("a", b"")])


# --- game folder ---------------------------------------------------------------------------------

def _game(tmp_path, folder="mod"):
    root = tmp_path / folder
    write(root / "pak0.pak", pack_bytes([("progs/a.mdl", b"pak0-a"), ("progs/b.mdl", b"pak0-b"),
                                         ("gfx/c.lmp", b"pak0-c"), ("only0.txt", b"0")]))
    write(root / "pak1.pak", pack_bytes([("progs/a.mdl", b"pak1-a"), ("PROGS/C.MDL", b"pak1-c")]))
    write(root / "pak10.pak", pack_bytes([("progs/c.mdl", b"pak10-c")]))
    write(root / "progs" / "B.MDL", b"loose-b")
    write(root / "progs" / "d.mdl", b"loose-d")
    write(root / "gfx" / "c.lmp", b"loose-c")
    return root


def test_game_folder_paks_override_loose_and_higher_numbers_win(tmp_path):
    root = _game(tmp_path)
    assert [p.name for p in search_archives(root)] == ["pak10.pak", "pak1.pak", "pak0.pak"]
    with GameFolder(root) as game:
        assert not game.loose_first
        assert game.read("progs/a.mdl") == b"pak1-a"
        assert game.read("progs/c.mdl") == b"pak10-c"      # pak10 after pak1 (by number, not by name)
        assert game.read("progs/b.mdl") == b"pak0-b"       # the pak overrides loose progs/B.MDL
        assert game.read("gfx/c.lmp") == b"pak0-c"
        assert game.read("progs/d.mdl") == b"loose-d"      # found case-insensitively on disk too
        assert game.find("PROGS\\D.MDL") == GameFile("progs/d.mdl", None, 7)
        assert game.find("progs/a.mdl") == GameFile("progs/a.mdl", root / "pak1.pak", 6)
        assert game.find("../pak0.pak") is None
        with pytest.raises(ArchiveError, match="not in this game folder"):
            game.read("nothing.txt")
        files = {f.name.lower(): f for f in game.files()}
        assert files["progs/b.mdl"].archive == root / "pak0.pak"
        assert files["progs/c.mdl"].archive == root / "pak10.pak"
        assert files["progs/d.mdl"].archive is None
        assert "pak0.pak" not in files


def test_hexen2_folders_and_loose_first_let_loose_files_win(tmp_path):
    root = _game(tmp_path, "data1")
    with GameFolder(root) as game:
        assert game.loose_first
        assert game.read("progs/b.mdl") == b"loose-b"
        assert game.read("gfx/c.lmp") == b"loose-c"
        assert game.read("progs/a.mdl") == b"pak1-a"
    with GameFolder(_game(tmp_path, "other"), loose_first=True) as game:
        assert game.read("progs/b.mdl") == b"loose-b"
        assert {f.name.lower(): f.archive for f in game.files()}["gfx/c.lmp"] is None


def test_pk3_after_paks_in_name_order(tmp_path):
    root = tmp_path / "mod"
    write(root / "pak0.pak", pack_bytes([("x.txt", b"pak"), ("y.txt", b"pak")]))
    write(root / "zzz.pk3", zip_bytes([("x.txt", b"zzz")]))
    write(root / "aaa.pk3", zip_bytes([("x.txt", b"aaa"), ("y.txt", b"aaa")]))
    write(root / "extra.pak", pack_bytes([("x.txt", b"extra"), ("z.txt", b"extra")]))
    assert [p.name for p in search_archives(root)] == ["zzz.pk3", "aaa.pk3", "pak0.pak", "extra.pak"]
    with GameFolder(root) as game:
        assert game.read("x.txt") == b"zzz" and game.read("y.txt") == b"aaa" and game.read("z.txt") == b"extra"


def test_game_folder_around_a_loose_file_and_an_archive(tmp_path, tmp_path_factory):
    root = _game(tmp_path, "baseq2")
    model = write(root / "models" / "monsters" / "tank" / "tris.md2", b"IDP2")
    game = GameFolder.around(model)
    assert game.root == root.resolve() and game.base is None
    assert GameFolder.around(root / "pak1.pak").root == root.resolve()
    # a folder beside baseq2 is a mod folder (+set game elsewhere): searched first, then baseq2
    mod = GameFolder.around(write(tmp_path / "elsewhere" / "x.md2", b""))
    assert mod.root == (tmp_path / "elsewhere").resolve() and mod.base.root == root
    assert GameFolder.around(write(tmp_path_factory.mktemp("lone") / "x.md2", b"")) is None


def test_game_folder_reports_a_broken_archive_and_goes_on(tmp_path):
    root = _game(tmp_path)
    write(root / "pak2.pak", b"PACK" + bytes(4))
    with GameFolder(root) as game:
        assert game.read("progs/a.mdl") == b"pak1-a"
        assert "pak2.pak" in str(game.problems[0]) and "truncated" in str(game.problems[0])
