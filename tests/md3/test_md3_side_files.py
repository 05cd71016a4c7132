"""Quake III .skin and animation.cfg without Blender: every corpus file back byte for byte and against
a plain line reader, the engine's parsing rules (tag_ lines, comments, quotes, the legs offset, the
optional Team Arena animations), refusals, edits written."""
from __future__ import annotations

import re

import pytest
from support.environment import corpus_params

from formats import FormatError
from formats.md3.animation_cfg import (
    ANIMATION_NAMES,
    REQUIRED_ANIMATIONS,
    Md3Animation,
    parse_animation_cfg,
    write_animation_cfg,
)
from formats.md3.skin_file import SkinEntry, engine_surface_name, parse_skin, write_skin

SKINS = corpus_params("md3/**/*.skin")
CFGS = corpus_params("md3/**/animation.cfg")


def plain_skin(data: bytes) -> list[tuple[str, str]]:
    """The simple reading of a well-formed skin: one ``surface,shader`` per line, tag_ lines skipped."""
    out = []
    for line in data.decode("latin-1").splitlines():
        line = line.split("//")[0].strip()
        if not line or "tag_" in line.split(",")[0]:
            continue
        surface, _, shader = line.partition(",")
        out.append((surface.strip().lower(), shader.strip()))
    return out


def plain_cfg(data: bytes) -> list[tuple[int, int, int, float]]:
    """Lines that start with four numbers, comments cut."""
    rows = []
    for line in data.decode("latin-1").splitlines():
        fields = line.split("//")[0].split()
        if len(fields) >= 4 and all(re.fullmatch(r"-?\d+(\.\d*)?", f) for f in fields[:4]):
            rows.append((int(fields[0]), int(fields[1]), int(fields[2]), float(fields[3])))
    return rows


@pytest.mark.parametrize("path", SKINS)
def test_corpus_skin_round_trips_and_matches_plain_reading(path):
    data = path.read_bytes()
    skin = parse_skin(data)
    assert write_skin(skin) == data
    assert [(e.surface, e.shader) for e in skin.entries] == plain_skin(data)


@pytest.mark.parametrize("path", CFGS)
def test_corpus_cfg_round_trips_and_matches_plain_reading(path):
    data = path.read_bytes()
    cfg = parse_animation_cfg(data)
    assert write_animation_cfg(cfg) == data
    assert [(a.first, a.num, a.looping, a.fps) for a in cfg.animations] == plain_cfg(data)
    assert [a.name for a in cfg.animations] == list(ANIMATION_NAMES[:len(cfg.animations)])
    rows = plain_cfg(data)
    assert cfg.legs_skip == rows[13][0] - rows[6][0]
    assert cfg.model_first_frame(ANIMATION_NAMES.index("LEGS_IDLE")) == rows[22][0] - cfg.legs_skip
    assert cfg.model_first_frame(ANIMATION_NAMES.index("TORSO_STAND")) == rows[11][0]


# --- .skin rules -----------------------------------------------------------------------------------

def test_skin_engine_rules():
    data = (b"// comment\r\nH_Head,models/players/x/head.tga\r\ntag_head,\r\n"
            b"/* block\r\n comment */ u_torso , models/a b.tga\r\n\"q,uoted\",\"c:/with space.tga\"\r\n"
            b"mytag_x,models/skipped\r\nl_legs,models/legs.tga\0after,nul.tga\r\n")
    skin = parse_skin(data)
    # the shader token after a tag_ line's next word ends at the comma, which then starts a surface name;
    # "u_torso , models" : the comma is not right after the token, so it starts the shader token (",")
    assert skin.entries == [SkinEntry("h_head", "models/players/x/head.tga"), SkinEntry("u_torso", ","),
                            SkinEntry("models/a", "b.tga"), SkinEntry("q,uoted", "c:/with space.tga"),
                            SkinEntry("models/skipped", "l_legs"), SkinEntry(",models/legs.tga", "")]
    assert skin.tags == ["tag_head", "mytag_x"]
    assert write_skin(skin) == data


