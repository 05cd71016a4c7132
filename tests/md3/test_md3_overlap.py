"""Blocks that share bytes are refused (as the MD2 and MDL readers refuse them): ``num_tags`` past the tags'
room once read tags out of the surface that follows (a tag named ``IDP3`` + the surface's name) with only
a limit warning. ioquake3's ``R_LoadMD3`` reads whatever lies at each offset; the reader names the count."""
from __future__ import annotations

import struct

import pytest

from formats import FormatError
from formats.md3.codec import read_md3


def md3(num_tags: int | None = None, ofs_st: int | None = None) -> bytes:
    """One frame, one tag ``tag_head``, one surface ``head`` of 3 vertices and a triangle, in qfiles.h order;
    ``num_tags`` and the surface's ``ofs_st`` as given (else as the blocks are)."""
    frame = struct.pack("<10f16s", -1, -1, -1, 1, 1, 1, 0, 0, 0, 2, b"idle")
    tag = struct.pack("<64s12f", b"tag_head", 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1)
    shader = struct.pack("<64si", b"models/x/head.tga", 0)
    tri = struct.pack("<3i", 0, 1, 2)
    st = struct.pack("<6f", 0, 0, 1, 0, 0, 1)
    xyz = b"".join(struct.pack("<3hH", 64 * v, 0, 0, 0) for v in range(3))
    o_sh, o_tri = 108, 108 + len(shader)
    o_st = o_tri + len(tri) if ofs_st is None else ofs_st
    o_xyz = o_tri + len(tri) + len(st)
    o_end = o_xyz + len(xyz)
    surface = struct.pack("<4s64s10i", b"IDP3", b"head", 0, 1, 1, 3, 1, o_tri, o_sh, o_st, o_xyz, o_end) + \
        shader + tri + st + xyz
    ofs_tags = 108 + len(frame)
    ofs_surfaces = ofs_tags + len(tag)
    header = struct.pack("<4si64si4i4i", b"IDP3", 15, b"head", 0, 1, 1 if num_tags is None else num_tags, 1, 0,
                         108, ofs_tags, ofs_surfaces, ofs_surfaces + len(surface))
    return header + frame + tag + surface


def test_the_built_file_reads():
    model = read_md3(md3())
    assert model.tag_names == ["tag_head"] and model.surfaces[0].name == "head"


def test_num_tags_past_the_tags_room_is_refused_naming_the_count():
    with pytest.raises(FormatError) as caught:
        read_md3(md3(num_tags=2))
    error = caught.value
    assert (error.field, error.offset) == ("num_tags", 80)
    assert error.message == ("the tags block (224 bytes at offset 164) runs into the surface 0 header block at "
                             "offset 276: a count or an offset is wrong, so one block would be read out of the "
                             "other's bytes; the file is not imported")


def test_a_surface_block_inside_another_is_refused():
    start = 108 + 56 + 112
    with pytest.raises(FormatError) as caught:
        read_md3(md3(ofs_st=108))           # st placed over the shaders
    assert (caught.value.field, caught.value.offset) == ("surface 0 ofs_st", start + 96)
    assert "the surface 0 st block (24 bytes at offset 384) runs into the surface 0 shaders block at offset 384" \
        in str(caught.value)
