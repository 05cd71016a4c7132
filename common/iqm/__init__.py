"""IQM's part of the import/export contract: what its importer and exporter both read and write."""
