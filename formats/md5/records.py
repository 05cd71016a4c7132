"""MD5 (version 10) text layouts and the dataclasses the readers (:mod:`.mesh`, :mod:`.anim`) and the
writer (:mod:`.write`) share. Numbers are kept as float64 exactly as the text gives them (the engines
read them into floats); quaternions are stored as x y z, w derived as the engines derive it
(:func:`.skinning.quat_w`).

``.md5mesh`` (tokens in this order; ironwail ``Quake/gl_model.c`` ``Mod_LoadMD5MeshModel``, Q2PRO
``src/refresh/models.c`` ``MD5_ParseMesh``, FTE ``engine/common/com_mesh.c`` ``Mod_ParseMD5MeshModel``)::

    MD5Version 10
    commandline "<string>"                       (optional; may come before MD5Version, see below)
    numJoints <J>
    numMeshes <M>
    joints {
        "<name>" <parent> ( <x> <y> <z> ) ( <qx> <qy> <qz> )      x J   (object space; parent -1: root)
    }
    mesh {                                                             x M
        shader "<name>"
        numverts <V>
        vert <i> ( <u> <v> ) <startWeight> <countWeight>              x V
        numtris <T>
        tri <i> <a> <b> <c>                                            x T
        numweights <W>
        weight <i> <joint> <bias> ( <x> <y> <z> )                      x W   (position in the joint's space)
    }

``.md5anim`` (ironwail ``MD5Anim_Begin``/``MD5Anim_Load``, Q2PRO ``MD5_ParseAnim``, FTE ``Mod_ParseMD5Anim``)::

    MD5Version 10
    commandline "<string>"
    numFrames <F>
    numJoints <J>
    frameRate <fps>
    numAnimatedComponents <C>
    hierarchy {
        "<name>" <parent> <flags> <startIndex>                         x J
    }
    bounds {
        ( <minx> <miny> <minz> ) ( <maxx> <maxy> <maxz> )               x F (ironwail reads any number)
    }
    baseframe {
        ( <x> <y> <z> ) ( <qx> <qy> <qz> )                              x J   (relative to the parent)
    }
    frame <k> {                                                        x F
        <C numbers>
    }

``flags`` bits 0..5 are Tx Ty Tz Qx Qy Qz: each set bit takes the next number of the frame from
``startIndex`` on, the others keep the base frame's value (:mod:`.skinning`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

VERSION = 10
HEADER_WORDS = ("MD5Version", "commandline")
FLAG_BITS = ("Tx", "Ty", "Tz", "Qx", "Qy", "Qz")
ALL_FLAGS = 63


@dataclass
class Md5Source:
    """The text a file was read from, kept so that the writer gives back every token's characters and
    the text between tokens while what they say is unchanged (:func:`.write.merged_text`)."""
    data: bytes
    tokens: list[bytes]
    quoted: list[bool]
    starts: list[int]
    ends: list[int]
    style: object = field(default=None, repr=False, compare=False)   # :func:`.write.detect_style`'s, once


@dataclass
class Md5Header:
    """``MD5Version`` and ``commandline`` as the file gives them: ``order`` lists the words in file
    order (Red Eclipse files put ``commandline`` first or leave ``MD5Version`` out)."""
    version: int | None = VERSION
    commandline: str | None = ""
    order: tuple[str, ...] = HEADER_WORDS
    encoding: str = "utf-8"         # of names and strings (:func:`.text.text_encoding`)


@dataclass
class Md5MeshPart:
    """One ``mesh { }`` block."""
    shader: str | None              # None: the block has no shader line (FTE reads such files)
    uv: np.ndarray                  # (V, 2) float64: u v as written (v down, the image's top is 0)
    weight_start: np.ndarray        # (V,) int64 first weight of each vertex
    weight_count: np.ndarray        # (V,) int64
    triangles: np.ndarray           # (T, 3) int64 vertex indexes, in the file's winding
    weight_joint: np.ndarray        # (W,) int64
    weight_bias: np.ndarray         # (W,) float64
    weight_pos: np.ndarray          # (W, 3) float64, in the joint's space

    @property
    def num_verts(self) -> int:
        return len(self.uv)


@dataclass
class Md5Mesh:
    """An ``.md5mesh``: joints in object space and the meshes."""
    joint_names: list[str]
    joint_parents: np.ndarray       # (J,) int64, -1 for a root
    joint_pos: np.ndarray           # (J, 3) float64
    joint_orient: np.ndarray        # (J, 3) float64 quaternion x y z (w derived)
    meshes: list[Md5MeshPart]
    header: Md5Header = field(default_factory=Md5Header)
    declared_meshes: int | None = None   # numMeshes as read when it differs from the blocks present
    source: Md5Source | None = field(default=None, repr=False, compare=False)
    warnings: list[str] = field(default_factory=list, compare=False)

    @property
    def num_joints(self) -> int:
        return len(self.joint_names)


@dataclass
class Md5Anim:
    """An ``.md5anim``: the hierarchy with its flags, bounds per frame, the base frame, the frames."""
    joint_names: list[str]
    joint_parents: np.ndarray       # (J,) int64
    joint_flags: np.ndarray         # (J,) int64, bits Tx Ty Tz Qx Qy Qz
    joint_start: np.ndarray         # (J,) int64 first component of the joint in a frame
    frame_rate: float
    bounds: np.ndarray              # (B, 2, 3) float64; B is the frame count in every file the engines load
    base_pos: np.ndarray            # (J, 3) float64, relative to the parent
    base_orient: np.ndarray         # (J, 3) float64
    frames: np.ndarray              # (F, C) float64 animated components
    header: Md5Header = field(default_factory=Md5Header)
    frame_order: np.ndarray | None = None   # the frame numbers in file order when not 0, 1, 2 ...
    source: Md5Source | None = field(default=None, repr=False, compare=False)
    warnings: list[str] = field(default_factory=list, compare=False)

    @property
    def num_frames(self) -> int:
        return len(self.frames)

    @property
    def num_joints(self) -> int:
        return len(self.joint_names)

    @property
    def num_components(self) -> int:
        return self.frames.shape[1]
