"""The command line's IQM code, reached through the IQM row of formats/table.py."""
