"""The contract between import and export: every name an import leaves on Blender data for the
export to read. Importers and exporters both import it; neither imports the other.

MD2 (mesh custom properties unless said): ``md2_frames`` the file's frame records (name, grid,
bytes, normals); ``md2_st`` the ST table as int16 pairs; ``md2_glcmds`` the GL command words;
``md2_skins`` / ``md2_skin_fields`` the skin names and their 64-byte fields; ``md2_tail`` the bytes
after ``ofs_end`` with the SHA-1 of the bytes before them (:mod:`..formats.file_tail`); corner attribute
``md2_st_index``; material ``["md2_skin"]`` the skin name it stands for, ``["md2_skin_found"]`` set
when it stands for no skin of the file (an image found beside the model; the export leaves it out).
Images keep ``["source_path"]`` and ``["source_digest"]`` to tell an unchanged import, and
``["source_archive"]``, ``["source_member"]`` when they were read from a game archive.
Objects imported from a game archive keep ``["archive_path"]`` and ``["archive_member"]`` (shown in
the sidebar; the export dialog offers the member's path under the chosen game folder); objects imported
from a loose file keep ``["source_file"]`` (the export dialog opens at its folder and name).
MDL: ``mdl_poses`` pose records, ``mdl_grid`` scale + translate, ``mdl_frame_slots`` (JSON) the
frame list with groups; point attributes ``mdl_onseam``/``mdl_s``/``mdl_t``; face attribute
``mdl_facesfront``; ``mdl_tail`` the bytes after the last frame (as ``md2_tail``);
images keep ``["mdl_indices"]``, materials ``["mdl_skin_intervals"]``. MD16 pose
records include their low-byte block; RAPO keeps its texcoord table (``mdl_st``) and corner indices
into it (``mdl_st_index``) instead of the point attributes; the object's ``["mdl_variant"]`` names
the flavour.
MS3D: see :mod:`..importers.ms3d.ms3d_import` for what each name holds. The exports read their
top-level records back through :mod:`.stored_records` (the MD3 export's own readers check the same way),
which takes a value of another type (a script's, another add-on's) as no record.
MD3: see the ``# MD3`` block below: a model root (an empty per file) holding the file-level records,
one mesh object per surface and one empty per tag under it.
The file's frame table is ``Object.classic_model.frames`` (fields ``name``, ``file_name``,
``shape_key``, ``group``, ``interval``; see ``ui/properties.py``), read and written only through
:mod:`.frame_table`. ``classic_model.animation_mode`` says whether the import made one action per
animation; ``classic_model.animations[i].action`` is that action.
"""
import numpy as np

from ..formats.ms3d.records import TRIANGLE, VERTEX

# Both vertex-animation formats
FRAME_NAMES = "frame_names"          # mesh: frame names, as imports before the frame table left them
                                     # (now Object.classic_model.frames, see frame_table.py)
SOURCE_PATH = "source_path"          # image: the file it was decoded from
SOURCE_DIGEST = "source_digest"      # image: SHA-1 of its packed data at import (unchanged while equal)
SOURCE_ARCHIVE = "source_archive"    # image: the game archive it was read from (with SOURCE_MEMBER)
SOURCE_MEMBER = "source_member"      # image: its member name there; an unchanged image exports those bytes
IMPORT_SHADING = "import_shading"    # mesh: its vertex normals as the import left them, int8 x 3 a vertex
                                     # (common/import_shading.py: stored normals go back while they hold)
PCX_INDICES = "pcx_indices"          # image: an 8-bit PCX's palette indices as decoded (pixels still showing
                                     # their colour keep their index when the edited image is written as PCX)

# Every format: a name the product made (materials, objects), not the user (see generated_names.py)
MADE_NAME = "classic_model_made_name"   # the name as made; an exporter may shorten it while it is unchanged

# Every format: an object imported from a game archive (importers/file_source.py)
ARCHIVE_PATH = "archive_path"        # object: the .pak/.pk3 file it was read from
ARCHIVE_MEMBER = "archive_member"    # object: its member name there (a game path: players/male/tris.md2)
SOURCE_FILE = "source_file"          # object: the loose file it was imported from (the export dialog opens there)

