"""File walks as qmd globs them, the fingerprint record, the one freshness judgement against the index."""
