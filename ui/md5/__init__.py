"""MD5's part of the sidebar."""
