"""MDL's part of the sidebar and its Quake Model panels."""
