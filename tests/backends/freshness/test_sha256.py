"""freshness/sha256.py: the digests hashlib gives, whichever sha256 computes them, across LARGE."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from memwarm_cli.backends.freshness.sha256 import LARGE, Sha256, sha256_hex


@pytest.mark.parametrize("size", [0, 1, LARGE - 1, LARGE, LARGE + 1, 3 * LARGE + 17])
def test_one_input_hashes_as_hashlib_does(size: int) -> None:
    data = os.urandom(size)
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    assert Sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("chunk", [1000, LARGE // 3, LARGE + 5])
def test_a_stream_hashes_as_hashlib_does_however_it_is_cut(chunk: int) -> None:
    data = os.urandom(2 * LARGE + 12345)
    ours, theirs = Sha256(), hashlib.sha256()
    for start in range(0, len(data), chunk):
        ours.update(data[start : start + chunk])
        theirs.update(data[start : start + chunk])
    assert ours.digest() == theirs.digest()
    assert ours.hexdigest() == theirs.hexdigest()


def test_openssl_is_loaded_only_for_a_long_input() -> None:
    probe = (
        "import sys\n"
        "from memwarm_cli.backends.freshness.sha256 import LARGE, Sha256, sha256_hex\n"
        "sha256_hex(b'x' * 1000); digest = Sha256(b'y' * 1000); digest.update(b'z' * 1000)\n"
        "print('_hashlib' in sys.modules)\n"
        "digest.update(b'w' * LARGE)\n"
        "print('_hashlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]
