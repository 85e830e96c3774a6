"""One invocation's streams and environment, output discipline, signals, tables, view formats."""
