"""Inter-Quake Model (IQM, version 2): the bpy-free codec."""
