"""What MD2 and MDL export share: frames sampled from Blender (timeline, shape keys, actions), topology, normals, kept triangles."""
