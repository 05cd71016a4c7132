"""The command line's MD5 code, reached through the md5 row of the table of formats."""
