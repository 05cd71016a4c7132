"""MS3D import: groups as mesh objects, materials, the armature and its keys."""
