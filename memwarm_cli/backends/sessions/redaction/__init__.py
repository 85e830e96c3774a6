"""The release's secret redaction of session text (openclaw@2026.6.35's `redactSensitiveText`, mode
"tools"), in linear time, and the secret formats it leaves in clear: `redact.py` is the entry point
(prefilter, form-body pre-pass, the 95 patterns), `release_patterns.py` the patterns as shipped,
`scanners.py` the linear replacements of those Python's `re` would backtrack on, `form_body.py` and
`unicode_classes.py` the form-body rules, `regex_literals.py` the prefilter's literals (read off parse
trees through `sre_private.py`, the one module that touches the stdlib's private regex parser), and
`clear_secrets.py` the formats reported in clear. Imported only when transcripts are exported: its
rules compile about 200 regexes, which status, scan and prelude never pay for.
"""