# MD2
MD2_FRAMES = "md2_frames"
MD2_ST = "md2_st"
MD2_GLCMDS = "md2_glcmds"
MD2_SKINS = "md2_skins"
MD2_SKIN_FIELDS = "md2_skin_fields"
MD2_SCALE = "md2_scale"
MD2_TAIL = "md2_tail"                # mesh: the bytes after ofs_end and what they followed (formats/file_tail.py)
MD2_SKIN = "md2_skin"                # material
MD2_SKIN_FOUND = "md2_skin_found"    # material: image found beside the model for a skin the file does not name
FILE_COUNTS = "file_counts"          # mesh: JSON, the imported file's counts (vertices, triangles, frames, ...)
ST_INDEX_ATTRIBUTE = "md2_st_index"  # corner attribute

# MDL
MDL_POSES = "mdl_poses"
MDL_GRID = "mdl_grid"
MDL_FRAME_SLOTS = "mdl_frame_slots"
MDL_SCALE = "mdl_scale"
MDL_TAIL = "mdl_tail"                # mesh: the bytes after the last frame, as MD2_TAIL
FACESFRONT = "mdl_facesfront"
TEXCOORD_ATTRIBUTES = ("mdl_onseam", "mdl_s", "mdl_t")
SKIN_NODE = "mdl_skin_{}"
FULLBRIGHT_NODE = "mdl_fullbright_{}"
INTERVALS = "mdl_skin_intervals"
INDICES = "mdl_indices"
MDL_PALETTE = "mdl_palette"          # object: the 768 bytes of the palette its game folder gave the import (export default)
MDL_VARIANT = "mdl_variant"          # object: "IDPO", "MD16" or "RAPO", the flavour the file was (export default)
MDL_ST = "mdl_st"                    # mesh (RAPO): the num_st_verts texcoord records as read
MDL_ST_INDEX = "mdl_st_index"        # corner attribute (RAPO): the triangle's stindex for the corner
MDL_DEGENERATE_ST = "mdl_degenerate_st"  # mesh (RAPO): stindex rows parallel to MDL_DEGENERATE

# MS3D
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
DEFAULT_FPS = 24.0                   # an MS3D's or MD5's rate the scene cannot play is played at this
MIN_FPS, MAX_FPS = 1e-3, 32767.0     # what Scene.render.fps / fps_base can express (imports and the MD5 export)
MODEL_EXTRAS_DEFAULTS = (1.0, 0, 0.5)  # joint size, transparency mode, alpha ref (MilkShape's own)
KEPT_VERTEX = np.dtype([("index", "<i4"), ("record", VERTEX), ("ids", "i1", (3,)), ("weights", "u1", (3,)),
                        ("extra", "<u4", (2,))])   # model object: a vertex no group uses
KEPT_TRIANGLE = np.dtype([("index", "<i4"), ("record", TRIANGLE)])   # a triangle no mesh holds
KEPT_VERTICES = "kept_vertices"       # keys of the model object's MODEL_PROP record (hex of the rows)
KEPT_TRIANGLES = "kept_triangles"
KEPT_MEMBERSHIPS = "kept_memberships"
KEPT_COMMENTS = "kept_{}_comments"

# Triangles that use a vertex twice: Blender has no face for them, the mesh keeps them for export.
MD2_DEGENERATE = "md2_degenerate"    # mesh: rows of DEGENERATE_MD2 (file triangle index, xyz, st indices)
DEGENERATE_MD2 = np.dtype([("index", "<i4"), ("xyz", "<u2", (3,)), ("st", "<u2", (3,))])
MDL_DEGENERATE = "mdl_degenerate"    # mesh: rows of DEGENERATE_MDL (file triangle index, facesfront, vertices)
DEGENERATE_MDL = np.dtype([("index", "<i4"), ("facesfront", "<i4"), ("vertices", "<i4", (3,))])
DEGENERATE_MDL_ST = np.dtype([("st", "<i4", (3,))])

