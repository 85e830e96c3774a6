"""sha256 for the freshness judgement, without loading OpenSSL for the short inputs of a small run.

`import hashlib` loads OpenSSL's libcrypto: ~3.5 ms CPU, a third of a bare `python -c pass`, paid by
every `status` (bench/bench_startup.py), whose digests on a small workspace hash a few hundred bytes.
CPython's own sha256 (`_sha256`; `_sha2` from 3.12) loads nothing but hashes about 3.5 times slower, so
it takes an input until LARGE bytes of it have come; past that, OpenSSL's takes over (the bytes so far
handed over once). The digests are the same either way.
"""

from __future__ import annotations

# Where OpenSSL's speed pays for its loading: ~2.4 ms saved per MiB against ~3.5 ms to load it.
LARGE = 1 << 20

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from hashlib import _Hash
    from hashlib import sha256 as _builtin_sha256  # what the type checker sees of it
else:
    try:
        from _sha256 import sha256 as _builtin_sha256  # CPython 3.11
    except ImportError:  # 3.12+, or a build without it
        try:
            from _sha2 import sha256 as _builtin_sha256
        except ImportError:
            from hashlib import sha256 as _builtin_sha256


class Sha256:
    """`hashlib.sha256()`'s update, digest and hexdigest: the input kept (at most LARGE bytes) for
    CPython's sha256, or once it would pass LARGE, streamed to OpenSSL's."""

    __slots__ = ("_kept", "_openssl")

    def __init__(self, data: bytes = b"") -> None:
        self._kept = bytearray()
        self._openssl: _Hash | None = None
        self.update(data)

    def update(self, data: bytes) -> None:
        if self._openssl is None and len(self._kept) + len(data) > LARGE:
            import hashlib  # OpenSSL: for a long input its speed pays for its loading (module docstring)

            self._openssl = hashlib.sha256(self._kept)
            self._kept = bytearray()
        if self._openssl is not None:
            self._openssl.update(data)
        else:
            self._kept += data

    def digest(self) -> bytes:
        if self._openssl is not None:
            return self._openssl.digest()
        return _builtin_sha256(self._kept).digest()

    def hexdigest(self) -> str:
        return self.digest().hex()


def sha256_hex(data: bytes) -> str:
    """`hashlib.sha256(data).hexdigest()`, through whichever sha256 suits its length."""
    if len(data) > LARGE:
        return Sha256(data).hexdigest()
    return _builtin_sha256(data).hexdigest()
