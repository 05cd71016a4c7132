"""MS3D export: model build, joints and keyframes, kept records, textures and the file (``export``)."""
