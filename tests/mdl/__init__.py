"""MDL (Quake; MD16, Hexen II RAPO): the codec, texture coordinates, the variants, import and export in Blender,
fullbright skins, frame groups, a Quake monster made in Blender, source-port limits."""
