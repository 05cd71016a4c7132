"""Quake .lmp pictures (formats/images/lmp.py): the layout ironwail's Image_LoadLMP reads, sizes checked
against the file's length, the re-release's skin names."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from formats.errors import FormatError
from formats.images.lmp import read_lmp, skin_name, write_lmp


def test_layout_is_two_little_endian_uint32_then_rows():
    pixels = np.array([[1, 2, 3], [224, 250, 255]], np.uint8)
    data = write_lmp(pixels)
    assert data == struct.pack("<II", 3, 2) + bytes([1, 2, 3, 224, 250, 255])
    assert np.array_equal(read_lmp(data), pixels)


def test_round_trip_of_random_pictures():
    rng = np.random.default_rng(5)
    for height, width in ((1, 1), (64, 32), (17, 301)):
        pixels = rng.integers(0, 256, (height, width), dtype=np.uint8)
        data = write_lmp(pixels)
        assert len(data) == 8 + width * height
        assert np.array_equal(read_lmp(data), pixels)
        assert write_lmp(read_lmp(data)) == data


@pytest.mark.parametrize("data,message", [
    (b"", "shorter than the 8-byte"),
    (struct.pack("<I", 4), "shorter than the 8-byte"),
    (struct.pack("<II", 2, 2) + bytes(3), "need 12 bytes, the file has 11"),
    (struct.pack("<II", 2, 2) + bytes(5), "need 12 bytes, the file has 13"),
    (struct.pack("<II", 0xFFFFFFFF, 0xFFFFFFFF) + bytes(4), "the file has 12"),
])
def test_size_that_disagrees_with_the_file_is_refused(data, message):
    with pytest.raises(FormatError, match=message):
        read_lmp(data)


def test_every_cut_of_a_picture_is_refused():
    data = write_lmp(np.arange(12, dtype=np.uint8).reshape(3, 4))
    for end in range(len(data)):
        with pytest.raises(FormatError):
            read_lmp(data[:end])


@pytest.mark.parametrize("pixels", [np.zeros((2, 2), np.int32), np.zeros(4, np.uint8), np.zeros((0, 3), np.uint8)])
def test_writer_refuses_what_is_not_a_picture(pixels):
    with pytest.raises(FormatError):
        write_lmp(pixels)


def test_skin_names_as_the_ports_build_them():
    assert skin_name("ogre", 0) == "progs/ogre_00_00.lmp"
    assert skin_name("player", 1, 12) == "progs/player_01_12.lmp"
