"""PCX decoding and encoding: real skins, round trips, hand-built files and every way to break one.

Hand-built files come from the tiny encoder below, written with ``struct`` and a plain Python loop
so that it shares nothing with :mod:`formats.images.pcx`.
"""
from __future__ import annotations

import struct
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from formats.errors import FormatError
from formats.images.pcx import PcxImage, decode_pcx, encode_pcx

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
ZARLAG = CORPUS / "md2" / "petaaar88-zarlag"
HEADER_FORMAT = "<BBBBHHHHHH48sBBHHHH54s"


def corpus_skins() -> list[Path]:
    if not ZARLAG.is_dir():
        return []
    return sorted(set(ZARLAG.glob("*.pcx")) | set(ZARLAG.glob("*.PCX")))


def header_bytes(width: int, height: int, *, planes: int = 1, bytes_per_line: int | None = None,
                 encoding: int = 1, bits: int = 8, xmin: int = 0, ymin: int = 0,
                 manufacturer: int = 0x0A) -> bytes:
    bytes_per_line = width if bytes_per_line is None else bytes_per_line
    return struct.pack(HEADER_FORMAT, manufacturer, 5, encoding, bits, xmin, ymin,
                       xmin + width - 1, ymin + height - 1, 72, 72, b"\0" * 48, 0, planes,
                       bytes_per_line, 1, 0, 0, b"\0" * 54)


def rle_bytes(stream: list[int]) -> bytes:
    """Run-length encode one flat byte sequence (runs freely cross scanlines and planes)."""
    out = bytearray()
    i = 0
    while i < len(stream):
        run = 1
        while i + run < len(stream) and stream[i + run] == stream[i] and run < 63:
            run += 1
        if run == 1 and stream[i] < 0xC0:
            out.append(stream[i])
        else:
            out += bytes([0xC0 | run, stream[i]])
        i += run
    return bytes(out)


def rle_reference_decode(stream: bytes, needed: int) -> list[int]:
    out: list[int] = []
    pos = 0
    while len(out) < needed:
        byte = stream[pos]
        if byte >= 0xC0:
            out += [stream[pos + 1]] * (byte & 0x3F)
            pos += 2
        else:
            out.append(byte)
            pos += 1
    return out[:needed]


def build_pcx(planes_rows: np.ndarray, *, bytes_per_line: int | None = None, pad_value: int = 0xEE,
              palette: bytes | None = None, encoding: int = 1, xmin: int = 0, ymin: int = 0) -> bytes:
    """``planes_rows`` is (height, planes, width); each plane line is padded to bytes_per_line."""
    height, planes, width = planes_rows.shape
    bytes_per_line = width if bytes_per_line is None else bytes_per_line
    stream: list[int] = []
    for row in planes_rows:
        for line in row:
            stream += [int(v) for v in line] + [pad_value] * (bytes_per_line - width)
    body = rle_bytes(stream) if encoding == 1 else bytes(stream)
    tail = b"" if palette is None else palette
    return header_bytes(width, height, planes=planes, bytes_per_line=bytes_per_line,
                        encoding=encoding, xmin=xmin, ymin=ymin) + body + tail


def random_palette(seed: int = 1) -> np.ndarray:
    palette = np.random.default_rng(seed).integers(0, 256, (256, 3), dtype=np.uint8)
    palette[0] = (0, 0, 0)
    return palette


def marked(palette: np.ndarray) -> bytes:
    return b"\x0c" + palette.tobytes()


# -- real skins ------------------------------------------------------------------------------

@pytest.mark.parametrize("path", corpus_skins() or [None], ids=lambda p: p.name if p else "none")
def test_real_skin_matches_its_header_and_palette(path: Path | None) -> None:
    if path is None:
        pytest.skip(f"no PCX skins under {ZARLAG} (shared corpus absent)")
    data = path.read_bytes()
    fields = struct.unpack(HEADER_FORMAT, data[:128])
    xmin, ymin, xmax, ymax = fields[4:8]
    planes, bytes_per_line = fields[12], fields[13]
    width, height = xmax - xmin + 1, ymax - ymin + 1

    image = decode_pcx(data)

    assert (image.width, image.height) == (width, height)
    assert image.rgba.shape == (height, width, 4) and image.rgba.dtype == np.uint8
    assert image.indices.shape == (height, width) and image.indices.dtype == np.uint8
    assert image.palette.tobytes() == data[-768:]
    assert data[-769] == 0x0C
    np.testing.assert_array_equal(image.rgba[..., :3], image.palette[image.indices])
    assert (image.rgba[..., 3] == 255).all()
    reference = np.array(rle_reference_decode(data[128:], bytes_per_line * planes * height),
                         dtype=np.uint8).reshape(height, bytes_per_line)[:, :width]
    np.testing.assert_array_equal(image.indices, reference)


def test_zarlag_skin_is_512_by_256() -> None:
    if not (ZARLAG / "zarlag.pcx").is_file():
        pytest.skip(f"{ZARLAG / 'zarlag.pcx'} absent (shared corpus not mounted)")
    image = decode_pcx((ZARLAG / "zarlag.pcx").read_bytes())
    assert (image.width, image.height) == (512, 256)


