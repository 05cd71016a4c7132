"""What an MD3 import kept (:mod:`...common.md3.contract`) and how the export writes
it back: a record is written as the file had it wherever what Blender evaluates encodes to the same
values, so an untouched import exports the file it came from, byte for byte.

* Frames: exported frame f is file frame ``match[f]`` (the root's frame table, by the shape key it
  equals or its place on the timeline). A surface frame whose 1/64 shorts equal the file's keeps the
  file's vertex records (normals included: a re-encoded normal may pick a neighbouring byte pair); a
  frame where every surface did keeps its frame record (bounds, origin, radius, the name field).
* Surfaces keep their header's ident and flags, name and shader fields; the model its name field,
  flags and numSkins, its block layout and filler (used by the writer only while every block keeps
  its size) and the bytes after ``ofsEnd`` (:mod:`...formats.file_tail`: only after the same body).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

import bpy

from ...common.contract import MD3_TAG_INDEX
from ...common.frame_table import FrameEntry, frame_table, match_frames
from ...common.md3.contract import MD3_FLAGS, MD3_FRAMES, MD3_LAYOUT, MD3_NAME, MD3_NUM_SKINS, MD3_TAGS, MD3_TAIL
from ...common.md3.surfaces import mesh_surfaces
from ...common.stored_records import stored_bytes, stored_int
from ...formats.binary import decode_name
from ...formats.file_tail import kept_tail
from ...formats.md3.codec import write_md3
from ...formats.md3.records import XYZ_NORMAL, Md3Layout, Md3Model, Md3Surface
from ..sampling.frame_rate import whole
from .frames import kept_frame_records, kept_tag_records


def parse_layout(text) -> Md3Layout | None:
    """The ``MD3_LAYOUT`` JSON as an :class:`Md3Layout` (filler as ``[offset, hex]`` pairs), or None."""
    if not text:
        return None
    try:
        data = json.loads(str(text))
        filler = []
        for item in data.get("filler", []):
            offset, blob = (item.get("offset"), item.get("bytes", item.get("hex", ""))) if isinstance(item, dict) \
                else item
            filler.append((int(offset), bytes.fromhex(blob)))
        return Md3Layout(offsets={k: int(v) for k, v in data["offsets"].items()},
                         surfaces=[{k: int(v) for k, v in s.items()} for s in data["surfaces"]],
                         sizes=[int(n) for n in data["sizes"]], filler=filler)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


@dataclass
class KeptSurface:
    xyz: np.ndarray | None             # (file frames, V, 3) int16
    normal: np.ndarray | None          # (file frames, V) uint16
    header: np.void | None             # the SURFACE record


@dataclass
class KeptModel:
    root: bpy.types.Object | None = None
    table: list[FrameEntry] = field(default_factory=list)
    name: str = ""
    name_raw: bytes | None = None
    flags: int = 0
    num_skins: int = 0
    frames: np.ndarray | None = None
    tags: np.ndarray | None = None
    layout: Md3Layout | None = None
    tail: bytes | None = None
    surfaces: dict[tuple[str, int], KeptSurface] = field(default_factory=dict)   # by (object, its surface)

    def _find(self, surface) -> KeptSurface | None:
        if not surface.whole or surface.records is None:
            return None
        return self.surfaces.get((surface.obj.name, surface.records.index))

    def _surface(self, surface) -> KeptSurface | None:
        kept = self._find(surface)
        if kept is None or kept.xyz is None or kept.xyz.shape[1] != len(surface.source):
            return None
        return kept

    def same_frames(self, surface, xyz: np.ndarray, match: np.ndarray) -> np.ndarray:
        """(F,) True where the surface's shorts equal its record at the file frame."""
        kept = self._surface(surface)
        same = np.zeros(len(xyz), bool)
        if kept is None:
            return same
        rows = np.flatnonzero((match >= 0) & (match < len(kept.xyz)))
        equal = picked(xyz, rows) == picked(kept.xyz, match[rows])
        same[rows] = equal.reshape(len(rows), -1).all(axis=1)
        return same

    def put_back(self, surface, normal: np.ndarray, same: np.ndarray, match: np.ndarray) -> None:
        """The file's normals on the frames whose shorts are the file's (:meth:`same_frames`)."""
        kept = self._surface(surface)
        if kept is not None and same.any():
            normal[same] = kept.normal[match[same]]

    def frame_name_fields(self, names: list[str], match: np.ndarray) -> list[bytes | None]:
        """The 16-byte name field of each frame that is a file frame still named as the file named it."""
        out: list[bytes | None] = [None] * len(names)
        if self.frames is None:
            return out
        for f, (name, m) in enumerate(zip(names, match)):
            if 0 <= m < len(self.frames):
                raw = self.frames[m]["name"].tobytes()
                out[f] = raw if decode_name(raw) == name else None
        return out

    def frame_records(self, bounds, origin, radius, match: np.ndarray, kept_frames: np.ndarray):
        """Bounds, origins and radii with the file's records for the frames written back whole."""
        if self.frames is None:
            return bounds, origin, radius, 0
        rows = np.flatnonzero(kept_frames & (match >= 0) & (match < len(self.frames)))
        records = self.frames[match[rows]]
        bounds[rows], origin[rows], radius[rows] = records["bounds"], records["local_origin"], records["radius"]
        return bounds, origin, radius, len(rows)

    def tag_indices(self, tags: list[bpy.types.Object]) -> list[int | None]:
        return [stored_int(t, MD3_TAG_INDEX, None) for t in tags]

    def model(self, name: str, frame_names, frame_bounds, frame_origin, frame_radius, frame_raw, tag_names,
              tag_origin, tag_axis, tag_fields, surfaces, xyz, normal) -> Md3Model:
        out = []
        for surface, positions, normals in zip(surfaces, xyz, normal):
            kept = self._find(surface)
            header = kept.header if kept is not None else None
            out.append(Md3Surface(
                name=surface.name, name_raw=surface.name_raw, shaders=surface.shaders, triangles=surface.triangles,
                st=surface.st, xyz=positions, normal=normals,
                flags=int(header["flags"]) if header is not None else 0,
                ident=header["ident"].tobytes() if header is not None else b"IDP3"))
        # the codec writes a field as is only while it still holds the frame's name: zeros stand for "new"
        raw = np.array([np.void(r if r is not None else bytes(16)) for r in frame_raw], "V16")
        model = Md3Model(
            name=name, name_raw=self.name_raw if name == self.name else None, flags=self.flags,
            num_skins=self.num_skins, frame_names=list(frame_names), frame_bounds=frame_bounds,
            frame_origin=frame_origin, frame_radius=frame_radius, frame_name_raw=raw,
            tag_names=list(tag_names), tag_origin=tag_origin, tag_axis=tag_axis, tag_name_raw=tag_fields,
            surfaces=out, layout=self.layout)
        if self.tail:
            model.trailing = kept_tail(self.tail, write_md3(model))
        return model

    def notes(self, model: Md3Model) -> list[str]:
        return ([f"wrote back the {len(model.trailing)} bytes the file had after its last block (the model is "
                 "unchanged)"] if model.trailing else [])


