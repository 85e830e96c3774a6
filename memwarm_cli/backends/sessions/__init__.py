"""Session transcripts to markdown as the gateway exports them, with the release's redaction."""
