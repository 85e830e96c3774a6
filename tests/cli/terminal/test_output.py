"""The JSON writer every `--json` goes through (cli/terminal/output.py): strict JSON whatever the data
holds (a NaN or an infinity is null), the same text whether rows are streamed or not, and a million
rows written without being held."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterator
from typing import Any

import pytest

from memwarm_cli.cli.terminal.invocation import Invocation, active
from memwarm_cli.cli.terminal.output import json_chunks, json_text, write_chunks


def strict(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(constant)

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_a_number_json_cannot_hold_is_null(bad: float) -> None:
    data = {"score": bad, "nested": [1.5, {"x": bad}], "tuple": (bad,), "ok": 2}
    expected = {"score": None, "nested": [1.5, {"x": None}], "tuple": [None], "ok": 2}
    assert strict(json_text(data)) == expected
    rows = "".join(json_chunks({"schema": 1, "files": [{"score": bad}, {"score": 1}]}, rows_key="files"))
    assert strict(rows) == {"schema": 1, "files": [{"score": None}, {"score": 1}]}


def test_streamed_rows_are_the_same_json_as_a_list() -> None:
    data = {"schema": 2, "agents": [{"agentId": "a", "files": [{"n": i} for i in range(3)]}, {"files": []}]}
    streamed = "".join(json_chunks(data, rows_key="files"))
    lazy = {
        "schema": 2,
        "agents": [{"agentId": "a", "files": iter({"n": i} for i in range(3))}, {"files": iter([])}],
    }
    assert strict(streamed) == data
    assert "".join(json_chunks(lazy, rows_key="files")) == streamed
    assert streamed.count("\n") == len(streamed.splitlines())  # one row a line
    assert '\n        {"n": 1},\n' in streamed


def test_write_chunks_never_holds_the_whole_output() -> None:
    """A million rows go out in about-a-megabyte writes; the generator is consumed as they go."""
    written: list[int] = []

    class Sink(io.BytesIO):
        def write(self, data: Any) -> int:
            written.append(len(data))
            return super().write(data)

    stdout = io.TextIOWrapper(Sink(), encoding="utf-8")
    made = 0

    def rows() -> Iterator[str]:
        nonlocal made
        for _ in range(1_000_000):
            made += 1
            yield "x" * 40 + "\n"

    with active(Invocation(stdout=stdout, stderr=None, env={})):
        write_chunks(rows())
    assert made == 1_000_000 and sum(written) == 41_000_000
    assert len(written) > 30 and max(written) < 2 * (1 << 20)
