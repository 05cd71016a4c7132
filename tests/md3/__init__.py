"""MD3 (Quake III): the codec against an independent reader, normals and positions as the engine decodes them, tags,
LOD names, the .skin and animation.cfg side files."""
