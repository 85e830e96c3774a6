"""`.env` parsing against dotenv 16's own `parse()`, run by Node 22 (tools/bin/node) on the same text.

tests/config/dotenv_parse.js is dotenv 16's parse function transcribed from its lib/main.js (no dotenv
package is installed here). Python's `re` and `str.strip()` differ from JS on `\\s` (a BOM, U+001C-U+001F,
U+0085), `\\w` (ASCII in JS), and `^`/`$` with the `m` flag (U+2028/U+2029).
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

from memwarm_cli.config.dotenv import MAX_DOTENV_BYTES, load_dotenv_file, parse_dotenv
from tests.conftest import require_tool

PARSE_JS = Path(__file__).with_name("dotenv_parse.js")
# Characters where the two engines differ, and the syntax dotenv knows.
ALPHABET = [*"AB_x1=:'\"`#\\ \t\n\r-.", "export ", "\ufeff", "\u2028", "\u2029", "\x85", "\x1f", "\u00a0"]
ALPHABET += ["\u00c4", "\u3000", "n", "\\n", "\\r"]


def _js_parse(texts: list[str]) -> list[dict[str, str]]:
    done = subprocess.run(
        [str(require_tool("node")), str(PARSE_JS)],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
    )
    parsed: list[dict[str, str]] = json.loads(done.stdout)
    return parsed


def test_the_cases_a_review_found_parse_as_dotenv_parses_them() -> None:
    texts = [
        "\ufeffMYWS=/bom/ws\nB=2",  # a BOM (Windows editors) lost the first variable
        "A=x\x1f\nB=y\x85\nC=z\ufeff",  # JS trim, not str.strip
        "\u00c4B=1\nD=2",  # JS \w is ASCII: the line is no variable
        "A='x'\u2028B=y",  # with `m`, a line ends at U+2028
        'Q="a\\nb"  # c\nexport E=e\nF: f\nG=`g`\nH="multi\nline"',
        # Long whitespace runs: memwarm tries each run once, at its end (dotenv rescans it from every
        # line start inside it, which made 8,000 blank lines cost seconds).
        " \n" * 1500 + "  export  K=v\n" + "\t\n\u2028 " * 500 + "L='q'  # c\n \n",
        "\n" * 1000 + "M=\n\n" + " " * 3000 + "N=1",
    ]
    assert [parse_dotenv(text) for text in texts] == _js_parse(texts)
    assert parse_dotenv(texts[0]) == {"MYWS": "/bom/ws", "B": "2"}


def test_random_texts_parse_as_dotenv_parses_them() -> None:
    rng = random.Random(7)
    texts = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 30))) for _ in range(3000)]
    expected = _js_parse(texts)
    differ = [(text, want) for text, want in zip(texts, expected, strict=True) if parse_dotenv(text) != want]
    assert not differ, differ[:3]


def test_a_dotenv_past_the_cap_is_not_read(tmp_path: Path) -> None:
    """An unterminated quote cost ~170 bytes of memory per byte (15 MiB: 2.6 GB, a MemoryError traceback
    under a memory limit); a `.env` over 1 MiB is a mistake, not settings."""
    assert MAX_DOTENV_BYTES == 1024 * 1024
    big = tmp_path / "big.env"
    big.write_text("A=1\n" + "#" * MAX_DOTENV_BYTES)
    env: dict[str, str] = {}
    assert load_dotenv_file(big, env) == [] and env == {}
    fits = tmp_path / "fits.env"
    fits.write_text('A=1\nB="' + "x" * (MAX_DOTENV_BYTES - 16) + "\n")
    assert load_dotenv_file(fits, env) == ["A", "B"] and env["B"].startswith('"x')


def test_values_reach_the_environment_as_node_keeps_them(tmp_path: Path) -> None:
    """Node's process.env keeps a value up to its first NUL (the variable was dropped), and dotenv's
    `obj.__proto__ = "x"` sets no variable (memwarm passed `__proto__` on to qmd)."""
    dotenv = tmp_path / ".env"
    dotenv.write_bytes(b"MYWS=/ws\x00junk\n__proto__=x\nB=2\n")
    env: dict[str, str] = {}
    assert load_dotenv_file(dotenv, env) == ["MYWS", "B"]
    assert env == {"MYWS": "/ws", "B": "2"}
