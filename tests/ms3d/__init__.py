"""MS3D (MilkShape 3D): the codec, skinning and keyframes by MilkShape's rules, key reduction, files cut short,
names in code pages, textures, import and export in Blender."""
