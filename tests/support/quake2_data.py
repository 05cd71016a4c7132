"""The least game data Q2PRO needs to start and draw one model, made here (bpy-free), and a Quake II demo
that puts the model at a known place, frame and skin in front of a known camera.

Why a demo (``demos/x.dm2`` played with ``demo x``) and not the game library with an edited entity lump:
a client demo is read by the client alone (Q2PRO ``src/client/demo.c`` ``CL_PlayDemo_f``), so no server,
no game code, no monster AI or gravity moves the model; the demo's own frame message sets the entity's
origin, angles, frame and skin and the camera's origin, angles and field of view exactly, every run the
same; and ``cl_demowait 1`` holds the last frame on screen (``CL_DemoFrame``) until the test has its
screenshot. Each shot is its own demo, played by the same engine process.

What Q2PRO demands at startup, from its source:
- ``pics/colormap.pcx``: only its palette is read (``src/refresh/images.c`` ``IMG_GetPalette``: a fatal
  error without it); an RLE PCX (``load_pcx`` refuses encoding 0).
- ``pics/conchars.pcx``: the console font (``src/client/console.c`` ``Con_RegisterMedia``; a missing one
  is an error line). Written all index 255 (transparent, ``IMG_GetPalette``), so no text shows; the same
  for the pictures the screen and menus register at startup (``src/client/screen.c``
  ``SCR_RegisterMedia``, ``src/client/ui/ui.c``: ``PICTURES``), so that the log holds no error line.
- a map for the client to load (``src/client/precache.c`` ``CL_RegisterBspModels``: "no map set" without
  one): ``maps/hw4.bsp`` from ``../shared/engines/data/quake2/maps/``; its checksum goes in the demo's
  ``CS_MAPCHECKSUM`` (``Com_BlockChecksum``, MD4 words xor-ed: ``src/common/mdfour.c``), or the client
  warns. The world is not drawn: the player state carries ``RDF_NOWORLDMODEL``, so the model stands on the
  cleared (black, ``gl_clear``) screen and its silhouette is every lit pixel.

The demo (protocol 34, the one ``CL_Record_f`` writes for an original server): a first message with
``svc_serverdata``, the configstrings (map, model), ``svc_spawnbaseline`` and ``svc_stufftext
"precache"`` (the one stuffed command a demo may run: ``src/client/main.c`` ``exec_server_string``); then ``FRAMES`` identical ``svc_frame`` messages (player state: view origin, angles, fov,
rdflags; one packet entity), so that the previous state equals the current one and nothing lerps
(``CL_ParseFrame``, ``src/common/msg.c`` ``MSG_ParseDeltaPlayerstate_Default``, ``MSG_ParseDeltaEntity``);
last an ``svc_print`` of a marker line, printed once every frame before it is parsed (``CL_ParsePrint``).
Entity angles are sent as bytes (``MSG_ReadAngle``: 360/256 degrees), coordinates as 1/8 units.
"""
from __future__ import annotations

import os
import shutil
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from formats.images.palette import quake2_palette

from .environment import CHECKOUT

ENGINES = Path(os.environ.get("CLASSIC_MODELS_ENGINES") or CHECKOUT.parent / "shared" / "engines")
MAP = "maps/hw4.bsp"
PROTOCOL = 34                      # PROTOCOL_VERSION_DEFAULT (inc/common/protocol.h)
FRAMES = 4
# svc_ops_t (inc/common/protocol.h)
SVC_PRINT, SVC_STUFFTEXT, SVC_SERVERDATA, SVC_CONFIGSTRING, SVC_SPAWNBASELINE = 10, 11, 12, 13, 14
PRINT_HIGH = 2
SVC_PLAYERINFO, SVC_PACKETENTITIES, SVC_FRAME = 17, 18, 20
# configstrings of the original protocol (cs_remap_old, inc/shared/shared.h)
CS_NAME, CS_MAPCHECKSUM, CS_MODELS = 0, 31, 32
# player state bits (PS_*) and entity bits (U_*), inc/common/protocol.h
PS_M_ORIGIN, PS_VIEWANGLES, PS_FOV, PS_RDFLAGS = 1 << 1, 1 << 8, 1 << 11, 1 << 14
U_ORIGIN1, U_ORIGIN2, U_ANGLE2, U_ANGLE3, U_FRAME8, U_MOREBITS1 = 1, 2, 4, 8, 16, 128
U_ORIGIN3, U_ANGLE1, U_MODEL, U_RENDERFX8, U_MOREBITS2 = 1 << 9, 1 << 10, 1 << 11, 1 << 12, 1 << 15
U_SKIN8 = 1 << 16
RF_FULLBRIGHT = 8                  # drawn at light 1 whatever the map's light (src/refresh/mesh.c setup_color)
RDF_NOWORLDMODEL = 2
PICTURES = ([f"num_{d}" for d in range(10)] + [f"anum_{d}" for d in range(10)] + ["num_minus", "anum_minus"]
            + ["inventory", "field_3", "backtile", "pause", "loading", "net", "conback", "ch1"]
            + [f"m_cursor{d}" for d in range(15)])
