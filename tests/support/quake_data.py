"""The least game data ironwail needs to start and draw one model, made here (Quake's own data is not free);
bpy-free. Each rule below was read in ironwail's source (``Quake/``, andrei-drexler/ironwail @ 7ff4ec57b8):

- ``COM_SetBaseDir`` (common.c): a basedir counts only with an ``id1/pak0.pak``; ours is an empty PACK,
  which ``COM_LoadPackFile`` ignores, and every file is loose under ``id1/``. ``COM_FindFile`` finds loose
  files in subfolders only for the registered game, which ``COM_CheckRegistered`` grants when
  ``gfx/pop.lmp`` holds the 128 big-endian shorts of its ``pop`` table (:data:`POP`, copied from common.c).
- ``W_LoadWadFile`` (wad.c) stops without ``gfx.wad`` (``WAD2``, lump table of 32-byte entries);
  ``Draw_LoadPics`` (gl_draw.c) stops without its ``conchars`` lump (128 x 128 indices; all 0, so no text is
  ever visible: index 0 is transparent for the console font); every other lump is optional ("W_GetLumpName:
  %s not found" in the console). ``TexMgr_LoadPalette`` (gl_texmgr.c) stops without ``gfx/palette.lmp``
  and ``gfx/colormap.lmp``, ``Host_Init`` (host.c) without the colormap; ``Draw_CachePic`` stops on a missing
  ``gfx/conback.lmp`` (the console) and ``gfx/loading.lmp`` (the demo's loading plaque).
- The map: a BSP29 with one node and no face (:func:`empty_bsp`): nothing of the world is drawn, so every
  pixel that is not the clear colour (``r_clearcolor``, gl_rmisc.c) is the model's; without lighting data
  ``R_LightPoint`` (gl_rlight.c) gives full light and ``R_SetupView`` (gl_rmain.c) sets
  ``r_fullbright_cheatsafe``, so ``R_DrawAliasModel`` (r_alias.c) lights every model at 0.5, shaded by its
  normals only (``r_avertexnormal_dot`` in gl_shaders.h): the hue of a skin texel survives.
- The model is placed by a **demo** (:func:`demo`), not by a progs: a demo needs no QuakeC compiler and no
  progs.dat, and ``timedemo`` (cl_demo.c ``CL_GetDemoMessage``) reads exactly one message per frame once
  connected, with ``CL_LerpPoint`` not interpolating (cl.time = the message's time), so what is drawn is
  exactly what the messages say: origin, angles, frame and skin of each entity and the camera. The
  protocol is 999 (PROTOCOL_RMQ, ``CL_ParseServerInfo``) with float coordinates and angles, so no
  rounding. ``CL_ParseUpdate`` (cl_parse.c) drops an entity not updated in the latest message, so every
  message updates every entity. The camera is the view entity's origin plus ``cl.viewheight`` (22 without
  SU_VIEWHEIGHT, ``CL_ParseClientdata``) plus 1/32 on each axis (``V_CalcRefdef``, view.c); its angles are
  the demo record's view angles; health > 0 or ``V_CalcViewRoll`` tilts the view 80 degrees. The demo
  stuffs ``screenshot`` once the scene has been drawn (with ``viewsize 130`` ``SCR_ScreenShot_f`` draws
  the frame again before reading it), then opens the console and ``quit``s (``Host_Quit_f`` asks first
  unless the console is up).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from formats.images.palette import quake_palette

VIEWHEIGHT = 22                     # protocol.h DEFAULT_VIEWHEIGHT
PROTOCOL_RMQ = 999
PRFL_FLOATANGLE, PRFL_FLOATCOORD = 1 << 2, 1 << 4
SVC_TIME, SVC_STUFFTEXT, SVC_SETVIEW, SVC_SERVERINFO, SVC_CLIENTDATA = 7, 9, 5, 11, 15
SVC_SPAWNBASELINE, SVC_SIGNONNUM = 22, 25
U_MOREBITS, U_ORIGIN1, U_ORIGIN2, U_ORIGIN3, U_ANGLE2 = 1, 1 << 1, 1 << 2, 1 << 3, 1 << 4
U_FRAME, U_SIGNAL, U_ANGLE1, U_ANGLE3, U_MODEL, U_SKIN = 1 << 6, 1 << 7, 1 << 8, 1 << 9, 1 << 10, 1 << 12
MAP = "maps/void.bsp"
POP = bytes.fromhex(
    "000000000000000000000000000000000000000066000000000000006600000000000066000000000000000000670000"
    "000066650000000000000000006566000063656100000000000000000061656300646561000000000000000000616564"
    "006465640000646969696400006465640063656862000064686400006268656300006567696300646764006369676500"
    "0000626667696a6867686a69676662000000006265666666666666666562000000000000006263646664636200000000"
    "000000000000006266620000000000000000000000000061666100000000000000000000000000006500000000000000"
    "00000000000000006400000000000000")
CLEAR_INDEX = 144                   # r_clearcolor: a pink no skin here uses, so a model drawn black still shows


def pak(files: dict[str, bytes]) -> bytes:
    """A Quake PACK: "PACK", directory offset, directory length; entries name[56], offset, length."""
    body, entries = bytearray(), []
    for name, data in files.items():
        entries.append(struct.pack("<56sii", name.encode(), 12 + len(body), len(data)))
        body += data
    return struct.pack("<4sii", b"PACK", 12 + len(body), 64 * len(entries)) + bytes(body) + b"".join(entries)


def wad2(lumps: list[tuple[str, int, bytes]]) -> bytes:
    """A WAD2: "WAD2", numlumps, infotableofs; entries filepos, disksize, size, type, compression, 2 pad,
    name[16]. ``lumps`` are (name, type, data)."""
    body, table = bytearray(), []
    for name, kind, data in lumps:
        table.append(struct.pack("<iiibbxx16s", 12 + len(body), len(data), len(data), kind, 0, name.encode()))
        body += data
    return struct.pack("<4sii", b"WAD2", len(lumps), 12 + len(body)) + bytes(body) + b"".join(table)


def qpic(width: int, height: int, index: int = 0) -> bytes:
    """A qpic: width, height, then the indices, row by row."""
    return struct.pack("<ii", width, height) + bytes([index]) * (width * height)


def colormap() -> bytes:
    """64 light rows of 256 indices plus one byte, as Quake's: row r darkens each colour to the nearest
    non-fullbright palette colour (fullbrights stay); only player translation and software paths read it."""
    pal = quake_palette().astype(np.float64)
    rows = []
    for r in range(64):
        scale = (63 - r) / 32.0
        target = np.clip(pal * scale, 0, 255)
        near = ((target[:, None] - pal[None, :224]) ** 2).sum(-1).argmin(1).astype(np.uint8)
        near[224:] = np.arange(224, 256)
        rows.append(near)
    return np.concatenate(rows).tobytes() + b"\x00"


def empty_bsp() -> bytes:
    """A BSP29 of one plane (z = -4096) and one node whose both sides are leaf 1 (empty, no vis data: every
    leaf visible), leaf 0 the solid one, one clip node, no face, texture or light: Mod_LoadBrushModel
    (gl_model.c) with its lumps in dheader_t order (bspfile.h)."""
    planes = struct.pack("<4fi", 0.0, 0.0, 1.0, -4096.0, 2)
    nodes = struct.pack("<ihh3h3hHH", 0, -2, -2, -4096, -4096, -4096, 4096, 4096, 4096, 0, 0)
    clipnodes = struct.pack("<ihh", 0, -1, -2)
    leafs = (struct.pack("<ii3h3hHH4B", -2, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
             + struct.pack("<ii3h3hHH4B", -1, -1, -4096, -4096, -4096, 4096, 4096, 4096, 0, 0, 0, 0, 0, 0))
    models = struct.pack("<9f4iiii", -4096, -4096, -4096, 4096, 4096, 4096, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0)
    entities = b'{\n"classname" "worldspawn"\n}\n\x00'
    # entities planes textures vertexes visibility nodes texinfo faces lighting clipnodes leafs
    # marksurfaces edges surfedges models
    lumps = [entities, planes, b"", b"", b"", nodes, b"", b"", b"", clipnodes, leafs, b"", b"", b"", models]
    offset, table, body = 4 + 15 * 8, [], bytearray()
    for data in lumps:
        table.append(struct.pack("<ii", offset + len(body), len(data)))
        body += data + b"\x00" * (-len(data) % 4)
    return struct.pack("<i", 29) + b"".join(table) + bytes(body)


def game_files(config: str) -> dict[str, bytes]:
    """The files of ``id1/``: an empty pak0.pak, gfx.wad, palette, colormap, the pictures whose absence stops
    the engine, the map, ``quake.rc`` (default.cfg, then ``config``: the test's settings and its ``timedemo``)."""
    wad = wad2([("conchars", 68, bytes(128 * 128)), ("disc", 66, qpic(8, 8)), ("backtile", 66, qpic(8, 8)),
                ("net", 66, qpic(8, 8)), ("turtle", 66, qpic(8, 8))])
    return {"pak0.pak": pak({}), "gfx.wad": wad, "gfx/palette.lmp": quake_palette().astype(np.uint8).tobytes(),
                "gfx/colormap.lmp": colormap(), "gfx/conback.lmp": qpic(320, 200), "gfx/loading.lmp": qpic(8, 8),
                "gfx/pause.lmp": qpic(8, 8), "gfx/pop.lmp": POP, MAP: empty_bsp(),
            "quake.rc": f"exec default.cfg\n{config}\n".encode()}


@dataclass
class Camera:
    """Where the engine's view is: eye position, (pitch, yaw, roll) in degrees (pitch down positive, as
    Quake's), horizontal fov (``fov``, 4:3 window so ``AdaptFovx`` keeps it) and window size."""
    eye: tuple[float, float, float]
    angles: tuple[float, float, float] = (0.0, 0.0, 0.0)
    fov: float = 90.0
    width: int = 640
    height: int = 480


@dataclass
class Placed:
    """One entity of the demo: model index (1 = the map, 2... the precache list's models), origin, angles,
    frame, skin."""
    model: int
    origin: tuple[float, float, float]
    angles: tuple[float, float, float] = (0.0, 0.0, 0.0)
    frame: int = 0
    skin: int = 0


@dataclass
class _Message:
    data: bytearray = field(default_factory=bytearray)

    def byte(self, v: int):
        self.data += struct.pack("<B", v)
        return self

    def short(self, v: int):
        self.data += struct.pack("<h", v)
        return self

    def long(self, v: int):
        self.data += struct.pack("<i", v)
        return self

    def float(self, v: float):
        self.data += struct.pack("<f", v)
        return self

    def string(self, s: str):
        self.data += s.encode() + b"\x00"
        return self


def _view_origin(camera: Camera) -> tuple[float, float, float]:
    """The view entity's origin whose V_CalcRefdef eye is ``camera.eye``."""
    x, y, z = camera.eye
    return (x - 1 / 32, y - 1 / 32, z - VIEWHEIGHT - 1 / 32)


def _update(msg: _Message, number: int, model: int, origin, angles, frame: int, skin: int) -> None:
    """A fast update (CL_ParseUpdate) carrying every field, so no baseline value is used."""
    bits = (U_SIGNAL | U_MOREBITS | U_ORIGIN1 | U_ORIGIN2 | U_ORIGIN3 | U_ANGLE2 | U_FRAME
            | U_ANGLE1 | U_ANGLE3 | U_MODEL | U_SKIN)
    msg.byte(bits & 0xFF).byte(bits >> 8).byte(number).byte(model).byte(frame).byte(skin)
    for axis in range(3):
        msg.float(origin[axis]).float(angles[axis])


def demo(models: list[str], placed: list[Placed], camera: Camera, frames_before: int = 12,
         frames_after: int = 6) -> bytes:
    """A demo file (cl_demo.c ``CL_PlayDemo_f``: the CD track as text and a newline, then records of
    length, 3 float view angles, message) that loads ``MAP`` and ``models`` (indices 2...), places
    ``placed`` (entities 2...) and the camera (entity 1, the view entity: it carries the map as its model,
because ``CL_RelinkEntities`` (cl_main.c) moves only entities with a model, and never draws the view
entity), draws them
    ``frames_before`` times, stuffs ``screenshot``, draws ``frames_after`` more, then opens the console and
    quits."""
    records = []

    def record(msg: _Message) -> None:
        records.append(struct.pack("<i3f", len(msg.data), *camera.angles) + bytes(msg.data))

    info = _Message().byte(SVC_SERVERINFO).long(PROTOCOL_RMQ).long(PRFL_FLOATCOORD | PRFL_FLOATANGLE)
    info.byte(1).byte(0).string("enhanced model test")
    for name in [MAP, *models, ""]:
        info.string(name)
    info.string("")                                         # no sounds
    info.byte(SVC_SETVIEW).short(1).byte(SVC_SIGNONNUM).byte(1)
    record(info)
    baselines = _Message()
    for number, ent in enumerate(placed, start=2):
        baselines.byte(SVC_SPAWNBASELINE).short(number).byte(ent.model).byte(ent.frame).byte(0).byte(ent.skin)
        for axis in range(3):
            baselines.float(ent.origin[axis]).float(ent.angles[axis])
    record(baselines.byte(SVC_SIGNONNUM).byte(2))
    record(_Message().byte(SVC_SIGNONNUM).byte(3))
    view = _view_origin(camera)
    for k in range(frames_before + frames_after + 4):
        msg = _Message().byte(SVC_TIME).float(1.0 + 0.1 * k)
        msg.byte(SVC_CLIENTDATA).short(0).long(0).short(100).byte(0).byte(0).byte(0).byte(0).byte(0).byte(0)
        _update(msg, 1, 1, view, (0.0, 0.0, 0.0), 0, 0)
        for number, ent in enumerate(placed, start=2):
            _update(msg, number, ent.model, ent.origin, ent.angles, ent.frame, ent.skin)
        if k == frames_before:
            msg.byte(SVC_STUFFTEXT).string("screenshot tga\n")
        if k == frames_before + frames_after:
            msg.byte(SVC_STUFFTEXT).string("toggleconsole\nquit\n")
        record(msg)
    return b"-1\n" + b"".join(records)


def settings(enhanced: int, priority: str = "md3,md5") -> list[str]:
    """Console settings: the enhanced-model switch and order (gl_model.c ``Mod_LoadAliasModel``), no frame
    or move interpolation, nothing drawn over the view (HUD, crosshair, console notify lines, fps, gun),
    no view bob or roll, no overbright on models (colours keep their hue), the clear colour, and a fixed
    screenshot name (``cl_screenshotname`` without variables: ``shot0000.png`` in the game folder)."""
    return [f"r_enhancedmodels {enhanced}", f'r_enhancedmodels_priority "{priority}"', "r_lerpmodels 0",
            "r_lerpmove 0", "viewsize 130", "crosshair 0", "con_notifytime 0", "scr_showfps 0",
            "r_drawviewmodel 0", "cl_bob 0", "cl_rollangle 0", "v_idlescale 0", "v_kicktime 0",
            "gl_overbright_models 0", f"r_clearcolor {CLEAR_INDEX}", "fov 90", "fov_adapt 1",
            'cl_screenshotname "shot"', "r_particles 0", "gl_polyblend 0", "r_dynamic 0", "developer 0"]


def write_basedir(root, files: dict[str, bytes], demo_bytes: bytes, config_lines: list[str]):
    """:func:`game_files` and the model's ``files`` (path -> bytes, e.g. ``progs/m.mdl``) under
    ``root/id1``, and ``root/id1/view.dem``; the config runs ``timedemo view``."""
    id1 = root / "id1"
    every = game_files("\n".join(config_lines + ["timedemo view"]))
    for name, data in {**every, **files}.items():
        path = id1 / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (id1 / "view.dem").write_bytes(demo_bytes)
    return id1
