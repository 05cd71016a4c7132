"""Messages for people: bad magics, archive problems and names are written as a person reads them, never as
Python reprs (``magic is b'lK\\xc7\\xdf', expected one of b'IDPO'``, ``'models\\\\mon.mdl'``).

The sweep feeds wrong magics for every model format and for archives, and hostile member names, to the codecs
and to the command line, and checks every message it gets back.
"""
from __future__ import annotations

import pytest
from support.archive_builders import raw_pack, write

from formats.archives.archive import open_archive, unsafe_name, write_archive
from formats.binary import encode_name, name_length_problem
from formats.errors import FormatError
from formats.md2.codec import parse_md2
from formats.mdl.codec import parse_mdl
from formats.message_text import quoted, shown_bytes
from formats.ms3d.codec import parse_ms3d

PYTHON_REPRS = ("b'", 'b"', "\\x", "\\\\", "\\u", "\\t")
BAD_MAGICS = [b"lK\xc7\xdf", b"\x1d\x00\x00\x00", b"\xff\xd8\xff\xe0", b"\x00\x00\x00\x00", b"IDP3", b"PAC\xc7"]
PARSERS = {"md2": parse_md2, "mdl": parse_mdl, "ms3d": parse_ms3d}


def assert_readable(text: str) -> None:
    found = [r for r in PYTHON_REPRS if r in text]
    assert not found, f"Python repr {found} in: {text}"


def hex_bytes(raw: bytes) -> str:
    return " ".join("%02X" % b for b in raw)


def bad_file(magic: bytes, fmt: str) -> bytes:
    """``magic`` where the format's magic goes (MS3D's is ten bytes: the rest of them kept right), then zeros."""
    head = magic + b"000000" if fmt == "ms3d" else magic
    return head + bytes(400)


def test_bytes_and_names_read_as_written():
    assert shown_bytes(b"IDPO") == '"IDPO"'
    assert shown_bytes(b"lK\xc7\xdf") == '6C 4B C7 DF ("lK..")'
    assert shown_bytes(b"\x1d\x00\x00\x00") == "1D 00 00 00"
    assert quoted("C:\\Users\\mon.pcx") == "'C:\\Users\\mon.pcx'"       # one backslash each, as typed
    assert quoted("a\x01b\x85") == "'a<01>b<85>'"
    assert quoted("sk\udce9n.pcx") == "'sk<E9>n.pcx'"                     # a non-UTF-8 byte of a name on disk
    assert quoted(b"IDP2") == '"IDP2"'


@pytest.mark.parametrize("fmt", PARSERS)
@pytest.mark.parametrize("magic", BAD_MAGICS, ids=hex_bytes)
def test_wrong_magic_shows_the_bytes_as_hex_and_text(fmt, magic):
    with pytest.raises(FormatError) as caught:
        PARSERS[fmt](bad_file(magic, fmt))
    message = str(caught.value)
    assert_readable(message)
    got = bad_file(magic, fmt)[:10 if fmt == "ms3d" else 4]
    printable = all(0x20 <= b < 0x7F for b in got)
    assert (f'"{got.decode("ascii")}"' if printable else hex_bytes(got)) in message
    expected = {"md2": ['"IDP2"'], "mdl": ['"IDPO"', '"MD16"', '"RAPO"'], "ms3d": ['"MS3D000000"']}[fmt]
    assert all(e in message for e in expected), message


def test_archive_messages_name_members_as_typed(tmp_path):
    bad = write(tmp_path / "bad.pak", b"PAC\xc7" + bytes(60))
    with pytest.raises(FormatError) as caught:
        open_archive(bad)
    assert_readable(str(caught.value))
    assert "50 41 43 C7" in str(caught.value)

    entries = [(name.ljust(56, b"\0"), 12, 4) for name in (b"models\\mon.mdl", b"MODELS\\MON.mdl", b"c\x85d.mdl",
                                                           b"a\x01b.mdl")]
    with open_archive(write(tmp_path / "names.pak", raw_pack(b"IDPO", entries))) as archive:
        texts = archive.warnings + [str(p) for p in archive.problems]
    assert any("duplicate member 'MODELS\\MON.mdl'" in t for t in texts), texts
    assert any("a<01>b.mdl" in t for t in texts) and any("c<85>d.mdl" in t for t in texts), texts
    for text in texts:
        assert_readable(text)
    for name in ("a\\..\\b", "a:b", "a\tb"):
        assert_readable(unsafe_name(name))
    with pytest.raises(FormatError) as caught:
        write_archive(tmp_path / "x.pak", [("a\\b.mdl", b"x")])
    assert_readable(str(caught.value))


def test_name_problems_quote_names_as_typed():
    for name in ("C:\\Users\\mon", "na\u20acme", "tab\there"):
        with pytest.raises(FormatError) as caught:
            encode_name(name * 4, 16, "frame name")
        assert_readable(str(caught.value))
        assert_readable(name_length_problem("frame name", name * 4, 16))


def test_command_line_messages_sweep(run, tmp_path):
    files = [write(tmp_path / f"{fmt}_{i}.{fmt}", bad_file(magic, fmt))
             for fmt in PARSERS for i, magic in enumerate(BAD_MAGICS)]
    paks = [write(tmp_path / "magic.pak", b"PAC\xc7" + bytes(60)),
            write(tmp_path / "names.pak", raw_pack(b"IDPO" + bytes(80), [
                (b"progs\\mon.mdl".ljust(56, b"\0"), 12, 84), (b"PROGS\\MON.mdl".ljust(56, b"\0"), 12, 84),
                (b"x\x85y.mdl".ljust(56, b"\0"), 12, 84), (b"a\x01b.mdl".ljust(56, b"\0"), 12, 84)]))]
    for command, paths in (("info", files + paks), ("check", files + paks), ("list", paks)):
        result = run(command, *paths, block_bpy=True)
        output = result.stdout + result.stderr
        assert "Traceback" not in output and output.strip(), output
        for line in output.splitlines():
            assert_readable(line)
    result = run("check", *files, block_bpy=True)
    assert result.stdout.count("magic is 6C 4B C7 DF") == 2 and "id is 6C 4B C7 DF 30" in result.stdout
    assert 'expected "IDPO", "MD16" or "RAPO"' in result.stdout
