"""MD5 export: an armature-deformed mesh -> .md5mesh + .md5anim."""
