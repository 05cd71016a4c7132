"""Blender -> IQM: the File > Export operator, the untouched write-back and the build (issue 47)."""