# MD3 (Quake III). One file = one *model root*: an empty object (named after the file, a made name)
# parenting one mesh object per surface (file order) and one empty per tag. Frame f of the file is
# shape key f of every surface mesh (frame table on the ROOT: ``root.classic_model.frames``, shape_key
# naming the key every surface uses for that frame) and key f of every tag empty's animation. Records
# are kept as the file's bytes (formats/md3/records.py dtypes) so an untouched export writes them back:
# the export re-encodes what Blender evaluates and uses a kept record wherever it encodes to the same
# values. Vertex i of a surface is mesh vertex i; triangle i is polygon i (degenerate triangles, which
# Blender cannot hold, in MD3_DEGENERATE rows); the surface's own per-vertex st is the UV of every
# corner of that vertex.
# Merged (the import's *Merge Surfaces*): ONE mesh object holds every surface of the file. Its
# MD3_SURFACE holds every surface's header one after the other (file order; their number is the
# surface count), MD3_SHADERS / MD3_ST / MD3_XYZ_NORMALS every surface's block one after the other
# (sizes from the headers' counts); surface s owns the num_verts vertices after the previous surfaces'
# and the faces of material slot s (``material_index`` s, the slot holding its material); its
# MD3_DEGENERATE rows number triangles and vertices in that merged order; MD3_SURFACE_INDEX is 0.
# Read by index only, through common/md3_surfaces.py (a mesh made per surface reads the same way).
# Actions mode (``classic_model.animation_mode`` 'ACTIONS' on the root): each surface mesh and each tag
# empty lists the root's animations in the root's order, each with its own action (the surface's shape
# keys', the empty's); the root's list has no actions.
MD3_ROOT = "md3_root"                # object (root): the MD3 part it stands for: "" (a plain model) or
                                     # "lower" / "upper" / "head" (a Quake III player part); its presence
                                     # marks the root
MD3_NAME = "md3_name"                # object (root): the header's 64-byte name field as read
MD3_FLAGS = "md3_flags"              # object (root): header flags (int)
MD3_NUM_SKINS = "md3_num_skins"      # object (root): header numSkins (int, unused by the engines)
MD3_FRAMES = "md3_frames"            # object (root): F x FRAME records as read (bounds, origin, radius, name)
MD3_TAGS = "md3_tags"                # object (root): F x T x TAG records as read (frame-major)
MD3_LAYOUT = "md3_layout"            # object (root): JSON of formats.md3.records.Md3Layout (filler as hex)
MD3_TAIL = "md3_tail"                # object (root): Md3Model.tail_record (formats/file_tail.py)
MD3_LOD = "md3_lod"                  # object (root): 0 for x.md3, 1 for x_1.md3, 2 for x_2.md3
MD3_SKINS = "md3_skins"              # object (root): JSON {skin set name: {"file": member or path,
                                     # "raw": hex of the .skin file}} found beside the model
MD3_SKIN_SET = "md3_skin_set"        # object (root): the skin set the materials show now ("" = the shaders)
MD3_ANIMATION_CFG = "md3_animation_cfg"  # object (root of "lower", or a plain model): animation.cfg bytes
MD3_ICONS = "md3_icons"              # object (root of "lower"): {file name: bytes} of the player's icon_<set>
                                     # .tga/.jpg/.png found beside it, written back unless asked to render them
MD3_SURFACE_INDEX = "md3_surface_index"  # object (surface mesh): its index in the file (export order)
MD3_SURFACE = "md3_surface"          # mesh: the SURFACE header record as read (ident, name, flags, ...)
MD3_SHADERS = "md3_shaders"          # mesh: its SHADER records as read
MD3_ST = "md3_st"                    # mesh: its ST records as read (float32 pairs, kept exactly)
MD3_XYZ_NORMALS = "md3_xyz_normals"  # mesh: F x V XYZ_NORMAL records as read
MD3_DEGENERATE = "md3_degenerate"    # mesh: rows of DEGENERATE_MD3 (file triangle index, vertex indices);
                                     # present with no row for a surface of vertices and no triangle
DEGENERATE_MD3 = np.dtype([("index", "<i4"), ("indexes", "<i4", (3,))])
MD3_TAG_INDEX = "md3_tag_index"      # object (tag empty): its index in the file's tag list (export order)
MD3_TAG_NAME = "md3_tag_name"        # object (tag empty): the 64-byte name field of frame 0 as read
MD3_SHADER = "md3_shader"            # material: the shader path it stands for: the surface's own in the
                                     # file (an untouched export writes the file's shader records)
MD3_SKIN_SHADER = "md3_skin_shader"  # material: the skin set's shader it shows instead (its image), present
                                     # while the root shows a skin set ('' : the set names none for it)

