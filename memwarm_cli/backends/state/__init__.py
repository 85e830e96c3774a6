"""memwarm's own files and locks under the state dir, never through a link."""