def test_skin_lookup_and_edits():
    skin = parse_skin(b"h_head,models/a.tga\nh_head,models/b.tga\ntag_head,\n")
    assert skin.shader_for("H_HEAD_1") == "models/a.tga" and skin.shader_for("other") is None
    assert engine_surface_name("Body_2") == "body" and engine_surface_name("a_1") == "a"
    assert engine_surface_name("_1") == "_1"
    skin.entries[0].shader = "models/c.tga"
    written = write_skin(skin)
    assert written == b"h_head,models/c.tga\nh_head,models/b.tga\ntag_head,\n"
    assert parse_skin(written).entries == skin.entries


def test_skin_surface_limit_warns():
    data = b"".join(b"s%d,x.tga\n" % i for i in range(300))
    skin = parse_skin(data)
    assert len(skin.entries) == 256 and skin.warnings


# --- animation.cfg rules ---------------------------------------------------------------------------

def _cfg(rows: int, head: str = "sex f\nfootsteps boot\n") -> bytes:
    lines = [f"{i * 10}\t{i + 1}\t{i % 2}\t{15 + i}\t// {ANIMATION_NAMES[i]}" for i in range(rows)]
    return (head + "\n".join(lines) + "\n").encode()


def test_cfg_options_and_optional_team_arena_animations():
    cfg = parse_animation_cfg(_cfg(25, "Sex Neuter\nheadoffset -1.5 2\nfixedlegs\nFixedTorso\nbogus\n"
                                       "footsteps squeak\n"))
    # headoffset takes three tokens whatever they are: "fixedlegs" is its z (atof: 0)
    assert (cfg.sex, cfg.headoffset, cfg.fixedlegs, cfg.fixedtorso) == ("Neuter", (-1.5, 2.0, 0.0), False, True)
    assert cfg.footsteps == "squeak" and len(cfg.warnings) == 2 and cfg.gender == "neuter"
    assert parse_animation_cfg(_cfg(25, "sex Female\n")).gender == "female"
    assert parse_animation_cfg(_cfg(25, "")).gender == "male"
    assert len(cfg.animations) == REQUIRED_ANIMATIONS
    game = cfg.game_animations()
    assert len(game) == 31 and game[30].name == "TORSO_NEGATIVE" and game[30].first == cfg.animations[6].first
    assert cfg.legs_skip == 130 - 60


def test_cfg_all_31_and_zero_fps():
    data = _cfg(31).replace(b"\t15\t// BOTH_DEATH1", b"\t0\t// BOTH_DEATH1")
    cfg = parse_animation_cfg(data)
    assert len(cfg.animations) == 31 and cfg.animations[0].fps == 0 and cfg.animations[0].game_fps == 1
    assert write_animation_cfg(cfg) == data


@pytest.mark.parametrize("rows, cut", [(0, 0), (24, 0), (25, 2), (27, 3), (3, 1)])
def test_cfg_refused_where_the_game_refuses(rows, cut):
    data = _cfg(rows) + b" ".join(b"7" for _ in range(cut))
    if rows >= REQUIRED_ANIMATIONS and cut == 0:
        parse_animation_cfg(data)
        return
    with pytest.raises(FormatError) as info:
        parse_animation_cfg(data)
    assert info.value.field == ANIMATION_NAMES[rows] and info.value.offset is not None


def test_cfg_too_long_is_refused():
    data = _cfg(25) + b"//" + b"x" * 20000
    with pytest.raises(FormatError):
        parse_animation_cfg(data)


def test_cfg_edits_are_written_and_read_back():
    cfg = parse_animation_cfg(_cfg(25))
    cfg.animations[3] = Md3Animation("BOTH_DEAD2", 5, -4, 0, 12.5)
    cfg.headoffset = (0.0, 1.0, -2.25)
    again = parse_animation_cfg(write_animation_cfg(cfg))
    assert again.animations == cfg.animations and again.headoffset == cfg.headoffset
    assert (again.sex, again.footsteps) == ("f", "boot")