# MD5 (.md5mesh + .md5anim, the re-releases' enhanced models). One .md5mesh = one armature object (its
# root, named after the file, a made name) whose bones are the file's joints, parenting one mesh object
# per mesh block (Armature modifier, vertex groups named after the bones). Vertex i of a block is mesh
# vertex i; triangle i is polygon i (degenerate triangles in MD5_DEGENERATE rows, DEGENERATE_MD3's
# dtype). Joints are found by index (MD5_JOINT_INDEX on the bone), never by name alone: Blender makes
# bone names unique and cuts them at 63 bytes. Each .md5anim is one action (its frames at the scene
# times the import chose), or one action per animation of the paired classic model (MD5_ANIM_FRAMES).
# The files' text is kept so that an untouched export keeps every number's characters
# (formats/md5/write.py keep_text): the export re-reads the kept text, puts in the values Blender
# evaluates where they differ beyond the printed precision and Blender's own float32 round-off of
# bones and poses (exporters/md5/write_back.py), and writes.
MD5_MESH_SOURCE = "md5_mesh_source"  # object (armature root): the .md5mesh file's bytes as read
MD5_MESH_FILE = "md5_mesh_file"      # object (armature root): the member or file name it came from
MD5_CLASSIC = "md5_classic"          # object (armature root): the paired classic model's member or
                                     # path (progs/x.mdl, models/x/tris.md2), "" when none was found
MD5_MESH_KEYS = "md5_mesh_keys"      # object (armature root): JSON digests of its .md5mesh and of the mesh objects
                                     # as imported (common/md5_keys.py): an export writes the kept text of a
                                     # mesh whose digests still hold without reading or printing it
MD5_JOINT_INDEX = "md5_joint_index"  # bone (Armature.bones[...]): its joint index in the .md5mesh
MD5_MESH_INDEX = "md5_mesh_index"    # object (mesh): its block index in the .md5mesh (export order); the
                                     # export reads the UVs of vertices no triangle uses from the kept file
                                     # by it (exporters/md5/blocks.py file_loose)
MD5_DEGENERATE = "md5_degenerate"    # mesh: rows of DEGENERATE_MD3 (file triangle index, vertex indexes)
MD5_ANIM_SOURCE = "md5_anim_source"  # action: the .md5anim file's bytes as read
MD5_ANIM_FILE = "md5_anim_file"      # action: the member or file name it came from
MD5_ANIM_KEYS = "md5_anim_keys"      # action of a whole .md5anim: JSON digests of its file, keys and rest pose as
                                     # imported, and the file's frameRate (common/md5_keys.py): an export
                                     # writes the kept text of an anim whose digests still hold unsampled
MD5_ANIM_FRAMES = "md5_anim_frames"  # action: (first, last) anim frames it holds, when the import split the
                                     # anim into the paired classic model's animations (absent: all)

# IQM (Inter-Quake Model). One .iqm = one armature object (its root, named after the file, a made name)
# whose bones are the file's joints (an animation-only file: its poses, at its first frame), parenting
# one mesh object per IQM mesh (Armature modifier, vertex groups named after the bones). Vertex i of a
# mesh is the file's vertex first_vertex + i; joints, meshes and anims are found by index, never by name.
# Each anim is one action (or, with the .iqm.framegroups beside the file, each frame group). The file's
# bytes are kept on the root: an export of what the import built, untouched (IQM_DIGEST), writes them
# back byte for byte (exporters/iqm/write_back.py); anything else is built anew from Blender, keeping
# the stored model's parts Blender does not hold (text, comment, extensions, custom vertex arrays).
IQM_SOURCE = "iqm_source"            # object (armature root): the .iqm file's bytes as read
IQM_FILE = "iqm_file"                # object (armature root): the member or file name it came from
IQM_FRAMEGROUPS = "iqm_framegroups"  # object (armature root): the .iqm.framegroups bytes the import used
IQM_IMPORT_ID = "iqm_import_id"      # object (armature root) and each of its actions: one import's token
IQM_DIGEST = "iqm_digest"            # object (armature root): SHA-1 of what the import built (common/iqm_digest.py)
IQM_JOINT_INDEX = "iqm_joint_index"  # bone: its joint index (an animation-only file: its pose index)
IQM_MESH_INDEX = "iqm_mesh_index"    # object (mesh): its mesh index in the file (export order)
IQM_ANIM_INDEX = "iqm_anim_index"    # action: the anim it holds (-1: a frame group of the .framegroups)
IQM_ANIM_FRAMES = "iqm_anim_frames"  # action: (first, count) the file's frames it holds
IQM_ANIM_RATE = "iqm_framerate"      # action: the anim's (or group's) frame rate as the file says it
IQM_ANIM_LOOP = "iqm_loop"           # action: 1 when the anim loops (iqm.h IQM_LOOP; a group's loop flag)
