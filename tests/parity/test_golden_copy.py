"""The repository's copy of the golden cases (tests/golden/) is whole: every file its manifest lists, with
the same bytes, and nothing else; each set holds the number of cases its README gives."""

from __future__ import annotations

import pytest

from scripts.golden import GOLDEN_DIR, differences, digest_tree, read_manifest

SET_SIZES = {
    "cases": 102,
    "bootstrap/cases": 72,
    "sessions": 46,
    "openclaw-2026.9/cases": 102,
    "openclaw-2026.9/bootstrap/cases": 65,
}


def test_the_copy_matches_its_manifest() -> None:
    assert differences(read_manifest(GOLDEN_DIR), digest_tree(GOLDEN_DIR), "MANIFEST.sha256") == []


@pytest.mark.parametrize(("directory", "size"), sorted(SET_SIZES.items()))
def test_each_set_is_complete(directory: str, size: int) -> None:
    assert len(list((GOLDEN_DIR / directory).glob("*.json"))) == size


def test_a_changed_byte_is_found() -> None:
    manifest = read_manifest(GOLDEN_DIR)
    changed = dict(manifest, **{"cases/crlf_content.json": "0" * 64})
    assert differences(changed, manifest, "x") == ["differs from x: tests/golden/cases/crlf_content.json"]
