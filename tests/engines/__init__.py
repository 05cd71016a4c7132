"""Proof in real programs: DarkPlaces loads our MDL and MD2, Maverick Model 3D and Assimp our MS3D, the Khronos
validator our glTF."""
