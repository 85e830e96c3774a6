"""Whether the models a qmd command loads are downloaded, and whether a missing one could be at all.

qmd 2.8.3 loads its models through node-llama-cpp's `resolveModelFile`: an `hf:<user>/<repo>/<file>`
URI is looked for in qmd's models dir (`$XDG_CACHE_HOME/qmd/models`) as `hf_<user>_<file>`, and a file
there is used without touching the network. A missing one is downloaded from `MODEL_ENDPOINT`, else
`HF_ENDPOINT`, else https://huggingface.co/. Offline, the downloader does not give up: measured with
qmd 2.8.3 on a machine whose DNS cannot resolve huggingface.co, `qmd embed` printed the model's name and
then nothing until it was killed (60 s), and `vsearch`/`query` wait the same way, so an agent's embed and
its probe each used to run into their whole timeout (120 s each) before the run said anything.

So before such a command memwarm looks in the models dir and, only when a model is missing there,
resolves the download host (once per run, bounded): a host that does not resolve cannot serve the
download, and the step ends at once with that reason. A host that resolves lets qmd try (a firewall or a
proxy may still stop it, and the timeout then ends it as before). The models qmd reads from the
environment (`QMD_EMBED_MODEL`, `QMD_GENERATE_MODEL`, `QMD_RERANK_MODEL`) are honoured; a model named by a
local path or a URL is not judged here (qmd is left to load it).
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

Role = Literal["embed", "generate", "rerank"]

# qmd 2.8.3's defaults (dist/llm.js) and the variables that replace them.
DEFAULT_MODELS: dict[Role, str] = {
    "embed": "hf:ggml-org/embeddinggemma-300M-GGUF/embeddinggemma-300M-Q8_0.gguf",
    "generate": "hf:tobil/qmd-query-expansion-1.7B-gguf/qmd-query-expansion-1.7B-q4_k_m.gguf",
    "rerank": "hf:ggml-org/Qwen3-Reranker-0.6B-Q8_0-GGUF/qwen3-reranker-0.6b-q8_0.gguf",
}
MODEL_VARIABLES: dict[Role, str] = {
    "embed": "QMD_EMBED_MODEL",
    "generate": "QMD_GENERATE_MODEL",
    "rerank": "QMD_RERANK_MODEL",
}
DEFAULT_HOST = "huggingface.co"
RESOLVE_TIMEOUT_SECONDS = 5.0


def mode_roles(mode: str, *, rerank: bool = True) -> tuple[Role, ...]:
    """The models a search mode loads: none for BM25 `search`; `query` expands the query (generate) and,
    unless `--no-rerank`, reranks."""
    if mode == "vsearch":
        return ("embed",)
    if mode == "query":
        return ("embed", "generate", "rerank") if rerank else ("embed", "generate")
    return ()


def model_uri(role: Role, env: Mapping[str, str]) -> str:
    return env.get(MODEL_VARIABLES[role]) or DEFAULT_MODELS[role]


def cache_file_name(uri: str) -> str | None:
    """`hf:ggml-org/x-GGUF/x.gguf` -> `hf_ggml-org_x.gguf`, as node-llama-cpp names the download; None
    for what is no plain `hf:` URI (a path, a URL, a branch or a quantisation tag)."""
    if not uri.startswith("hf:"):
        return None
    parts = uri[3:].split("/")
    if len(parts) != 3 or not all(parts) or ":" in uri[3:] or not parts[2].endswith(".gguf"):
        return None
    return f"hf_{parts[0]}_{parts[2]}"


def model_name(uri: str) -> str:
    """A model's short name for messages: its file name without `.gguf`."""
    return uri.rsplit("/", 1)[-1].removesuffix(".gguf")


def missing_models(roles: Sequence[Role], env: Mapping[str, str], models_dir: Path) -> tuple[str, ...]:
    """The URIs of the models `roles` need that qmd would have to download into `models_dir`."""
    missing: list[str] = []
    for role in roles:
        uri = model_uri(role, env)
        name = cache_file_name(uri)
        if name is not None and not os.path.isfile(models_dir / name) and uri not in missing:
            missing.append(uri)
    return tuple(missing)


def download_host(env: Mapping[str, str]) -> str:
    """The host node-llama-cpp downloads `hf:` models from: MODEL_ENDPOINT, HF_ENDPOINT, huggingface.co."""
    for variable in ("MODEL_ENDPOINT", "HF_ENDPOINT"):
        value = env.get(variable, "")
        try:
            host = urlsplit(value).hostname if value else None
        except ValueError:
            host = None
        if host:
            return host
    return DEFAULT_HOST


def resolution_error(host: str, timeout: float = RESOLVE_TIMEOUT_SECONDS) -> str | None:
    """None when `host` resolves; else why not. A resolver that does not answer within `timeout` counts
    as not resolving (getaddrinfo cannot be interrupted: it is left to finish in a daemon thread)."""
    outcome: list[str | None] = []

    def resolve() -> None:
        try:
            socket.getaddrinfo(host, 443, type=socket.SOCK_STREAM)
            outcome.append(None)
        except (OSError, UnicodeError) as exc:
            outcome.append(exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc))

    thread = threading.Thread(target=resolve, name=f"resolve {host}", daemon=True)
    thread.start()
    thread.join(timeout)
    if not outcome:
        return f"no answer from the resolver in {timeout:.0f}s"
    return outcome[0]


class HostChecks:
    """Each download host resolved at most once per run, whichever agent asks first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._errors: dict[str, str | None] = {}

    def error(self, host: str) -> str | None:
        with self._lock:
            if host not in self._errors:
                self._errors[host] = resolution_error(host)
            return self._errors[host]
