"""MD5 version 10 (the re-releases' enhanced models): bpy-free text codec, limits, skinning."""
