"""IQM's names of the import/export contract (``common/contract.py``).

IQM (Inter-Quake Model). One .iqm = one armature object (its root, named after the file, a made name)
whose bones are the file's joints (an animation-only file: its poses, at its first frame), parenting
one mesh object per IQM mesh (Armature modifier, vertex groups named after the bones). Vertex i of a
mesh is the file's vertex first_vertex + i; joints, meshes and anims are found by index, never by name.
With *Merge Meshes* one mesh object holds every IQM mesh (IQM_MERGED): mesh s's vertices follow the
previous meshes' and its faces are in material slot s.
Each anim is one action (or, with the .iqm.framegroups beside the file, each frame group). The file's
bytes are kept on the root: an export of what the import built, untouched (IQM_DIGEST), writes them
back byte for byte (exporters/iqm/write_back.py); anything else is built anew from Blender, keeping
the stored model's parts Blender does not hold (text, comment, extensions, custom vertex arrays).
"""

IQM_SOURCE = "iqm_source"            # object (armature root): the .iqm file's bytes as read
IQM_FILE = "iqm_file"                # object (armature root): the member or file name it came from
IQM_FRAMEGROUPS = "iqm_framegroups"  # object (armature root): the .iqm.framegroups bytes the import used
IQM_IMPORT_ID = "iqm_import_id"      # object (armature root) and each of its actions: one import's token
IQM_DIGEST = "iqm_digest"            # object (armature root): SHA-1 of what the import built (common/iqm/digest.py)
IQM_JOINT_INDEX = "iqm_joint_index"  # bone: its joint index (an animation-only file: its pose index)
IQM_MESH_INDEX = "iqm_mesh_index"    # object (mesh): its mesh index in the file (export order)
IQM_MERGED = "iqm_merged_meshes"     # object (mesh, *Merge Meshes*): it holds the file's first n meshes, mesh s's
                                     # vertices after the previous ones', its faces in material slot s
UNNAMED_MATERIAL = "iqm"             # the material an import makes for a mesh whose material name is empty
IQM_ANIM_INDEX = "iqm_anim_index"    # action: the anim it holds (-1: a frame group of the .framegroups)
IQM_ANIM_FRAMES = "iqm_anim_frames"  # action: (first, count) the file's frames it holds
IQM_ANIM_RATE = "iqm_framerate"      # action made in Blender: the rate a user gives it for the IQM export
                                     # (docs/iqm.md); an import now keeps its anim's rate and frames in
                                     # common/contract.py ANIM_FRAME_RATE, ANIM_FRAME_COUNT (an earlier
                                     # version's import here: common/anim_timing.py reads it)
IQM_ANIM_LOOP = "iqm_loop"           # action: 1 when the anim loops (iqm.h IQM_LOOP; a group's loop flag)
