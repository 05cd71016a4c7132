"""The command line's MS3D code, reached through the ms3d row of the table of formats."""
