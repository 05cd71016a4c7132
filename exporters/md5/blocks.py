"""The mesh blocks of an MD5 export: the meshes in their rest pose, split per object and material, with
their weights.

- Rest pose: the armature is put in its rest position while the meshes are read (the evaluated mesh,
  other modifiers applied), then restored.
- One ``mesh { }`` block per object and material the triangles use; a vertex is split where its corners'
  UVs differ (an MD5 vertex has one ``( u v )``, v down). Triangles are written clockwise seen from the
  front, Blender's counter-clockwise order reversed: every closed mesh among the corpus files (Red
  Eclipse, made by the Doom 3 tools) has a negative volume read counter-clockwise, and the engines draw
  MD5 through the paths that draw MDL and MD2 (clockwise front faces: ironwail ``GL_DrawAliasFrame``,
  Q2PRO ``GL_DrawAliasModel``).
- Weights from the vertex groups named after deforming bones, as the Armature modifier reads them:
  weights of 0 and groups of other names are left out; every other weight is written, the largest
  first, scaled to a sum of 1 (the modifier divides by the sum too). More than
  :data:`...formats.md5.limits.MAX_WEIGHTS_PER_VERTEX` on a vertex are written too: Q2PRO skins with
  every weight (``calc_skel_vert`` in ``src/refresh/mesh.c``), ironwail picks a vertex's four largest
  itself and scales them to a sum of 1 (``MD5_BakeInfluences``), so cutting them here would only lose
  them for Q2PRO; the export says how many vertices have more (:func:`influence_note`). A vertex with
  no weight is tied to joint 0; every vertex of a mesh parented to a bone (without an Armature
  modifier) to that bone's joint. A weight's position is the vertex's bind position in its joint's space.
- An imported block of no vertex (``numverts 0``; real files hold such blocks, and Q2PRO's
  ``MD5_ParseMesh`` reads them) is an object without vertices: it is written back as a block of no
  vertex under its material's name (the kept file's shader when untouched).
- Vertices no face uses: Blender keeps a UV per face corner, so such a vertex has none. Those the imported
  file's block had (a vertex no triangle of the file uses, or one only a triangle that uses a vertex twice
  uses; Q2PRO and ironwail load every vertex whatever the triangles use) are written with the file's UV,
  read by index from the ``.md5mesh`` the import kept (``common/md5/contract.py`` MD5_MESH_SOURCE,
  MD5_MESH_INDEX) while the object has as many vertices as its block had, in the block of the object's
  first material; their weights are the vertex groups', as every vertex's. Any other vertex no face uses
  (one an edit left without a face, one of a mesh made in Blender) is left out, and counted in a warning
  (:class:`BlockReport`). An object without faces is refused unless the file's block had its vertices.
  The triangles that use a vertex twice (no face in Blender; MD5_DEGENERATE) go back at their index then.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import bpy

from ...common.contract import DEGENERATE_MD3
from ...common.md5.contract import MD5_DEGENERATE, MD5_MESH_INDEX
from ...common.stored_records import stored_bytes, stored_int
from ...formats.md5.limits import MAX_WEIGHTS_PER_VERTEX
from ...formats.md5.records import Md5MeshPart
from ...formats.md5.skinning import quat_rotate
from ...formats.message_text import quoted
from ...formats.triangles import drop_degenerate
from ..export_error import ExportError
from ..sampling.kept_triangles import insert_at
from ..sampling.mesh_topology import Topology, object_topology
from ..vertex_weights import vertex_weights
from .rig import parent_bone


@dataclass
class RestMesh:
    """One mesh object in its rest pose, model space."""
    obj: bpy.types.Object
    topology: Topology
    positions: np.ndarray          # (V, 3) model space, scaled
    weights: tuple                 # (vertex, joint, weight) arrays, every kept weight
    loose: tuple | None = None     # (indexes, (N, 2) UVs, v down) of the vertices the file's block had and no
                                   # triangle of it used (:func:`file_loose`), None for no imported block
    degenerate: np.ndarray | None = None   # DEGENERATE_MD3 rows the import kept (with ``loose`` only)


SHOWN_NAMES = 3


def _named(names: list[str]) -> str:
    shown = ", ".join(quoted(n) for n in names[:SHOWN_NAMES])
    more = f" and {len(names) - SHOWN_NAMES} more" if len(names) > SHOWN_NAMES else ""
    return f"object{'s' if len(names) > 1 else ''} {shown}{more}"


def _vertices(count: int) -> str:
    return "1 vertex" if count == 1 else f"{count} vertices"


@dataclass
class BlockReport:
    unweighted: int = 0            # vertices with no weight (tied to joint 0)
    left_out: dict[str, int] = field(default_factory=dict)   # object name -> vertices no face uses, left out
    loose_kept: list[int] = field(default_factory=list)     # per block built: the file's loose vertices written

    def lines(self) -> list[str]:
        out = [f"{self.unweighted} vertices have no bone weight: tied to the first joint"] if self.unweighted else []
        if self.left_out:
            count = sum(self.left_out.values())
            out.append(f"{_vertices(count)} no face uses left out ({_named(list(self.left_out))}): an MD5 vertex "
                       "takes its texture coordinates from a face; give it a face to keep it")
        return out

    def rebuilt_lines(self, parts: list[Md5MeshPart], written: list[Md5MeshPart]) -> list[str]:
        """The note for the blocks of ``parts`` (built) that are ``written`` as built (not as the kept file's):
        how many vertices no face uses they keep from the imported file."""
        count = sum(kept for part, kept in zip(parts, self.loose_kept) if any(part is w for w in written))
        return [f"{_vertices(count)} no face uses kept in rebuilt mesh blocks, with the imported file's texture "
                "coordinates and the vertex groups' weights"] if count else []


def influence_note(parts: list[Md5MeshPart]) -> list[str]:
    """The line that says how many vertices of the written ``parts`` have more weights than ironwail draws."""
    counts = [np.asarray(p.weight_count) for p in parts if len(p.weight_count)]
    return influence_line(sum(int((c > MAX_WEIGHTS_PER_VERTEX).sum()) for c in counts),
                          max((int(c.max()) for c in counts), default=0))


def influence_line(over: int, most: int) -> list[str]:
    """:func:`influence_note` of ``over`` vertices with more than four weights, ``most`` the most on one."""
    if not over:
        return []
    counted = "1 vertex has" if over == 1 else f"{over} vertices have"
    return [f"{counted} more than {MAX_WEIGHTS_PER_VERTEX} bone weights (up to {most}): all are written; "
            f"ironwail draws each with its {MAX_WEIGHTS_PER_VERTEX} largest scaled to a sum of 1, "
            "Q2PRO with every one"]


@dataclass
class Blocks:
    parts: list[Md5MeshPart]
    sources: list[tuple[int, int]]         # (mesh index, material index) of each block
    corners: list[np.ndarray]              # per block: (T, 3) indexes into the merged corner list (CCW order)
    report: BlockReport = field(default_factory=BlockReport)


def file_loose(obj: bpy.types.Object, topology: Topology, kept) -> tuple[np.ndarray, np.ndarray] | None:
    """(indexes, UVs as the file gives them, v down) of the vertices no triangle Blender has a face for
    uses in the block of ``kept`` (:class:`.write_back.KeptMesh`, the imported ``.md5mesh``) that ``obj``
    stands for (MD5_MESH_INDEX); None when ``obj`` stands for none or has another count of vertices than
    that block. Where the mesh objects are the import's (``kept.untouched``), their faces are the file's
    triangles that use no vertex twice: while every vertex is on a face, none is loose and the kept text
    is not read."""
    index = stored_int(obj, MD5_MESH_INDEX, None)
    if kept is None or index is None:
        return None
    num_vertices = topology.num_vertices
    if kept.untouched:
        on_face = np.zeros(num_vertices, bool)
        on_face[np.asarray(topology.triangles, np.int64).ravel()] = True
        if on_face.all():
            return np.zeros(0, np.int64), np.zeros((0, 2))
    record = kept.record()
    if record is None or not 0 <= index < len(record.meshes):
        return None
    part = record.meshes[index]
    if part.num_verts != num_vertices:
        return None
    used = np.zeros(num_vertices, bool)
    triangles = np.asarray(part.triangles, np.int64).reshape(-1, 3)
    used[triangles[drop_degenerate(triangles)].ravel()] = True
    loose = np.flatnonzero(~used)
    return loose, np.asarray(part.uv, np.float64)[loose]


def _kept_degenerate(obj: bpy.types.Object, num_vertices: int) -> np.ndarray | None:
    """The DEGENERATE_MD3 rows the import kept on ``obj``'s mesh (MD5_DEGENERATE), None without valid ones."""
    raw = stored_bytes(obj.data, MD5_DEGENERATE) or b""
    if not raw or len(raw) % DEGENERATE_MD3.itemsize:
        return None
    rows = np.frombuffer(raw, DEGENERATE_MD3)
    return rows if rows["indexes"].min() >= 0 and rows["indexes"].max() < num_vertices else None


def read_rest_meshes(context, meshes: list[bpy.types.Object], armature: bpy.types.Object, order: list[str],
                     model: np.ndarray, scale: float, kept=None) -> list[RestMesh]:
    """Each mesh in the rest pose: topology, model-space positions (``model`` @ world), weights; ``kept``
    the imported ``.md5mesh`` (:class:`.write_back.KeptMesh`) that gives the vertices no face uses their UVs (:func:`file_loose`)."""
    saved = armature.data.pose_position
    try:
        armature.data.pose_position = "REST"
        context.view_layer.update()
        return [_rest_mesh(context, obj, armature, order, model, scale, kept) for obj in meshes]
    finally:
        armature.data.pose_position = saved
        context.view_layer.update()


def _rest_mesh(context, obj, armature, order: list[str], model: np.ndarray, scale: float, kept=None) -> RestMesh:
    topology = object_topology(context, obj)
    if not topology.num_vertices and stored_int(obj, MD5_MESH_INDEX, None) is not None:
        return RestMesh(obj, topology, np.zeros((0, 3)), (np.zeros(0, np.int64),) * 2 + (np.zeros(0),))
    loose = file_loose(obj, topology, kept)
    degenerate = _kept_degenerate(obj, topology.num_vertices) if loose is not None else None
    if not len(topology.triangles) and (loose is None or not len(loose[0])):
        raise ExportError(f"object {quoted(obj.name)} has no faces")
    if topology.corner_uvs is None and len(topology.triangles):
        raise ExportError(f"object {quoted(obj.name)} has no UV map; MD5 needs texture coordinates")
    obj_eval = obj.evaluated_get(context.evaluated_depsgraph_get())
    mesh = obj_eval.to_mesh()
    try:
        co = np.empty(len(mesh.vertices) * 3, np.float32)
        mesh.vertices.foreach_get("co", co)
        bones = armature.data.bones
        joint_of = {name: j for j, name in enumerate(order) if bones[name].use_deform}
        vertex, joint, weight = vertex_weights(mesh, obj, joint_of)
    finally:
        obj_eval.to_mesh_clear()
    matrix = model @ np.array(obj.matrix_world, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):          # refused as not finite by the build
        positions = (co.reshape(-1, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]) * scale
    bone = parent_bone(obj)
    if bone:                          # a rigid part: every vertex follows its bone alone
        count = len(positions)
        return RestMesh(obj, topology, positions, (np.arange(count), np.full(count, order.index(bone)), np.ones(count)),
                        loose, degenerate)
    return RestMesh(obj, topology, positions, (vertex, joint, weight), loose, degenerate)


def vertex_slots(rest: RestMesh, report: BlockReport) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per vertex: start and count into (joint, bias) arrays sorted by vertex, largest weight first, every
    weight of the vertex, scaled to a sum of 1."""
    vertex, joint, weight = rest.weights
    count_all = np.bincount(vertex, minlength=len(rest.positions))
    none = np.flatnonzero(count_all == 0)
    report.unweighted += len(none)
    vertex = np.concatenate([vertex, none])
    joint = np.concatenate([joint, np.zeros(len(none), np.int64)])
    weight = np.concatenate([weight, np.ones(len(none))])
    order = np.lexsort((-weight, vertex))
    vertex, joint, weight = vertex[order], joint[order], weight[order]
    total = np.bincount(vertex, weight, minlength=len(rest.positions))
    count = np.bincount(vertex, minlength=len(rest.positions))
    return np.cumsum(count) - count, count, joint, weight / total[vertex]


def build_blocks(rests: list[RestMesh], bind_pos: np.ndarray, bind_quat: np.ndarray, per_material: bool = True,
                 corner_uvs: np.ndarray | None = None, shader=None) -> Blocks:
    """The mesh blocks. ``corner_uvs``: (T, 3, 2) UVs for every triangle of every mesh in order (the
    classic model's own, for its twin), else the meshes'; ``shader(rest, material_index)`` names a block."""
    blocks = Blocks([], [], [])
    conjugate = bind_quat * np.array([-1.0, -1.0, -1.0, 1.0])
    offset = 0
    for m, rest in enumerate(rests):
        start, count, joint, bias = vertex_slots(rest, blocks.report)
        triangles = rest.topology.triangles.astype(np.int64)
        if not len(rest.positions):                  # an imported block of no vertex: one of none again
            empty = np.zeros(0, np.int64)
            name = shader(rest, 0) if shader is not None else _material_name(rest.obj, 0)
            blocks.parts.append(Md5MeshPart(name, np.zeros((0, 2)), empty, empty, np.zeros((0, 3), np.int64), empty,
                                            np.zeros(0), np.zeros((0, 3))))
            blocks.sources.append((m, 0))
            blocks.corners.append(np.zeros((0, 3), np.int64))
            blocks.report.loose_kept.append(0)
            continue
        uvs = (corner_uvs[offset:offset + len(triangles)] if corner_uvs is not None else rest.topology.corner_uvs)
        uvs = np.zeros((0, 3, 2)) if uvs is None else np.asarray(uvs, np.float64)      # None: no faces
        corner_index = np.arange(offset * 3, (offset + len(triangles)) * 3).reshape(-1, 3)
        offset += len(triangles)
        materials = rest.topology.material_index if per_material and rest.topology.material_index is not None \
            else np.zeros(len(triangles), np.int64)
        loose_key = _loose_key(rest, triangles, blocks.report)
        present = np.unique(materials)
        for material in present if len(present) or not len(loose_key) else np.zeros(1, np.int64):
            chosen = materials == material
            tris, tri_uv = triangles[chosen], uvs[chosen]
            key = np.concatenate([tris.reshape(-1, 1).astype(np.float64), tri_uv.reshape(-1, 2)], axis=1)
            first_block = material == min(present, default=material)
            loose = loose_key if first_block else loose_key[:0]
            unique, inverse = np.unique(np.concatenate([key, loose]), axis=0, return_inverse=True)
            source = unique[:, 0].astype(np.int64)
            uv = np.stack([unique[:, 1], 1.0 - unique[:, 2]], axis=1)
            file_tris = inverse.ravel()[:len(key)].reshape(-1, 3)[:, ::-1]
            if first_block and rest.degenerate is not None:     # the file's triangles Blender has no face for
                file_tris = _with_degenerate(file_tris, unique[:, 0].astype(np.int64), rest)
            counts = count[source]
            starts = np.cumsum(counts) - counts
            taken = np.repeat(start[source], counts) + (np.arange(counts.sum()) - np.repeat(starts, counts))
            owner = np.repeat(source, counts)
            w_joint = joint[taken]
            local = quat_rotate(conjugate[w_joint], rest.positions[owner] - bind_pos[w_joint])
            name = shader(rest, int(material)) if shader is not None else _material_name(rest.obj, int(material))
            blocks.parts.append(Md5MeshPart(name, uv, starts, counts, file_tris, w_joint, bias[taken], local))
            blocks.sources.append((m, int(material)))
            blocks.corners.append(corner_index[chosen])
            blocks.report.loose_kept.append(len(loose))
    return blocks


def _with_degenerate(file_tris: np.ndarray, source: np.ndarray, rest: RestMesh) -> np.ndarray:
    """``file_tris`` with the import's degenerate triangles at their index, in the block's vertex numbers
    (``source``: each block vertex's mesh vertex; a mesh vertex's first); rows of a vertex not there left out."""
    first = np.full(len(rest.positions), -1, np.int64)
    first[source[::-1]] = np.arange(len(source))[::-1]
    mapped = first[rest.degenerate["indexes"].astype(np.int64)]
    there = (mapped >= 0).all(axis=1)
    return insert_at(file_tris, mapped[there], rest.degenerate["index"][there])


def _loose_key(rest: RestMesh, triangles: np.ndarray, report: BlockReport) -> np.ndarray:
    """(N, 3) rows (vertex, u, 1 - v) of the vertices no face uses that the imported file's block had (its
    UVs, as the blocks' keys hold a corner's Blender UV); the others no face uses are counted as left out."""
    used = np.zeros(len(rest.positions), bool)
    used[triangles.ravel()] = True
    index, uv = rest.loose if rest.loose is not None else (np.zeros(0, np.int64), np.zeros((0, 2)))
    keep = ~used[index]
    left_out = int((~used).sum()) - int(keep.sum())
    if left_out:
        report.left_out[rest.obj.name] = report.left_out.get(rest.obj.name, 0) + left_out
    return np.column_stack([index[keep].astype(np.float64), uv[keep, 0], 1.0 - uv[keep, 1]])


def _material_name(obj: bpy.types.Object, index: int) -> str:
    slots = obj.material_slots
    material = slots[index].material if index < len(slots) else None
    return material.name if material is not None else obj.name
