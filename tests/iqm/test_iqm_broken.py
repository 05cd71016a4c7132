"""Broken IQM files refused with a FormatError naming the field and its byte offset, each read without
an allocation its header's counts drive (traced: under 1 MB for a file of about 1 KB)."""
from __future__ import annotations

import struct
import tracemalloc

import pytest
from support.iqm_files import build, header_at

from formats import FormatError
from formats.iqm.codec import read_iqm

DATA, FACTS = build()
OFS = FACTS["offsets"]
NAN = float("nan")


def u32(offset: int, value: int):
    return lambda data: struct.pack_into("<I", data, offset, value)


def f32(offset: int, value: float):
    return lambda data: struct.pack_into("<f", data, offset, value)


def header(name: str, value: int):
    return u32(header_at(name), value)


def cut(size: int):
    return lambda data: data.__delitem__(slice(size, None))


CASES = {   # name: (change to the built file, field, offset)
    "magic of an MD3": (lambda d: d.__setitem__(slice(0, 16), b"IDP3" + bytes(12)), "magic", 0),
    "version 1": (header("version", 1), "version", header_at("version")),
    "header cut short": (cut(60), "header", 0),
    "file cut in half": (cut(len(DATA) // 2), "filesize", header_at("filesize")),
    "filesize under the header": (header("filesize", 100), "filesize", header_at("filesize")),
    "num_text past the file": (header("num_text", 0xFFFFFFF0), "num_text", header_at("num_text")),
    "num_meshes past the file": (header("num_meshes", 0x7FFFFFFF), "num_meshes", header_at("num_meshes")),
    "num_vertexes past the file": (header("num_vertexes", 0x7FFFFFFF), "vertex array 0 offset", OFS["vertexarrays"] + 16),
    "num_joints past the file": (header("num_joints", 0xFFFFFFFF), "num_joints", header_at("num_joints")),
    "num_frames past the file": (header("num_frames", 0xFFFFFFFF), "num_frames", header_at("num_frames")),
    "frames without data, 2^31 of them": (lambda d: (header("num_frames", 1 << 31)(d), header("num_framechannels", 0)(d),
                                                     header("ofs_bounds", 0)(d)), "num_frames", header_at("num_frames")),
    "2^31 frames of no pose": (lambda d: [header(n, v)(d) for n, v in (("num_frames", 1 << 31), ("num_poses", 0),
                                                                       ("num_framechannels", 0), ("ofs_bounds", 0))],
                               "num_frames", header_at("num_frames")),
    "vertices no array holds": (lambda d: [header(n, v)(d) for n, v in (("num_vertexes", 1 << 31),
                                                                          ("num_vertexarrays", 0))],
                                "num_vertexes", header_at("num_vertexes")),
    "num_extensions past the file": (header("num_extensions", 0xFFFFFFFF), "num_extensions",
                                     header_at("num_extensions")),
    "joints run into the poses": (header("num_joints", 4), "num_joints", header_at("num_joints")),
    "poses where the joints are": (header("ofs_poses", OFS["joints"]), "num_joints", header_at("num_joints")),
    "comment over the frames": (header("ofs_comment", OFS["frames"]), "num_comment", header_at("num_comment")),
    "vertex array format 9": (u32(OFS["vertexarrays"] + 8, 9), "vertex array 0 format", OFS["vertexarrays"] + 8),
    "position NaN": (f32(OFS["array0"] + 2 * 12 + 4, NAN), "vertex array 0 vertex 2", OFS["array0"] + 24),
    "joint translate NaN": (f32(OFS["joints"] + 48 + 8, NAN), "joint 1 translate", OFS["joints"] + 48 + 8),
    "pose scale infinite": (f32(OFS["poses"] + 48 + 4, float("inf")), "pose 0 channelscale", OFS["poses"] + 48),
    "bounds NaN": (f32(OFS["bounds"] + 32 + 28, NAN), "bounds 1 radius", OFS["bounds"] + 32 + 28),
    "anim framerate NaN": (f32(OFS["anims"] + 12, NAN), "anim 0 framerate", OFS["anims"] + 12),
    "joint parent after it": (u32(OFS["joints"] + 4, 2), "joint 0 parent", OFS["joints"] + 4),
    "pose parent -2": (u32(OFS["poses"] + 88, 0xFFFFFFFE), "pose 1 parent", OFS["poses"] + 88),
    "triangle index past the vertices": (u32(OFS["triangles"] + 12 + 8, 5), "triangle 1", OFS["triangles"] + 20),
    "mesh past the vertices": (u32(OFS["meshes"] + 24 + 12, 3), "mesh 1 num_vertexes", OFS["meshes"] + 36),
    "mesh past the triangles": (u32(OFS["meshes"] + 20, 4), "mesh 0 num_triangles", OFS["meshes"] + 20),
    "mesh name past the text": (u32(OFS["meshes"], len(FACTS["text"])), "mesh 0 name", OFS["meshes"]),
    "joint name past the text": (u32(OFS["joints"] + 96, 10_000), "joint 2 name", OFS["joints"] + 96),
    "anim past the frames": (u32(OFS["anims"] + 20 + 8, 2), "anim 1 num_frames", OFS["anims"] + 28),
    "frame channels not the masks'": (header("num_framechannels", 6), "num_framechannels",
                                      header_at("num_framechannels")),
    "extension chain loops": (lambda d: (u32(OFS["ext1"] + 12, OFS["ext0"])(d), header("num_extensions", 3)(d)),
                              "extension 1 ofs_extensions", OFS["ext1"] + 12),
    "extension past the file": (u32(OFS["ext0"] + 12, len(DATA) + 100), "extension 0 ofs_extensions",
                                OFS["ext0"] + 12),
    "extension data past the file": (u32(OFS["ext1"] + 4, 0x7FFFFFFF), "extension 1 num_data", OFS["ext1"] + 4),
}


@pytest.mark.parametrize("case", CASES)
def test_broken_file_refused_naming_field_and_offset(case):
    change, field, offset = CASES[case]
    data = bytearray(DATA)
    change(data)
    tracemalloc.start()
    try:
        with pytest.raises(FormatError) as caught:
            read_iqm(bytes(data))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    error = caught.value
    assert (error.field, error.offset) == (field, offset), str(error)
    assert peak < 1_000_000
    text = str(error)
    assert f"offset {offset}" in text and "b'" not in text and "\\x" not in text


def test_the_unbroken_file_reads():
    """The cases above break one thing each: the file they start from is read whole."""
    assert read_iqm(DATA).num_frames == 4


def test_bad_magic_names_the_format_the_file_is():
    data = b"IDP3" + DATA[4:]
    with pytest.raises(FormatError, match="MD3"):
        read_iqm(data)
