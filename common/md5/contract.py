"""MD5's names of the import/export contract (``common/contract.py``).

MD5 (.md5mesh + .md5anim, the re-releases' enhanced models). One .md5mesh = one armature object (its
root, named after the file, a made name) whose bones are the file's joints, parenting one mesh object
per mesh block (Armature modifier, vertex groups named after the bones). Vertex i of a block is mesh
vertex i; triangle i is polygon i (degenerate triangles in MD5_DEGENERATE rows, DEGENERATE_MD3's
dtype). Joints are found by index (MD5_JOINT_INDEX on the bone), never by name alone: Blender makes
bone names unique and cuts them at 63 bytes. Each .md5anim is one action (its frames at the scene
times the import chose), or one action per animation of the paired classic model (MD5_ANIM_FRAMES).
The files' text is kept so that an untouched export keeps every number's characters
(formats/md5/write.py keep_text): the export re-reads the kept text, puts in the values Blender
evaluates where they differ beyond the printed precision and Blender's own float32 round-off of
bones and poses (exporters/md5/write_back.py), and writes.
"""

MD5_MESH_SOURCE = "md5_mesh_source"  # object (armature root): the .md5mesh file's bytes as read
MD5_MESH_FILE = "md5_mesh_file"      # object (armature root): the member or file name it came from
MD5_CLASSIC = "md5_classic"          # object (armature root): the paired classic model's member or
                                     # path (progs/x.mdl, models/x/tris.md2), "" when none was found
MD5_MESH_KEYS = "md5_mesh_keys"      # object (armature root): JSON digests of its .md5mesh and of the mesh objects
                                     # as imported (common/md5/keys.py): an export writes the kept text of a
                                     # mesh whose digests still hold without reading or printing it, and
                                     # takes the engines' limits and the report's lines on its blocks from the
                                     # counts the import stored beside them (no rest pose read, no blocks built)
MD5_JOINT_INDEX = "md5_joint_index"  # bone (Armature.bones[...]): its joint index in the .md5mesh
MD5_MESH_INDEX = "md5_mesh_index"    # object (mesh): its block index in the .md5mesh (export order); the
                                     # export reads the UVs of vertices no triangle uses from the kept file
                                     # by it (exporters/md5/blocks.py file_loose)
MD5_DEGENERATE = "md5_degenerate"    # mesh: rows of DEGENERATE_MD3 (file triangle index, vertex indexes)
MD5_ANIM_SOURCE = "md5_anim_source"  # action: the .md5anim file's bytes as read
MD5_ANIM_FILE = "md5_anim_file"      # action: the member or file name it came from
MD5_ANIM_KEYS = "md5_anim_keys"      # action of a whole .md5anim: JSON digests of its file, keys and rest pose as
                                     # imported, and the file's frameRate (common/md5/keys.py): an export
                                     # writes the kept text of an anim whose digests still hold unsampled
MD5_ANIM_FRAMES = "md5_anim_frames"  # action: (first, last) anim frames it holds, when the import split the
                                     # anim into the paired classic model's animations (absent: all)
