"""MS3D data no Blender object holds, merged back into the file: the import's kept vertices,
triangles and group memberships, file order of records, comments and optional blocks."""
from __future__ import annotations

import numpy as np

from ...common.ms3d.contract import (
    KEPT_COMMENTS,
    KEPT_TRIANGLE,
    KEPT_TRIANGLES,
    KEPT_VERTEX,
    KEPT_VERTICES,
    MATERIAL_PROP,
    MODEL_EXTRAS_DEFAULTS,
)
from ...common.stored_records import stored_group, stored_int
from ...formats.ms3d.records import Ms3dComment, Ms3dComments
from ...formats.ms3d.text import encode_text
from .parts import NEW, TRIANGLE_RECORD, VERTEX_RECORD, JointTable, Part
from .values import raw_field

DEFAULT_BLOCKS = {"comments": 1, "vertex extras": 3, "joint extras": 1, "model extras": 1}
BLOCK_ORDER = tuple(DEFAULT_BLOCKS)


def merge_records(tables: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    """One table of ``tables``' rows with identical rows merged, ordered by ``uid`` (file order first,
    then new rows in the order given), and each input row's index in it. Only rows of the same file
    item (``uid`` below NEW) are merged, so only those are compared."""
    dtype = tables[0].dtype if tables else VERTEX_RECORD
    everything = np.concatenate(tables) if tables else np.zeros(0, dtype)
    bounds = np.cumsum([0] + [len(t) for t in tables])
    key = np.where(everything["uid"] < NEW, everything["uid"], NEW + np.arange(len(everything)))
    order = np.argsort(key, kind="stable")
    target = np.arange(len(everything))
    uids = key[order]
    shared = np.flatnonzero(uids[1:] == uids[:-1]) + 1
    if len(shared):
        raw = everything.view(np.dtype((np.void, dtype.itemsize)))
        for k in shared.tolist():
            start = k
            while start > 0 and uids[start - 1] == uids[k]:
                start -= 1
            row = order[k]
            match = next((order[j] for j in range(start, k) if target[order[j]] == order[j]
                          and raw[order[j]] == raw[row]), None)
            if match is not None:
                target[row] = match
    keep = order[target[order] == order]
    rank = np.full(len(everything), -1, dtype=np.int64)
    rank[keep] = np.arange(len(keep))
    rank = rank[target]
    return everything[keep], [rank[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def kept_vertices(record, joints: JointTable) -> np.ndarray:
    """The file's vertices no group held, as the import kept them (joint ids renumbered)."""
    raw = raw_field(record, KEPT_VERTICES)
    if not raw:
        return np.zeros(0, VERTEX_RECORD)
    kept = np.frombuffer(raw, dtype=KEPT_VERTEX)
    out = np.zeros(len(kept), dtype=VERTEX_RECORD)
    out["uid"] = kept["index"]
    for name in ("xyz", "flags", "refcount"):
        out[name] = kept["record"][name]
    bone, ids = kept["record"]["bone"].astype(np.int64), kept["ids"].astype(np.int64)
    if joints.original_to_export:
        bone, ids, _ = remap_joints(bone, ids, joints.original_to_export)
    out["bone"], out["ids"], out["weights"], out["extra"] = bone, ids, kept["weights"], kept["extra"]
    return out


def kept_triangles(record, by_uid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The file's triangles no group held (TRIANGLE_RECORD rows, their file group bytes, their file
    indices), for those whose vertices are still exported."""
    raw = raw_field(record, KEPT_TRIANGLES)
    if not raw:
        return np.zeros(0, TRIANGLE_RECORD), np.zeros(0, np.int64), np.zeros(0, np.int64)
    kept = np.frombuffer(raw, dtype=KEPT_TRIANGLE)
    vertices = kept["record"]["vertices"].astype(np.int64)
    inside = vertices < len(by_uid)
    mapped = np.where(inside, by_uid[np.minimum(vertices, max(len(by_uid) - 1, 0))] if len(by_uid) else -1, -1)
    alive = np.all(mapped >= 0, axis=1)
    rows = np.zeros(int(alive.sum()), dtype=TRIANGLE_RECORD)
    rows["uid"], rows["vertices"] = kept["index"][alive], mapped[alive]
    for name, source in (("normals", "normals"), ("s", "s"), ("t", "t"), ("smoothing", "smoothing_group"),
                         ("flags", "flags")):
        rows[name] = kept["record"][source][alive]
    return rows, kept["record"]["group"][alive].astype(np.int64), kept["index"][alive].astype(np.int64)


def uid_lookup(table: np.ndarray) -> np.ndarray:
    """File vertex index -> its row in ``table`` (the first one), -1 where it is not exported."""
    uids = table["uid"]
    real = np.flatnonzero(uids < NEW)
    lookup = np.full(int(uids[real].max()) + 1 if len(real) else 0, -1, dtype=np.int64)
    lookup[uids[real][::-1]] = real[::-1]
    return lookup


def triangle_rows(part: Part, local_to_global: np.ndarray) -> np.ndarray:
    rows = np.zeros(len(part.corners), dtype=TRIANGLE_RECORD)
    rows["uid"], rows["vertices"] = part.tri_order, local_to_global[part.corners]
    rows["normals"], rows["s"], rows["t"] = part.normals, part.s, part.t
    rows["smoothing"], rows["flags"] = part.smoothing, part.tri_flags
    return rows


def ordered_comments(kind: str, entries: list[tuple[int, int | None, bytes]], record) -> list[Ms3dComment]:
    """Comments ``(exported index, file index or None, text)`` in the file's order: each at the place
    its item's comment had, the import's stray comments (for no item, or a second one) back at theirs,
    new ones last."""
    order = list(record.get(f"{kind}_comment_order", [])) if record else []
    strays = list(record.get(KEPT_COMMENTS.format(kind), [])) if record else []
    stray_positions = {int(s["position"]) for s in strays}
    first: dict[int, int] = {}
    for position, index in enumerate(order):
        if position not in stray_positions:
            first.setdefault(int(index), position)
    keyed = [(first.get(original, len(order) + exported) if original is not None else len(order) + exported,
              Ms3dComment(exported, text)) for exported, original, text in entries]
    keyed += [(int(s["position"]), Ms3dComment(int(s["index"]), bytes.fromhex(s["raw"]))) for s in strays]
    return [comment for _, comment in sorted(keyed, key=lambda item: item[0])]


def blocks_needed(record: dict, comments: Ms3dComments, vertex_extras_needed: bool,
                   joint_colors: bool, model_extras: tuple) -> dict[str, int]:
    stored = dict(record["blocks"]) if record and "blocks" in record else None
    blocks = dict(DEFAULT_BLOCKS) if stored is None else {k: int(v) for k, v in stored.items()}
    depth = max([BLOCK_ORDER.index(k) + 1 for k in blocks] + [0])
    has_comments = (comments.group or comments.material or comments.joint or comments.model_raw is not None)
    for needed, name in ((has_comments, "comments"), (vertex_extras_needed, "vertex extras"),
                         (joint_colors, "joint extras"),
                         (tuple(np.float32(model_extras)) != tuple(np.float32(MODEL_EXTRAS_DEFAULTS)), "model extras")):
        if needed:
            depth = max(depth, BLOCK_ORDER.index(name) + 1)
    return {name: blocks.get(name, DEFAULT_BLOCKS[name]) for name in BLOCK_ORDER[:depth]}


def model_comments(record, root, group_comments: list, materials: list, exported_materials: list,
              joints: JointTable) -> Ms3dComments:
    material_comments = [(i, stored_int(stored_group(m, MATERIAL_PROP), "index", None), c)
                         for i, (m, (_, c)) in enumerate(zip(materials, exported_materials)) if c is not None]
    joint_original = {new: old for old, new in joints.original_to_export.items()}
    joint_comments = [(i, joint_original.get(i), c) for i, c in enumerate(joints.comments) if c is not None]
    comments = Ms3dComments(group=ordered_comments("group", group_comments, record),
                            material=ordered_comments("material", material_comments, record),
                            joint=ordered_comments("joint", joint_comments, record))
    if root is not None:
        text = root.classic_model.ms3d_comment
        if record and "comment_raw" in record and record.get("comment_shown") == text:
            comments.model_raw, comments.model_flag = raw_field(record, "comment_raw"), int(record.get("comment_flag", 1))
        elif text:
            comments.model_raw = encode_text(text)
    return comments


def remap_joints(bone: np.ndarray, ids: np.ndarray, original_to_export: dict[int, int]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Raw joint indices (of the imported file) as exported indices; ``known`` is False for a vertex
    that names a joint no longer exported. Values that were never valid joints are kept."""
    size = max(list(original_to_export) + [-1]) + 1
    table = np.full(max(size, 1), -2, dtype=np.int64)
    for old, new in original_to_export.items():
        table[old] = new
    values = np.column_stack([bone, ids]).astype(np.int64)
    in_table = (values >= 0) & (values < size)
    mapped = values.copy()
    mapped[in_table] = table[values[in_table]]
    known = ~np.any(mapped == -2, axis=1)
    mapped[mapped == -2] = -1
    return mapped[:, 0], mapped[:, 1:], known

