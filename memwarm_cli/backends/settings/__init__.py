"""What the config asks for: backend, memory search, qmd settings, collections, paths, what memwarm does
with each key."""
