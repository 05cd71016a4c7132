"""The command line's MD3 code, reached through the md3 row of the table of formats."""