MODEL_INDEX = 2                    # configstring CS_MODELS + 1 is the map
ENTITY = 2                         # entity 1 is the player (clientNum 0)


@dataclass(frozen=True)
class Camera:
    """The view: origin (Quake units), angles (pitch, yaw, roll, degrees), horizontal field of view and
    screen size. 4:3 screens only, where ``cl_adjustfov`` changes nothing (``V_CalcFov``)."""
    origin: tuple[float, float, float]
    angles: tuple[float, float, float]
    fov: int
    width: int = 640
    height: int = 480


@dataclass(frozen=True)
class Placement:
    """Where the entity stands: origin, yaw in steps of 360/256 degrees, MD2 frame, skin number."""
    origin: tuple[float, float, float]
    yaw_byte: int
    frame: int
    skin: int = 0

    @property
    def yaw(self) -> float:
        return self.yaw_byte * 360.0 / 256.0


def pcx(indices: np.ndarray, palette: np.ndarray) -> bytes:
    """An 8-bit PCX, RLE encoded (every pixel a run of one: 0xC1, index), with its 0x0C palette."""
    h, w = indices.shape
    header = struct.pack("<BBBBHHHHHH48sBBHHHH54s", 10, 5, 1, 8, 0, 0, w - 1, h - 1, 72, 72, b"", 0, 1, w, 1, 0, 0,
                         b"")
    runs = np.stack([np.full(indices.size, 0xC1, np.uint8), indices.astype(np.uint8).ravel()], 1)
    return header + runs.tobytes() + b"\x0c" + np.asarray(palette, np.uint8).tobytes()


def write_basedir(root: Path) -> Path:
    """``root/baseq2`` with the colormap, the console font and the map; returns the game folder."""
    game = root / "baseq2"
    (game / "pics").mkdir(parents=True, exist_ok=True)
    (game / "maps").mkdir(parents=True, exist_ok=True)
    palette = np.asarray(quake2_palette(), np.uint8)
    (game / "pics" / "colormap.pcx").write_bytes(pcx(np.zeros((8, 8), np.uint8), palette))
    (game / "pics" / "conchars.pcx").write_bytes(pcx(np.full((128, 128), 255, np.uint8), palette))
    for name in PICTURES:
        (game / "pics" / f"{name}.pcx").write_bytes(pcx(np.full((8, 8), 255, np.uint8), palette))
    shutil.copyfile(ENGINES / "data" / "quake2" / MAP, game / MAP)
    return game


def _md4_words(data: bytes) -> tuple[int, int, int, int]:
    """MD4 (RFC 1320) of ``data``: its four state words."""
    def rotl(x, n):
        return ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF
    message = data + b"\x80" + b"\x00" * ((55 - len(data)) % 64) + struct.pack("<Q", (len(data) * 8) & (2 ** 64 - 1))
    a, b, c, d = 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476
    for block in range(0, len(message), 64):
        x = struct.unpack("<16I", message[block:block + 64])
        aa, bb, cc, dd = a, b, c, d
        for i, s in zip(range(16), (3, 7, 11, 19) * 4):
            f = (b & c) | (~b & d)
            a, b, c, d = d, rotl((a + f + x[i]) & 0xFFFFFFFF, s), b, c
        for i, s in zip((0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), (3, 5, 9, 13) * 4):
            g = (b & c) | (b & d) | (c & d)
            a, b, c, d = d, rotl((a + g + x[i] + 0x5A827999) & 0xFFFFFFFF, s), b, c
        for i, s in zip((0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15), (3, 9, 11, 15) * 4):
            h = b ^ c ^ d
            a, b, c, d = d, rotl((a + h + x[i] + 0x6ED9EBA1) & 0xFFFFFFFF, s), b, c
        a, b, c, d = (a + aa) & 0xFFFFFFFF, (b + bb) & 0xFFFFFFFF, (c + cc) & 0xFFFFFFFF, (d + dd) & 0xFFFFFFFF
    return a, b, c, d


