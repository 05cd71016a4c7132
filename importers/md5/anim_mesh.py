"""The mesh an ``.md5anim`` chosen alone (dropped, chosen or ticked without its mesh) is imported onto.

An anim carries its own hierarchy and base frame, so it needs no mesh; when its folder holds a mesh
whose joints are the anim's (the names, count and parents the engines compare: ironwail, Q2PRO and FTE
refuse another pair, :func:`...formats.md5.limits.pair_problems`) it goes onto that mesh, looked for in
this order:

1. ``<anim stem>.md5mesh`` beside it: the re-releases' layout (ironwail ``loadMd5Replacement`` and
   Q2PRO ``MOD_LoadMD5`` open the mesh's path with ``.md5anim``), and Sauerbraten's model without a
   configuration (``loaddefaultparts``: ``<dir>/<dir>.md5mesh`` and ``<dir>/<dir>.md5anim``).
2. The mesh the folder's configuration loads it with (Sauerbraten, Tesseract, Red Eclipse: the model
   folder's ``md5.cfg`` is run, ``md5load <mesh>`` adds a part, each ``md5anim <name> <file> ...`` loads
   ``<file>`` onto the part loaded last, and ``exec <file>`` runs another file, such as Sauerbraten's
   ``anims.cfg``, in between; Red Eclipse's ``actors/player/hwep.cfg`` holds the same commands under
   another name). Every ``.cfg`` of the folder is read, ``md5.cfg`` first; file names are compared
   without their folders and in any case.
3. Any other ``.md5mesh`` of the folder, in name order.

Without one, :func:`skeleton_of` makes the joints of the anim's base frame the model's bind pose.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

import numpy as np

from ...formats.errors import FormatError
from ...formats.md5.limits import pair_problems
from ...formats.md5.mesh import read_md5mesh
from ...formats.md5.records import Md5Mesh
from ...formats.md5.skinning import quat_w, world_poses
from ..file_source import ArchiveSource, FoundFile, LooseSource, ModelSource
from .md5_files import MESH_SUFFIX, folder_files

CONFIG_SUFFIX = ".cfg"
MAX_CONFIG = 1 << 20            # bytes: a model's configuration is a few kilobytes


@dataclass
class AnimMesh:
    """What an anim alone is imported onto: the mesh found (its source, bytes and record), or none;
    ``taken`` when that mesh is imported by the same call and takes the anim itself (Same Name); ``notes``
    the meshes passed over and why."""
    source: ModelSource | None = None
    data: bytes = b""
    mesh: Md5Mesh | None = None
    taken: bool = False
    notes: list[str] = field(default_factory=list)


def _tokens(line: str) -> list[str]:
    """A Cube script line's words: ``"quoted strings"`` or bare words, up to a ``//`` comment."""
    out, at = [], 0
    while at < len(line):
        char = line[at]
        if char.isspace():
            at += 1
        elif char == '"':
            end = line.find('"', at + 1)
            end = len(line) if end < 0 else end
            out.append(line[at + 1:end])
            at = end + 1
        elif line.startswith("//", at):
            break
        else:
            end = at
            while end < len(line) and not line[end].isspace() and line[end] != '"' and not line.startswith("//", end):
                end += 1
            out.append(line[at:end])
            at = end
    return out


def _base(name: str) -> str:
    return PurePosixPath(name.replace("\\", "/")).name.lower()


def config_meshes(listing: dict[str, FoundFile], anim_name: str) -> list[str]:
    """Lower-cased names of the meshes the folder's ``.cfg`` files load ``anim_name`` onto (module docstring)."""
    wanted, found, ran = _base(anim_name), [], set()

    def run(name: str, mesh: str | None) -> str | None:
        ran.add(name)
        try:
            data = listing[name].read()
        except OSError:
            return mesh
        if len(data) > MAX_CONFIG:
            return mesh
        for line in data.decode("latin-1").splitlines():
            words = _tokens(line)
            if not words:
                continue
            command = words[0].lower()
            if command == "md5load" and len(words) > 1:
                mesh = _base(words[1])
            elif command == "md5anim" and len(words) > 2 and _base(words[2]) == wanted and mesh:
                found.append(mesh)
            elif command == "exec" and len(words) > 1 and _base(words[1]) in listing and _base(words[1]) not in ran:
                mesh = run(_base(words[1]), mesh)
        return mesh

    configs = sorted(n for n in listing if n.endswith(CONFIG_SUFFIX))
    for name in sorted(configs, key=lambda n: n != "md5.cfg"):
        if name not in ran:
            run(name, None)
    return list(dict.fromkeys(found))


def _as_source(found: FoundFile, source: ModelSource) -> ModelSource:
    if found.path is None and isinstance(source, ArchiveSource):
        return ArchiveSource(None, found.member, source.game, source.files, found)
    return LooseSource(found.path)


def mesh_of_anim(source: ModelSource, anim, ticked: tuple[str, ...] = ()) -> AnimMesh:
    """The mesh beside the anim ``source`` (read as ``anim``) whose joints are its own (module docstring)."""
    listing = folder_files(source)
    same = (source.stem + MESH_SUFFIX).lower()
    named = config_meshes(listing, source.name)
    others = sorted(n for n in listing if n.endswith(MESH_SUFFIX))
    out = AnimMesh()
    for name in dict.fromkeys([same, *named, *others]):
        found = listing.get(name)
        if found is None:
            continue
        try:
            data = found.read()
            mesh = read_md5mesh(data)
        except (OSError, FormatError) as exc:
            out.notes.append(f"{found.name} beside it cannot be read ({exc})")
            continue
        problems = pair_problems(mesh, anim)
        if problems:
            if name == same or name in named:
                out.notes.append(f"{found.name} beside it is not its mesh: {problems[0]}")
            continue
        is_ticked = found.member.lower() in {t.lower() for t in ticked} or (
            found.path is not None and str(found.path) in ticked)
        out.source, out.data, out.mesh = _as_source(found, source), data, mesh
        out.taken = is_ticked and name == same
        return out
    return out


def skeleton_of(anim) -> Md5Mesh:
    """A mesh record without blocks whose joints are ``anim``'s hierarchy at its base frame (model space;
    quaternions with w <= 0, as the engines derive w)."""
    pos, quat = world_poses(np.asarray(anim.joint_parents, np.int64), np.asarray(anim.base_pos, np.float64),
                            quat_w(np.asarray(anim.base_orient, np.float64)))
    quat = np.where(quat[..., 3:] > 0, -quat, quat)
    return Md5Mesh(list(anim.joint_names), np.asarray(anim.joint_parents, np.int64), pos, quat[..., :3].copy(), [])
