"""MS3D's names of the import/export contract (``common/contract.py``): see
:mod:`...importers.ms3d.ms3d_import` for what each name holds.
"""
import numpy as np

from ...formats.ms3d.records import TRIANGLE, VERTEX

MODEL_PROP = "ms3d_model"
GROUP_PROP = "ms3d_group"
MATERIAL_PROP = "ms3d_material"
JOINT_PROP = "ms3d_joint"
COMMENT_PROP = "ms3d_comment"
VERTEX_INDEX = "ms3d_vertex_index"
VERTEX_FLAGS = "ms3d_vertex_flags"
REFCOUNT = "ms3d_refcount"
SKIN_JOINTS = "ms3d_skin_joints"
SKIN_WEIGHTS = "ms3d_skin_weights"
VERTEX_EXTRA = ("ms3d_extra_0", "ms3d_extra_1")
TRIANGLE_INDEX = "ms3d_triangle_index"
TRIANGLE_FLAGS = "ms3d_triangle_flags"
SMOOTHING_GROUP = "ms3d_smoothing_group"
CORNER_NORMAL = "ms3d_normal"
CORNER_NORMAL_SHOWN = "ms3d_normal_shown"
CORNER_T = "ms3d_t"
TRIANGLE_GROUP = "ms3d_triangle_group"
GENERATED_KEY = 5                    # Keyframe.type 'GENERATED' as stored: keys the import added
MODEL_EXTRAS_DEFAULTS = (1.0, 0, 0.5)  # joint size, transparency mode, alpha ref (MilkShape's own)
KEPT_VERTEX = np.dtype([("index", "<i4"), ("record", VERTEX), ("ids", "i1", (3,)), ("weights", "u1", (3,)),
                        ("extra", "<u4", (2,))])   # model object: a vertex no group uses
KEPT_TRIANGLE = np.dtype([("index", "<i4"), ("record", TRIANGLE)])   # a triangle no mesh holds
KEPT_VERTICES = "kept_vertices"       # keys of the model object's MODEL_PROP record (hex of the rows)
KEPT_TRIANGLES = "kept_triangles"
KEPT_MEMBERSHIPS = "kept_memberships"
KEPT_COMMENTS = "kept_{}_comments"