def map_checksum(data: bytes) -> int:
    """Q2PRO's ``Com_BlockChecksum``: the MD4 state words xor-ed, printed as a signed int."""
    a, b, c, d = _md4_words(data)
    value = a ^ b ^ c ^ d
    return value - (1 << 32) if value >= 1 << 31 else value


def _string(text: str) -> bytes:
    return text.encode("ascii") + b"\0"


def _entity(placement: Placement) -> bytes:
    """The entity's full state as a delta from nothing (``MSG_ParseEntityBits`` + ``MSG_ParseDeltaEntity``)."""
    bits = (U_MODEL | U_FRAME8 | U_SKIN8 | U_RENDERFX8 | U_ORIGIN1 | U_ORIGIN2 | U_ORIGIN3 | U_ANGLE1 | U_ANGLE2
            | U_ANGLE3 | U_MOREBITS1 | U_MOREBITS2)
    assert 0 <= placement.frame < 256 and 0 <= placement.skin < 256
    out = struct.pack("<BBBB", bits & 0xFF, (bits >> 8) & 0xFF, (bits >> 16) & 0xFF, ENTITY)
    out += struct.pack("<BBBB", MODEL_INDEX, placement.frame, placement.skin, RF_FULLBRIGHT)
    out += struct.pack("<3h", *(_coord(v) for v in placement.origin))
    out += struct.pack("<3B", 0, placement.yaw_byte % 256, 0)
    return out


def _coord(value: float) -> int:
    step = round(value * 8)
    assert abs(step - value * 8) < 1e-6, f"{value} is not a multiple of 1/8"
    return step


def _angle16(degrees: float) -> int:
    return round(degrees * 65536 / 360) & 0xFFFF


def view_angles(camera: Camera) -> tuple[float, float, float]:
    """The camera's angles as the demo carries them (``MSG_ReadAngle16``: 360/65536 degrees)."""
    return tuple(((_angle16(a) ^ 0x8000) - 0x8000) * 360.0 / 65536 for a in camera.angles)


def view_origin(camera: Camera) -> tuple[float, float, float]:
    return tuple(_coord(v) / 8 for v in camera.origin)


def demo(model: str, camera: Camera, placement: Placement, checksum: int, marker: str) -> bytes:
    """A client demo showing ``model`` (a game path, ``models/x/tris.md2``) as ``placement`` says, seen
    from ``camera``; its last message echoes ``marker`` on the console once every frame is parsed."""
    first = struct.pack("<BiiB", SVC_SERVERDATA, PROTOCOL, 1, 1) + _string("") + struct.pack("<h", 0) + _string("x")
    for index, text in ((CS_NAME, "classic_models test"), (CS_MAPCHECKSUM, str(checksum)), (CS_MODELS + 1, MAP),
                        (CS_MODELS + MODEL_INDEX, model)):
        first += struct.pack("<Bh", SVC_CONFIGSTRING, index) + _string(text)
    first += bytes([SVC_SPAWNBASELINE]) + _entity(placement)
    first += bytes([SVC_STUFFTEXT]) + _string("precache\n")
    messages = [first]
    for number in range(1, FRAMES + 1):
        frame = struct.pack("<BiiBB", SVC_FRAME, number, -1, 0, 0)
        frame += struct.pack("<BH", SVC_PLAYERINFO, PS_M_ORIGIN | PS_VIEWANGLES | PS_FOV | PS_RDFLAGS)
        frame += struct.pack("<3h", *(_coord(v) for v in camera.origin))
        frame += struct.pack("<3H", *(_angle16(a) for a in camera.angles))
        frame += struct.pack("<BBi", camera.fov, RDF_NOWORLDMODEL, 0)          # fov, rdflags, no stats
        frame += bytes([SVC_PACKETENTITIES]) + _entity(placement) + b"\0\0"      # end: bits 0, number 0
        messages.append(frame)
    messages.append(struct.pack("<BB", SVC_PRINT, PRINT_HIGH) + _string(f"{marker}\n"))
    return b"".join(struct.pack("<i", len(m)) + m for m in messages) + struct.pack("<i", -1)
