"""MD5 in the sidebar (View3D > Sidebar > Model, ``ui/panel.py``): its frame table holds the names of the
classic model it was made beside (no shape keys)."""
from __future__ import annotations

FRAMES_HEADER = "Frames (the classic model's names)"