# -- round trip through our own encoder ------------------------------------------------------

def runny_indices(height: int, width: int, seed: int) -> np.ndarray:
    """Random indices plus runs longer than 63, runs of values >= 0xC0 and lone high bytes."""
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, 256, (height, width), dtype=np.uint8)
    indices[:, : min(width, 150)] = 0xC7
    indices[height // 2, width // 3:] = 0x11
    indices[-1, -1] = 0xFF
    indices[0, -1] = 0xC0
    return indices


@pytest.mark.parametrize("height, width", [(1, 1), (1, 2), (3, 37), (17, 200), (64, 129)])
def test_encode_decode_round_trip(height: int, width: int) -> None:
    indices = runny_indices(height, width, seed=height * 1000 + width)
    palette = random_palette()

    data = encode_pcx(indices, palette)
    image = decode_pcx(data)

    np.testing.assert_array_equal(image.indices, indices)
    np.testing.assert_array_equal(image.palette, palette)
    np.testing.assert_array_equal(image.rgba[..., :3], palette[indices])
    fields = struct.unpack(HEADER_FORMAT, data[:128])
    assert fields[13] % 2 == 0 and fields[13] >= width
    assert data[-769] == 0x0C


def test_encoder_output_agrees_with_reference_decoder() -> None:
    indices = runny_indices(9, 77, seed=5)
    data = encode_pcx(indices, random_palette())
    decoded = np.array(rle_reference_decode(data[128:-769], 9 * 78), dtype=np.uint8)
    np.testing.assert_array_equal(decoded.reshape(9, 78)[:, :77], indices)


def test_encode_rejects_bad_arrays() -> None:
    with pytest.raises(FormatError):
        encode_pcx(np.zeros((2, 2), dtype=np.int32), random_palette())
    with pytest.raises(FormatError):
        encode_pcx(np.zeros((2, 2), dtype=np.uint8), np.zeros((16, 3), dtype=np.uint8))
    with pytest.raises(FormatError):
        encode_pcx(np.zeros((0, 4), dtype=np.uint8), random_palette())


# -- hand-built files ------------------------------------------------------------------------

def test_24_bit_rgb_with_runs_across_scanlines() -> None:
    rng = np.random.default_rng(7)
    rgb = rng.integers(0, 256, (5, 9, 3), dtype=np.uint8)
    rgb[1:3] = (0xC8, 0x10, 0xFF)
    data = build_pcx(rgb.transpose(0, 2, 1))

    image = decode_pcx(data)

    assert (image.width, image.height) == (9, 5)
    assert image.indices is None and image.palette is None
    np.testing.assert_array_equal(image.rgba[..., :3], rgb)
    assert (image.rgba[..., 3] == 255).all()


def test_24_bit_drops_padding_of_every_plane_line() -> None:
    rgb = np.random.default_rng(8).integers(0, 256, (4, 5, 3), dtype=np.uint8)
    image = decode_pcx(build_pcx(rgb.transpose(0, 2, 1), bytes_per_line=8, pad_value=0xAB))
    np.testing.assert_array_equal(image.rgba[..., :3], rgb)


def test_8_bit_drops_padding_at_scanline_ends() -> None:
    indices = np.random.default_rng(9).integers(0, 256, (6, 7), dtype=np.uint8)
    palette = random_palette()
    data = build_pcx(indices[:, None, :], bytes_per_line=10, pad_value=0xEE, palette=marked(palette))

    image = decode_pcx(data)

    assert (image.width, image.height) == (7, 6)
    np.testing.assert_array_equal(image.indices, indices)


def test_8_bit_runs_crossing_scanlines() -> None:
    indices = np.full((4, 10), 3, dtype=np.uint8)
    indices[2:] = 0xD0
    data = build_pcx(indices[:, None, :], palette=marked(random_palette()))
    assert len(data) < 128 + 8 + 769
    np.testing.assert_array_equal(decode_pcx(data).indices, indices)


def test_size_comes_from_xmin_xmax_not_from_zero() -> None:
    indices = np.arange(12, dtype=np.uint8).reshape(3, 4)
    data = build_pcx(indices[:, None, :], palette=marked(random_palette()), xmin=100, ymin=40)
    image = decode_pcx(data)
    assert (image.width, image.height) == (4, 3)
    np.testing.assert_array_equal(image.indices, indices)


def test_control_byte_data_is_data_even_when_high() -> None:
    stream = bytes([0xC2, 0xC1, 0xC1, 0xC0, 0x05, 0xC1, 0xC2, 0xC3, 0x05, 0xC0, 0x77, 0x09])
    expected = [0xC1, 0xC1, 0xC0, 0x05, 0xC2, 0x05, 0x05, 0x05, 0x09]
    palette = random_palette()
    data = header_bytes(9, 1) + stream + marked(palette)
    np.testing.assert_array_equal(decode_pcx(data).indices[0], expected)


def test_uncompressed_encoding_zero() -> None:
    indices = np.random.default_rng(10).integers(0, 256, (3, 6), dtype=np.uint8)
    data = build_pcx(indices[:, None, :], encoding=0, palette=marked(random_palette()))
    np.testing.assert_array_equal(decode_pcx(data).indices, indices)


def test_palette_without_marker() -> None:
    indices = runny_indices(5, 11, seed=3)
    palette = random_palette()
    palette[0] = (0x0C + 1, 0, 0)
    with_marker = encode_pcx(indices, palette)
    without = with_marker[:-769] + with_marker[-768:]
    assert without[-769] != 0x0C

    image = decode_pcx(without)

    np.testing.assert_array_equal(image.palette, palette)
    np.testing.assert_array_equal(image.indices, indices)


def test_palette_without_marker_after_junk() -> None:
    palette = random_palette()
    data = build_pcx(np.ones((2, 1, 3), dtype=np.uint8), palette=b"\x01\x02\x03" + palette.tobytes())
    np.testing.assert_array_equal(decode_pcx(data).palette, palette)


def test_markerless_palette_starting_with_0x0c_reads_as_a_cut_palette() -> None:
    palette = random_palette()
    palette[0, 0] = 0x0C
    data = build_pcx(np.ones((2, 1, 3), dtype=np.uint8), palette=palette.tobytes())
    with pytest.raises(FormatError) as info:
        decode_pcx(data)
    assert info.value.field == "palette"


# -- malformed input -------------------------------------------------------------------------

def small_8_bit() -> bytes:
    return encode_pcx(runny_indices(3, 5, seed=11), random_palette())


def small_24_bit() -> bytes:
    rgb = np.random.default_rng(12).integers(0, 256, (3, 4, 3), dtype=np.uint8)
    rgb[0] = 0xC9
    return build_pcx(rgb.transpose(0, 2, 1))


@pytest.mark.parametrize("make", [small_8_bit, small_24_bit])
def test_every_truncation_raises(make: Callable[[], bytes]) -> None:
    data = make()
    assert isinstance(decode_pcx(data), PcxImage)
    for cut in range(len(data)):
        with pytest.raises(FormatError):
            decode_pcx(data[:cut])


def test_short_header() -> None:
    with pytest.raises(FormatError) as info:
        decode_pcx(small_8_bit()[:100])
    assert info.value.field == "header"


def test_bad_manufacturer() -> None:
    data = bytearray(small_8_bit())
    data[0] = 0x0B
    with pytest.raises(FormatError) as info:
        decode_pcx(bytes(data))
    assert info.value.field == "manufacturer" and "0x0B" in str(info.value)


@pytest.mark.parametrize("bits, planes", [(1, 1), (4, 1), (1, 4), (8, 4), (8, 2), (24, 1)])
def test_unsupported_depth(bits: int, planes: int) -> None:
    data = header_bytes(4, 4, bits=bits, planes=planes) + bytes(2000)
    with pytest.raises(FormatError) as info:
        decode_pcx(data)
    assert info.value.field == "bits_per_pixel/planes"


def test_unknown_encoding() -> None:
    with pytest.raises(FormatError) as info:
        decode_pcx(header_bytes(4, 4, encoding=2) + bytes(2000))
    assert info.value.field == "encoding"


def test_negative_size() -> None:
    data = bytearray(small_8_bit())
    struct.pack_into("<HH", data, 4, 10, 0)
    struct.pack_into("<HH", data, 8, 9, 2)
    with pytest.raises(FormatError) as info:
        decode_pcx(bytes(data))
    assert info.value.field == "xmin/ymin/xmax/ymax"


def test_bytes_per_line_below_width() -> None:
    with pytest.raises(FormatError) as info:
        decode_pcx(header_bytes(8, 2, bytes_per_line=7) + bytes(2000))
    assert info.value.field == "bytes_per_line"


@pytest.mark.parametrize("planes", [1, 3])
def test_absurd_size_is_refused_before_allocating(planes: int) -> None:
    data = header_bytes(65535, 65535, planes=planes, bytes_per_line=65535) + bytes(72)
    tracemalloc.start()
    try:
        with pytest.raises(FormatError) as info:
            decode_pcx(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    assert info.value.field == "xmin/ymin/xmax/ymax"


def test_size_beyond_what_raw_data_holds() -> None:
    with pytest.raises(FormatError):
        decode_pcx(header_bytes(40, 40, encoding=0) + bytes(1599))


def test_compressed_data_ending_early() -> None:
    data = header_bytes(64, 4) + bytes([0xFF, 0x01] * 3)
    with pytest.raises(FormatError) as info:
        decode_pcx(data)
    assert info.value.field == "image"


def test_missing_palette() -> None:
    data = build_pcx(np.full((8, 1, 8), 0x21, dtype=np.uint8))
    with pytest.raises(FormatError) as info:
        decode_pcx(data)
    assert info.value.field == "palette"
