"""The command line's MD2 code, reached through the md2 row of the table of formats."""
