"""MDL's names of the import/export contract (``common/contract.py``; the skin names several
modules read are there): ``mdl_poses`` pose records, ``mdl_grid`` scale + translate, ``mdl_frame_slots`` (JSON) the
frame list with groups; point attributes ``mdl_onseam``/``mdl_s``/``mdl_t``; face attribute
``mdl_facesfront``; ``mdl_tail`` the bytes after the last frame (as ``md2_tail``);
images keep ``["mdl_indices"]``, materials ``["mdl_skin_intervals"]``. MD16 pose
records include their low-byte block; RAPO keeps its texcoord table (``mdl_st``) and corner indices
into it (``mdl_st_index``) instead of the point attributes; the object's ``["mdl_variant"]`` names
the flavour.
"""
import numpy as np

MDL_POSES = "mdl_poses"
MDL_GRID = "mdl_grid"
MDL_FRAME_SLOTS = "mdl_frame_slots"
MDL_SCALE = "mdl_scale"
MDL_TAIL = "mdl_tail"                # mesh: the bytes after the last frame, as MD2_TAIL
FACESFRONT = "mdl_facesfront"
TEXCOORD_ATTRIBUTES = ("mdl_onseam", "mdl_s", "mdl_t")
MDL_PALETTE = "mdl_palette"          # object: the 768 bytes of the palette its game folder gave the import (export default)
MDL_VARIANT = "mdl_variant"          # object: "IDPO", "MD16" or "RAPO", the flavour the file was (export default)
MDL_ST = "mdl_st"                    # mesh (RAPO): the num_st_verts texcoord records as read
MDL_ST_INDEX = "mdl_st_index"        # corner attribute (RAPO): the triangle's stindex for the corner
MDL_DEGENERATE_ST = "mdl_degenerate_st"  # mesh (RAPO): stindex rows parallel to MDL_DEGENERATE

MDL_DEGENERATE = "mdl_degenerate"    # mesh: rows of DEGENERATE_MDL (file triangle index, facesfront, vertices)
DEGENERATE_MDL = np.dtype([("index", "<i4"), ("facesfront", "<i4"), ("vertices", "<i4", (3,))])
DEGENERATE_MDL_ST = np.dtype([("st", "<i4", (3,))])
