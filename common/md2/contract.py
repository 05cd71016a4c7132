"""MD2's names of the import/export contract (``common/contract.py``), mesh custom properties unless
said: ``md2_frames`` the file's frame records (name, grid,
bytes, normals); ``md2_st`` the ST table as int16 pairs; ``md2_glcmds`` the GL command words;
``md2_skins`` / ``md2_skin_fields`` the skin names and their 64-byte fields; ``md2_tail`` the bytes
after ``ofs_end`` with the SHA-1 of the bytes before them (:mod:`...formats.file_tail`); corner attribute
``md2_st_index``; material ``["md2_skin"]`` the skin name it stands for, ``["md2_skin_found"]`` set
when it stands for no skin of the file (an image found beside the model; the export leaves it out).
"""
import numpy as np

MD2_FRAMES = "md2_frames"
MD2_ST = "md2_st"
MD2_GLCMDS = "md2_glcmds"
MD2_SKINS = "md2_skins"
MD2_SKIN_FIELDS = "md2_skin_fields"
MD2_SCALE = "md2_scale"
MD2_TAIL = "md2_tail"                # mesh: the bytes after ofs_end and what they followed (formats/file_tail.py)
MD2_SKIN = "md2_skin"                # material
MD2_SKIN_FOUND = "md2_skin_found"    # material: image found beside the model for a skin the file does not name
ST_INDEX_ATTRIBUTE = "md2_st_index"  # corner attribute

# Triangles that use a vertex twice: Blender has no face for them, the mesh keeps them for export.
MD2_DEGENERATE = "md2_degenerate"    # mesh: rows of DEGENERATE_MD2 (file triangle index, xyz, st indices)
DEGENERATE_MD2 = np.dtype([("index", "<i4"), ("xyz", "<u2", (3,)), ("st", "<u2", (3,))])
