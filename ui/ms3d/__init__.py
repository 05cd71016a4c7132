"""MS3D's part of the sidebar."""
