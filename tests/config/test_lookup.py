"""Raw config lookups: optional chaining, absent vs null, `??`."""

from __future__ import annotations

from memwarm_cli.config.lookup import MISSING, as_object, coalesce, lookup


def test_lookup_stops_at_anything_that_is_not_an_object() -> None:
    cfg = {"a": {"b": None, "c": [1], "d": {"e": 0}}}
    assert lookup(cfg, "a", "d", "e") == 0
    assert lookup(cfg, "a", "b") is None  # present and null
    assert lookup(cfg, "a", "b", missing=MISSING) is None
    assert lookup(cfg, "a", "x", missing=MISSING) is MISSING  # absent
    assert lookup(cfg, "a", "c", "0", missing=MISSING) is MISSING  # an array is not an object
    assert lookup("text", "a") is None
    assert lookup(cfg) is cfg


def test_as_object_and_coalesce() -> None:
    assert as_object([1]) == {} and as_object({"k": 1}) == {"k": 1}
    assert coalesce(None, False, 1) is False
    assert coalesce(None, None) is None