def picked(array: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``array[rows]``, as a view (no copy) where ``rows`` is a run of consecutive rows."""
    if len(rows) and bool((np.diff(rows) == 1).all()):
        return array[rows[0]:rows[-1] + 1]
    return array[rows]


def kept_model(root: bpy.types.Object | None, meshes: list[bpy.types.Object]) -> KeptModel:
    """The records an MD3 import left on the model root and its surface meshes."""
    kept = KeptModel(root=root)
    if root is not None:
        kept.table = frame_table(root)
        raw = stored_bytes(root, MD3_NAME)
        if raw is not None:
            kept.name, kept.name_raw = decode_name(raw), raw
        kept.flags, kept.num_skins = stored_int(root, MD3_FLAGS, 0), stored_int(root, MD3_NUM_SKINS, 0)
        kept.frames = kept_frame_records(stored_bytes(root, MD3_FRAMES))
        if kept.frames is not None:
            kept.tags = kept_tag_records(stored_bytes(root, MD3_TAGS), len(kept.frames))
        kept.layout = parse_layout(root.get(MD3_LAYOUT))
        kept.tail = stored_bytes(root, MD3_TAIL)
    for mesh in meshes:
        for surface in mesh_surfaces(mesh.data):
            head, records = surface.record, surface.xyz_normals
            xyz = normal = None
            frames, verts = int(head["num_frames"]), int(head["num_verts"])
            if records is not None and frames > 0 and len(records) == frames * verts * XYZ_NORMAL.itemsize:
                table = np.frombuffer(records, XYZ_NORMAL).reshape(frames, verts)
                xyz, normal = np.ascontiguousarray(table["xyz"]), np.ascontiguousarray(table["normal"])   # compared
            kept.surfaces[(mesh.name, surface.index)] = KeptSurface(xyz, normal, head)
    return kept


def frame_matches(scene: bpy.types.Scene, root: bpy.types.Object | None, sampled) -> tuple[np.ndarray, list[str]]:
    """The file frame each exported frame is, and the frame names: the pipeline's when the meshes hold
    the frame table (an MD2 or MDL import), else by the root's table (the shape key the first surface
    equals, or the place on the timeline), a file frame named as the table names it."""
    match = np.asarray(sampled.exported.match, np.int64)
    names = list(sampled.exported.names)
    if (match >= 0).any() or root is None or not sampled.parts:
        return match, names
    table = frame_table(root)
    if not table:
        return match, names
    part = sampled.parts[0]
    offset = root.classic_model.frame_offset if root.classic_model.source_format else scene.frame_start
    on_timeline = sampled.plan.source == "TIMELINE"
    places = [int(whole(f.time)) - offset if on_timeline and float(whole(f.time)) == f.time else None
              for f in sampled.frames[:len(part.key_indices)]]
    places += [None] * (len(part.key_indices) - len(places))
    match = match_frames(part.obj, table, places, part.key_indices)
    return match, [table[m].name if m >= 0 else n for m, n in zip(match, names)]


def kept_table(root: bpy.types.Object | None) -> list[FrameEntry]:
    return frame_table(root) if root is not None else []


def own_span(match: np.ndarray, count: int) -> np.ndarray:
    """The exported frames to write: on the timeline, an imported model whose scene range shows only its
    own file frames, but more of them than it has (a longer model shares the scene; a Quake III player
    assembled on one timeline, where the legs hold a frame while the torso plays) writes each file frame
    once, in file order, from the first scene frame that shows it (as :func:`...common.frame_table.own_frame_span`
    does for MD2 and MDL). Every frame otherwise: a frame that is none of the file's (``match`` -1), a file
    frame never shown, or ``count`` 0 (not such a model)."""
    every = np.arange(len(match))
    if not count or len(match) <= count or (match < 0).any():
        return every
    first = np.full(count, -1, np.int64)
    seen = match < count
    order = np.flatnonzero(seen)[::-1]                    # reversed: the first occurrence is written last
    first[match[order]] = order
    return every if (first < 0).any() else first
