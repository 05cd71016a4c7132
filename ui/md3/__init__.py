"""MD3's part of the sidebar."""
