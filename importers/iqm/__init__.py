"""IQM -> Blender: the File > Import operator and the build (issue 47)."""
