"""Credentials out of what `config show` and `config check` print: their output gets pasted into bug reports.

- A value under a credential-like key (`apiKey`, `token`, `secret`, `password`, `Authorization`, `Cookie`,
  `X-Api-Key`, ... in any case, with or without `-`/`_`) is shown as `(set)`, or, when the config wrote
  it as exactly one `${VAR}`, as that `${VAR}` (which says where it comes from, not what it is; a value
  resolved from `<stateDir>/.env` is such a one). An object under such a key has every value masked.
- In every other string: URL userinfo (`https://user:pw@host` -> `https://***@host`), a `Bearer`/`Basic`
  credential (8 characters or more), the value of a credential-like command-line flag (`--token X`,
  `--api-key=X`; `-p X` is not guessed) and of an `ENV_KEY=X` assignment become `***`.

`mask_show_data` works on `config show`'s data (all three formats render the same masked data);
`mask_text` on one string (the qmd command `config check` quotes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

SET = "(set)"
HIDDEN = "***"

_CREDENTIAL_KEY = re.compile(
    r"(?:apikey|token|secret|password|passwd|passphrase|authorization|cookie|credentials?|privatekey"
    r"|accesskey|secretkey|signingkey|clientkey|sessionkey|auth)\Z"
)
_ONE_TEMPLATE = re.compile(r"\$\{[A-Z_][A-Z0-9_]*\}\Z")
# `scheme://userinfo@`; one slash too, as a URL looks once normalised as a path (`https:/u:pw@host`).
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]+:/{1,2})[^/?#@\s]+@")
_SCHEME_CREDENTIAL = re.compile(r"\b(Bearer|Basic)(\s+)[A-Za-z0-9._~+/=-]{8,}")
_FLAG = re.compile(
    r"(?i)(--?[a-z0-9-]*(?:token|secret|password|passwd|passphrase|api-?key|apikey|auth)[a-z0-9-]*)(=|\s+)"
    r"(?![-\s])[^\s\"']+"
)
_ASSIGNMENT = re.compile(r"\b([A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)[A-Za-z0-9_]*)=[^\s\"']+")


def is_credential_key(key: str) -> bool:
    """`apiKey`, `X-Api-Key`, `access_token`, `Authorization`, `Cookie`, ...: its value is a secret."""
    return _CREDENTIAL_KEY.search(key.lower().replace("-", "").replace("_", "")) is not None


def mask_text(text: str) -> str:
    """`text` with URL userinfo, auth-scheme credentials, credential flags and assignments hidden."""
    if not text:
        return text
    text = _URL_USERINFO.sub(rf"\1{HIDDEN}@", text)
    text = _SCHEME_CREDENTIAL.sub(rf"\1\2{HIDDEN}", text)
    text = _FLAG.sub(rf"\1\2{HIDDEN}", text)
    return _ASSIGNMENT.sub(rf"\1={HIDDEN}", text)


def templates_of(raw: Any, data: Any, found: dict[str, str] | None = None) -> dict[str, str]:
    """Resolved value -> the `${VAR}` it came from, for every string the config wrote as exactly one
    `${VAR}` that resolved (walks the unsubstituted and the substituted config side by side)."""
    found = {} if found is None else found
    if isinstance(raw, str):
        if isinstance(data, str) and raw != data and _ONE_TEMPLATE.match(raw):
            found[data] = raw
    elif isinstance(raw, dict) and isinstance(data, dict):
        for key, value in raw.items():
            if key in data:
                templates_of(value, data[key], found)
    elif isinstance(raw, list) and isinstance(data, list):
        for raw_item, item in zip(raw, data, strict=False):
            templates_of(raw_item, item, found)
    return found


def _hidden(value: Any, templates: Mapping[str, str]) -> Any:
    """A credential's value as shown: `${VAR}`, `(set)`, an object's values each hidden; null stays."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, dict):
        return {key: _hidden(item, templates) for key, item in value.items()}
    if isinstance(value, list):
        return [_hidden(item, templates) for item in value]
    if isinstance(value, str):
        if value == "" or _ONE_TEMPLATE.match(value):  # empty, or a ${VAR} that did not resolve
            return value
        return templates.get(value, SET)
    return SET


def mask_value(value: Any, templates: Mapping[str, str], key: str | None = None) -> Any:
    """`value` with every credential hidden; `key` is the name it stands under."""
    if key is not None and is_credential_key(key):
        return _hidden(value, templates)
    if isinstance(value, str):
        return mask_text(value)
    if isinstance(value, list):
        return [mask_value(item, templates) for item in value]
    if isinstance(value, dict):
        setting = value.get("path")
        if "value" in value and isinstance(setting, str):  # a configuredSettings entry: {path, value, ...}
            leaf = re.sub(r"\[\d+\]\Z", "", setting).rsplit(".", 1)[-1]
            return {
                name: mask_value(item, templates, leaf if name == "value" else name)
                for name, item in value.items()
            }
        return {name: mask_value(item, templates, name) for name, item in value.items()}
    return value


def mask_show_data(data: dict[str, Any], raw: Any, resolved: Any) -> dict[str, Any]:
    """`config show`'s data with every credential hidden (`raw`/`resolved`: the config before and after
    `${VAR}` substitution, to show a credential's `${VAR}`)."""
    templates = templates_of(raw, resolved)
    return {key: mask_value(value, templates, key) for key, value in data.items()}
