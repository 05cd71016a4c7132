"""MD5 version 10, the re-releases' enhanced models (bpy-free): ``records`` the layouts and dataclasses,
``text`` the engines' tokenizer, ``mesh.read_md5mesh`` and ``anim.read_md5anim``, ``write.write_md5mesh``
and ``write.write_md5anim``, ``limits`` the engines' limits, ``skinning`` joint poses and vertices, ``scale`` Q2PRO's ``.md5scale``."""
