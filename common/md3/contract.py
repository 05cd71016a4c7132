"""MD3's names of the import/export contract (``common/contract.py``, which holds ``MD3_ROOT``,
``MD3_TAG_INDEX`` and ``DEGENERATE_MD3``: shared modules and MD5 read them). The layout:

MD3 (Quake III). One file = one *model root*: an empty object (named after the file, a made name)
parenting one mesh object per surface (file order) and one empty per tag. Frame f of the file is
shape key f of every surface mesh (frame table on the ROOT: ``root.classic_model.frames``, shape_key
naming the key every surface uses for that frame) and key f of every tag empty's animation. Records
are kept as the file's bytes (formats/md3/records.py dtypes) so an untouched export writes them back:
the export re-encodes what Blender evaluates and uses a kept record wherever it encodes to the same
values. Vertex i of a surface is mesh vertex i; triangle i is polygon i (degenerate triangles, which
Blender cannot hold, in MD3_DEGENERATE rows); the surface's own per-vertex st is the UV of every
corner of that vertex.
Merged (the import's *Merge Surfaces*): ONE mesh object holds every surface of the file. Its
MD3_SURFACE holds every surface's header one after the other (file order; their number is the
surface count), MD3_SHADERS / MD3_ST / MD3_XYZ_NORMALS every surface's block one after the other
(sizes from the headers' counts); surface s owns the num_verts vertices after the previous surfaces'
and the faces of material slot s (``material_index`` s, the slot holding its material); its
MD3_DEGENERATE rows number triangles and vertices in that merged order; MD3_SURFACE_INDEX is 0.
Read by index only, through common/md3/surfaces.py (a mesh made per surface reads the same way).
Actions mode (``classic_model.animation_mode`` 'ACTIONS' on the root): each surface mesh and each tag
empty lists the root's animations in the root's order, each with its own action (the surface's shape
keys', the empty's); the root's list has no actions.
"""

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
MD3_TAG_NAME = "md3_tag_name"        # object (tag empty): the 64-byte name field of frame 0 as read
MD3_SHADER = "md3_shader"            # material: the shader path it stands for: the surface's own in the
                                     # file (an untouched export writes the file's shader records)
MD3_SKIN_SHADER = "md3_skin_shader"  # material: the skin set's shader it shows instead (its image), present
                                     # while the root shows a skin set ('' : the set names none for it)
