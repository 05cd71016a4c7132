"""MD2 (Quake II): the codec, GL commands, the lattice, import and export in Blender, skins, frame tables, Quake II players."""
