"""The MD5 text split in one pass (issue 33: an edited MD5 export reads the imported files' text back) gives
the tokens, quoted flags and byte spans of a byte-by-byte lexer written here from the rules (gaps of bytes up to
space, ``//`` and ``/* */`` comments; quoted strings; the punctuation ``{}()':``; any other run up to a gap or
punctuation but a colon or quote; the text ends at the first NUL), on every corpus MD5 file and on copies broken by inserted quotes,
comment starts, NULs, punctuation and cuts; and it no longer makes Python calls per token (fails on the old code,
which matched token by token)."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from support.work_count import measure

from formats.errors import FormatError
from formats.md5.text import Md5Text

MD5_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "md5"
FILES = sorted(MD5_DIR.rglob("*.md5*"))
PUNCTUATION = (b"{", b"}", b"(", b")", b"'", b":")
SPACES, RUN = re.compile(rb"[\x00-\x20]+"), re.compile(rb"[^\x00-\x20{}()']*")   # runs of one class of bytes
INSERTS = [b'"', b"/*", b"//", b"*/", b"\0", b" ", b"(", b"}", b'x"y', b"'", b":", b"/", b"\n"]
SMALL = [b"", b" ", b"a", b'"', b'"ab', b"a // c", b"a /* b", b"//", b"a\0 b", b'"a"b"c', b"/x/y z", b"a//b c",
         b"a /* b */ c", b'x "" y', b"(1.0 2)", b"a'b:c", b"\n\n\t", b"a /* unclosed\n b",
         b'"a""b"', b'a "x//y" // "z\n w', b'"q"//c\nd', b'x//"\n"y"', b"}//\n{", b"a/b // c", b"a: b", b"//\n\"a b"]


def corpus() -> list[bytes]:
    if not FILES:
        pytest.skip(f"corpus not found at {MD5_DIR}")
    return [path.read_bytes() for path in FILES]


def broken(texts: list[bytes]) -> list[bytes]:
    rng = random.Random(33)
    out = []
    for text in texts[:40]:
        for _ in range(12):
            at = rng.randrange(len(text) + 1)
            out.append(text[:at] + rng.choice(INSERTS) + text[at:])
        out.append(text[:rng.randrange(len(text) + 1)])
    return out


def scanned(text: bytes):
    try:
        split = Md5Text(text, "test.md5mesh")
    except FormatError as exc:
        return "open quote", str(exc)
    return split.tokens, split.quoted, split.starts, split.ends


def lexed(data: bytes) -> tuple[list, list, list, list]:
    """(tokens, quoted, starts, ends) byte by byte; a ValueError naming the offset of a quoted string left open."""
    size = data.find(b"\0") if b"\0" in data else len(data)
    tokens, quoted, starts, ends = [], [], [], []
    i = 0
    while True:
        while i < size:                                        # the gap before a token
            if data[i] <= 0x20:
                i = SPACES.match(data, i, size).end()
            elif data[i:i + 2] == b"//" and i + 1 < size:
                end = data.find(b"\n", i, size)
                i = size if end < 0 else end
            elif data[i:i + 2] == b"/*" and i + 1 < size:
                end = data.find(b"*/", i + 2, size)
                i = size if end < 0 else end + 2
            else:
                break
        if i >= size:
            return tokens, quoted, starts, ends
        if data[i:i + 1] == b'"':
            end = data.find(b'"', i + 1, size)
            if end < 0:
                raise ValueError(i)
            token, is_quoted, stop = data[i + 1:end], True, end + 1
        elif data[i:i + 1] in PUNCTUATION:
            token, is_quoted, stop = data[i:i + 1], False, i + 1
        else:
            stop = RUN.match(data, i + 1, size).end()         # a quote or a colon inside a run is the run's
            token, is_quoted = data[i:stop], False
        tokens.append(token)
        quoted.append(is_quoted)
        starts.append(i)
        ends.append(stop)
        i = stop


def expected(text: bytes):
    """The lexer's result; for a quoted string left open, the error naming its line."""
    try:
        return lexed(text)
    except ValueError as exc:
        line = text[:exc.args[0]].count(b"\n") + 1
        return "open quote", str(FormatError("a quoted string is not closed before the end of the file",
                                             field=f"test.md5mesh line {line}"))


def test_tokens_and_spans_are_the_byte_by_byte_lexers():
    texts = corpus()
    for text in texts + broken(texts) + SMALL:
        assert scanned(text) == expected(text), text[:80]


def test_no_python_calls_per_token():
    text = max(corpus(), key=len)
    work = measure(Md5Text, text, "test.md5mesh", memory=False)
    assert len(work.result.tokens) > 10_000
    assert work.calls < len(work.result.tokens) / 100


@pytest.mark.parametrize("bad", [b"1.5x", b"--2", b"0x10", b'"0.5"', b"1e", b"."])
def test_a_bad_number_is_named_at_its_line(bad):
    """A column of numbers is checked in one match and, when that fails, cell by cell as before: the error
    still names the line of the first bad number (identity test: passes on the old code)."""
    from formats.md5.anim import read_md5anim
    from formats.md5.mesh import read_md5mesh
    rng = random.Random(bad)
    for path in FILES[:: max(1, len(FILES) // 12)]:
        text = path.read_bytes()
        numbers = [m for m in re.finditer(rb"(?<=[ \t])-?[0-9]+\.[0-9]+(?=[ \t\n\r])", text)]
        if not numbers:
            continue
        hit = rng.choice(numbers)
        broken = text[:hit.start()] + bad + text[hit.end():]
        read = read_md5mesh if path.suffix == ".md5mesh" else read_md5anim
        line = text[:hit.start()].count(b"\n") + 1
        with pytest.raises(FormatError) as error:
            read(broken)
        assert f"line {line}" in str(error.value), (path, str(error.value))


def _long_anim(frames: int) -> tuple[bytes, list[list[float]]]:
    rows = [[round(0.25 * f, 2), -1.5, 2e-3 * f, 0.0, 0.5, -0.125] for f in range(frames)]
    text = ["MD5Version 10", 'commandline ""', f"numFrames {frames}", "numJoints 2", "frameRate 24",
            "numAnimatedComponents 6", "", "hierarchy {", '\t"root"\t-1 63 0\t// the root', '\t"tip"\t0 0 0\t// root',
            "}", "", "bounds {"] + ["\t( -1 -1 -1 ) ( 1 1 1 )"] * frames + ["}", "", "baseframe {",
            "\t( 0 0 0 ) ( 0 0 0 )", "\t( 0 0 1 ) ( 0 0 0 )", "}", ""]
    for f, row in enumerate(rows):
        text += [f"frame {f} {{", "\t" + " ".join(repr(v) for v in row), "}", ""]
    return "\n".join(text).encode(), rows


def test_an_anims_frames_are_read_without_python_calls_per_frame():
    """Issue 44: the frame blocks are checked a column at a time and converted at once (the previous reader
    made about 26 Python calls a frame, 26,000 for this anim); the numbers are the text's."""
    from formats.md5.anim import read_md5anim
    data, rows = _long_anim(1000)
    work = measure(read_md5anim, data, memory=False)
    assert work.result.frames.tolist() == rows
    assert work.calls < 1000, work.calls
