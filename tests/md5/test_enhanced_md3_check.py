"""``check --profile q1-enhanced`` on the Enhanced MD3 beside an MDL (cli/md5/enhanced_md3.py), as ironwail
loads it in place of the MDL: a good twin (the MDL's frame count, ``m.md3_<n>.skin`` for each MDL skin naming
exactly the MD3's surfaces, their images present) conforms; each broken variant gives one line naming its
problem; an MD3 with no MDL beside it (Quake III's) is not an enhanced model and is left alone."""
from __future__ import annotations

import struct

import pytest
from support.mdl_models import synthetic_model

FRAMES, SKINS = 3, 2          # synthetic_model: three frame slots, two skins


def md3_bytes(frames: int = FRAMES, surfaces: tuple[str, ...] = ("body", "head")) -> bytes:
    """An MD3 of quads, one per surface, with ``frames`` frames and no tags (written here with struct)."""
    frame = b"".join(struct.pack("<10f16s", -1, -1, -1, 1, 1, 1, 0, 0, 0, 2, f"f{k}".encode()) for k in range(frames))
    shader = struct.pack("<64si", b"", 0)
    tris = struct.pack("<6i", 0, 1, 2, 0, 2, 3)
    st = struct.pack("<8f", 0, 0, 1, 0, 1, 1, 0, 1)
    xyz = b"".join(struct.pack("<3hH", 64 * (v & 1), 64 * (v >> 1), k, 0) for k in range(frames) for v in range(4))
    o_tri, o_st = 108 + len(shader), 108 + len(shader) + len(tris)
    blocks = b"".join(struct.pack("<4s64s10i", b"IDP3", name.encode(), 0, frames, 1, 4, 2, o_tri, 108, o_st,
                                  o_st + len(st), o_st + len(st) + len(xyz)) + shader + tris + st + xyz
                      for name in surfaces)
    ofs_surfaces = 108 + len(frame)
    return struct.pack("<4si64si4i4i", b"IDP3", 15, b"m", 0, frames, 0, len(surfaces), 0, 108, ofs_surfaces,
                       ofs_surfaces, ofs_surfaces + len(blocks)) + frame + blocks


def twin(root, md3: bytes | None = None):
    from formats.mdl.codec import serialize_mdl
    progs = root / "progs"
    progs.mkdir(parents=True)
    (progs / "m.mdl").write_bytes(serialize_mdl(synthetic_model()))
    (progs / "m.md3").write_bytes(md3 or md3_bytes())
    for skin in range(SKINS):
        (progs / f"m.md3_{skin}.skin").write_text(f"body,progs/m_body_{skin}.tga\nhead,progs/m_head_{skin}.tga\n")
        for surface in ("body", "head"):
            (progs / f"m_{surface}_{skin}.png").write_bytes(b"an image")     # any of the ports' extensions
    return progs


def check(run, target):
    result = run("check", "--profile", "q1-enhanced", target, block_bpy=True)
    lines = result.stdout.strip().splitlines()
    return result.returncode, lines[:-1], lines[-1]


def test_a_good_enhanced_md3_conforms_and_a_quake3_md3_is_left_alone(run, tmp_path):
    twin(tmp_path)
    code, lines, summary = check(run, tmp_path)
    assert (code, lines) == (0, []), lines
    assert summary == "checked 1 Quake re-release enhanced model(s): 1 conform, 0 with deviations, 0 with errors"
    other = tmp_path / "q3" / "models"
    other.mkdir(parents=True)
    (other / "box.md3").write_bytes(md3_bytes())                  # no box.mdl beside it
    result = run("check", "--profile", "q1-enhanced", tmp_path / "q3", block_bpy=True)
    assert result.returncode != 0 and "no .md5mesh file in this folder" in result.stderr, result.stderr


BROKEN = {
    "m.md3 has 2 frames, m.mdl 3: ironwail draws MD3 frame k for the MDL's frame k, frame 0 for the MDL's frames "
    "from 2 on": lambda p: (p / "m.md3").write_bytes(md3_bytes(2)),
    "m.md3 has 1 skin file(s), m.mdl 2 skins: ironwail counts m.md3_<n>.skin from 0 while one is there and draws "
    "skin 0 for the others; add m.md3_1.skin": lambda p: (p / "m.md3_1.skin").unlink(),
    "m.md3_0.skin names the surfaces Body, head, the MD3 has body, head: ironwail uses a .skin only when they are "
    "the same, letter case and all": lambda p: (p / "m.md3_0.skin").write_text(
        "Body,progs/m_body_0.tga\nhead,progs/m_head_0.tga\n"),
    "m.md3_1.skin: no image it names is there (progs/m_body_1.tga": lambda p: [
        (p / f"m_{s}_1.png").unlink() for s in ("body", "head")],
    "m.md3_0.skin: 1 of its images are not there (progs/m_head_0.tga ...)": lambda p: (p / "m_head_0.png").unlink(),
}


@pytest.mark.parametrize("expected", list(BROKEN))
def test_each_broken_enhanced_md3_names_its_problem(run, tmp_path, expected):
    progs = twin(tmp_path)
    BROKEN[expected](progs)
    code, lines, summary = check(run, tmp_path)
    assert code == 1 and len(lines) == 1, lines
    assert lines[0].startswith(f"{progs / 'm.md3'}: warning: {expected}"), lines
    assert "1 with deviations" in summary


def test_the_header_line_ironwail_skips_and_the_skin_named_by_the_model_stem(run, tmp_path):
    """A first line whose first comma comes after its line break is a header (skipped); ``m_<n>.skin`` is
    read where ``m.md3_<n>.skin`` is absent (Mod_LoadMD3_ValidateAndCacheSkinPath)."""
    progs = twin(tmp_path)
    text = (progs / "m.md3_0.skin").read_text()
    (progs / "m.md3_0.skin").write_text("// made by hand\n" + text)
    (progs / "m.md3_1.skin").rename(progs / "m_1.skin")
    assert check(run, tmp_path)[:2] == (0, [])
