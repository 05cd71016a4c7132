"""The contract between import and export: every name an import leaves on Blender data for the
export to read. Importers and exporters both import it; neither imports the other. Here: the names
several formats (or shared modules) use; each format's own are in ``common/<fmt>/contract.py``
(``common/md2/contract.py`` ...), which its importer and exporter import.

Images keep ``["source_path"]`` and ``["source_digest"]`` to tell an unchanged import, and
``["source_archive"]``, ``["source_member"]`` when they were read from a game archive.
Objects imported from a game archive keep ``["archive_path"]`` and ``["archive_member"]`` (shown in
the sidebar; the export dialog offers the member's path under the chosen game folder); objects imported
from a loose file keep ``["source_file"]`` (the export dialog opens at its folder and name).
The exports read their top-level records back through :mod:`.stored_records`, which takes a value of
another type (a script's, another add-on's) as no record.
The file's frame table is ``Object.classic_model.frames`` (fields ``name``, ``file_name``,
``shape_key``, ``group``, ``interval``; see ``ui/properties.py``), read and written only through
:mod:`.frame_table`. ``classic_model.animation_mode`` says whether the import made one action per
animation; ``classic_model.animations[i].action`` is that action.
"""
import numpy as np

# Every format's images and meshes
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

# Every format: what an import read, for the export's report
FILE_COUNTS = "file_counts"          # mesh: JSON, the imported file's counts (vertices, triangles, frames, ...)

# MDL skins, which an MD5 import beside its MDL and the shared skin code read too (common/mdl_skins.py)
SKIN_NODE = "mdl_skin_{}"
FULLBRIGHT_NODE = "mdl_fullbright_{}"
INTERVALS = "mdl_skin_intervals"
INDICES = "mdl_indices"

# The skeletal formats' scene rates (MS3D, MD5)
DEFAULT_FPS = 24.0                   # an MS3D's or MD5's rate the scene cannot play is played at this
MIN_FPS, MAX_FPS = 1e-3, 32767.0     # what Scene.render.fps / fps_base can express (imports and the MD5 export)

# The skeletal formats' anims (MD5, IQM): every skeletal import sets them on each action it makes, every
# skeletal export reads them (common/anim_timing.py), so an anim converted from one format to another keeps
# its rate and frames; no export reads another format's own names
ANIM_FRAME_RATE = "anim_frame_rate"    # action: the frame rate its file gave the anim (or frame group) it holds,
                                       # as the file says it (a rate the scene cannot play, 0, included)
ANIM_FRAME_COUNT = "anim_frame_count"  # action: how many of the file's frames it holds

# MD3 names shared modules read (common/<fmt>/contract.py: each format's own; common/md3/contract.py: the MD3
# layout). MD5 keeps its degenerate triangles in DEGENERATE_MD3 rows.
MD3_ROOT = "md3_root"                # object (root): the MD3 part it stands for: "" (a plain model) or
                                     # "lower" / "upper" / "head" (a Quake III player part); its presence
                                     # marks the root
DEGENERATE_MD3 = np.dtype([("index", "<i4"), ("indexes", "<i4", (3,))])
MD3_TAG_INDEX = "md3_tag_index"      # object (tag empty): its index in the file's tag list (export order)
