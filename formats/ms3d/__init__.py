"""MilkShape 3D MS3D: the records, reader (``codec``), writer, text fields, joints, skeleton maths and key reduction."""
