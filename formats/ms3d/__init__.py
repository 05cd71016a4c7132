"""MilkShape 3D MS3D: the codec, writer, text fields, joints, skeleton maths and key reduction."""
