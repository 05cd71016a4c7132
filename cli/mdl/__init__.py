"""The command line's MDL code, reached through the mdl row of the table of formats."""
