"""MD5 import: the armature of an .md5mesh, a mesh per block, an action per .md5anim, the paired classic model."""
