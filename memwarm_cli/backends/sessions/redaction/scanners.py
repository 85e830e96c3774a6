"""Where the redaction patterns are not run as one `re.sub`: the base64 lookbehind, and linear scanners.

Every function here yields the matches `units.replace(pattern, …)` would replace in JS, left to right
and non-overlapping (the search resumes at the end of each match), as `Match` records.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator

from memwarm_cli.backends.sessions.redaction.release_patterns import FORM_BODY_FIRST_PAIR_KEYS, RedactPattern
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_regex


@record
class Match:
    start: int
    end: int
    whole: str
    groups: tuple[str | None, ...]  # None: the group did not take part (JS undefined, read as "")
    group_starts: tuple[int, ...]  # each group's start relative to `start` (-1 when it did not take part)


def _from_re(match: re.Match[str]) -> Match:
    start = match.start()
    count = len(match.groups())
    return Match(
        start=start,
        end=match.end(),
        whole=match.group(0),
        groups=match.groups(),
        group_starts=tuple(
            match.start(k) - start if match.start(k) >= 0 else -1 for k in range(1, count + 1)
        ),
    )


_BASE64_RUN_CHAR = re.compile(r"[A-Za-z0-9+/=]")
_BASE64_MARK = ";base64,"


def _base64_blocked(units: str, p: int) -> bool:
    """Whether `(?<!;base64,[A-Za-z0-9+/=]*)` fails at `p`: the run of base64 characters ending at `p` is
    preceded by `;base64,` (case-insensitive)."""
    r = p
    while r > 0 and _BASE64_RUN_CHAR.match(units, r - 1):
        r -= 1
    return units[max(0, r - 8) : r].lower() == _BASE64_MARK


def regex_matches(pattern: RedactPattern, units: str) -> Iterator[Match]:
    """The pattern's matches by `re`, the base64 lookbehind (if any) checked where it stands in the
    source: right after group 1."""
    if not pattern.base64_guard:
        yield from map(_from_re, pattern.regex.finditer(units))
        return
    pos = 0
    while True:
        found = pattern.regex.search(units, pos)
        if found is None:
            return
        if _base64_blocked(units, found.end(1)):
            pos = found.start() + 1
            continue
        yield _from_re(found)
        pos = found.end()


Scanner = Callable[[RedactPattern, str], Iterator[Match]]
SCANNERS: dict[int, Scanner] = {}


# --------------------------------------------------------------------------------------------------------
# Linear scanners
#
# Each one relies on the same observation: the pattern is deterministic once its start is fixed (every
# greedy run must end where its character class ends, because the next element cannot match a character
# of that class), so a start either matches in one way or not at all, and what decides it can be read off
# precomputed run ends instead of being rescanned from every start inside a long run.


class _Runs:
    """Maximal runs of a character class in a string: the end of the run at `i`, and its start."""

    def __init__(self, units: str, char_class: str) -> None:
        spans = [m.span() for m in re.finditer(f"[{char_class}]+", units)]
        self.starts = [start for start, _ in spans]
        self.ends = [end for _, end in spans]

    def end_at(self, i: int) -> int:
        """The end of the run holding index `i` (`i` itself when `i` is not in a run)."""
        k = bisect_right(self.starts, i) - 1
        return self.ends[k] if k >= 0 and self.ends[k] > i else i

    def start_before(self, p: int) -> int:
        """The start of the run ending at or holding index `p - 1` (`p` when `p - 1` is in no run)."""
        k = bisect_right(self.starts, p - 1) - 1
        return self.starts[k] if k >= 0 and self.ends[k] >= p else p


_BASE64_CLASS = "A-Za-z0-9+/="


class _Base64Guard:
    """`(?<!;base64,[A-Za-z0-9+/=]*)` at any position, from the base64-character runs of the input."""

    def __init__(self, units: str) -> None:
        self.units = units
        self.runs = _Runs(units, _BASE64_CLASS)

    def blocked_until(self, p: int) -> int | None:
        """None when the lookbehind holds at `p`; else the last position up to which it fails the same way
        (the end of the base64 run that `p` continues)."""
        r = self.runs.start_before(p)
        if self.units[max(0, r - 8) : r].lower() != _BASE64_MARK:
            return None
        return self.runs.end_at(r)


def guarded_regex_matches(pattern: RedactPattern, units: str) -> Iterator[Match]:
    """regex_matches for a base64-guarded pattern, skipping each blocked stretch in one step."""
    guard = _Base64Guard(units)
    pos = 0
    while True:
        found = pattern.regex.search(units, pos)
        if found is None:
            return
        until = guard.blocked_until(found.end(1))
        if until is not None:
            # Every later start whose lookbehind position lies in the same stretch is blocked too.
            pos = max(found.start() + 1, until)
            continue
        yield _from_re(found)
        pos = found.end()


_PEM_BEGIN = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----", re.IGNORECASE | re.ASCII)
_PEM_END_AT = re.compile(r"(?=(-----END [A-Z ]*PRIVATE KEY-----))", re.IGNORECASE | re.ASCII)


def pem_matches(pattern: RedactPattern, units: str) -> Iterator[Match]:
    """Pattern 18, `-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]+?-----END [A-Z ]*PRIVATE KEY-----`: a header
    (its length is fixed by where it starts), then the first END header starting at least one unit after
    it; with no such END for the first header, none for any later one either."""
    del pattern
    if "-----" not in units:
        return
    ends = [(m.start(), m.end(1)) for m in _PEM_END_AT.finditer(units)]
    end_starts = [start for start, _ in ends]
    pos = 0
    while True:
        head = _PEM_BEGIN.search(units, pos)
        if head is None:
            return
        k = bisect_left(end_starts, head.end() + 1)
        if k == len(ends):
            return
        stop = ends[k][1]
        yield Match(head.start(), stop, units[head.start() : stop], (), ())
        pos = stop


_JWT_START = re.compile("eyj", re.IGNORECASE | re.ASCII)
_JWT_CLASS = "A-Za-z0-9_-"


def jwt_matches(pattern: RedactPattern, units: str) -> Iterator[Match]:
    """Pattern 37, `(eyJ[W]{10,}\\.[W]{10,}\\.[W]{10,})` with W = [A-Za-z0-9_-]: each run is the whole
    W-run (`eyJ` is part of the first one), followed by `.`."""
    del pattern
    runs = _Runs(units, _JWT_CLASS)
    n = len(units)
    last = 0
    for start_match in _JWT_START.finditer(units):
        s = start_match.start()
        if s < last:
            continue
        first = runs.end_at(s)
        if first - (s + 3) < 10 or first >= n or units[first] != ".":
            continue
        second = runs.end_at(first + 1)
        if second - (first + 1) < 10 or second >= n or units[second] != ".":
            continue
        third = runs.end_at(second + 1)
        if third - (second + 1) < 10:
            continue
        whole = units[s:third]
        yield Match(s, third, whole, (whole,), (0,))
        last = third


_AT_CLASS = "A-Za-z0-9+/=_\\-"


def _at_token_matches(prefix: str) -> Scanner:
    """Patterns 65 and 66, `(^|[^A-Za-z0-9])(?<!;base64,…)(PREFIX[C]+=[A-Za-z0-9]{8})` with
    C = [A-Za-z0-9+/=_-]: the greedy `[C]+` gives back to the last `=` of its C-run that 8 alphanumerics
    follow, so a start matches iff that `=` lies at least one unit past the prefix."""
    start_re = re.compile(re.escape(prefix), re.IGNORECASE | re.ASCII)
    good_re = re.compile("(?==[A-Za-z0-9]{8})")

    def matches(pattern: RedactPattern, units: str) -> Iterator[Match]:
        del pattern
        runs = _Runs(units, _AT_CLASS)
        good = [m.start() for m in good_re.finditer(units)]
        guard = _Base64Guard(units)
        last = 0
        for found in start_re.finditer(units):
            p = found.start()
            if p == 0:
                s, boundary = 0, ""
            elif not units[p - 1].isascii() or not units[p - 1].isalnum():
                s, boundary = p - 1, units[p - 1]
            else:
                continue
            if s < last or guard.blocked_until(p) is not None:
                continue
            run_end = runs.end_at(p)
            k = bisect_left(good, run_end) - 1  # the last good `=` before the run's end
            if k < 0 or good[k] < p + len(prefix) + 1:
                continue
            end = good[k] + 9
            token = units[p:end]
            yield Match(s, end, units[s:end], (boundary, token), (0, p - s))
            last = end

    return matches


_DB_URL_START = js_regex(
    r"\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?|amqps?):\/\/", ignore_case=True
)
_DB_URL_USER = js_regex(r"[^:\s/@]*")
_DB_URL_STOP = js_regex(r"[@\s]")


def db_url_matches(pattern: RedactPattern, units: str) -> Iterator[Match]:
    """Pattern 14, `\\b(?:postgres(?:ql)?|…):\\/\\/[^:\\s/@]*:([^@\\s]+)@`: after the user part's `:`, the
    password runs to the next `@` or whitespace, which must be an `@`."""
    del pattern
    stops = [m.start() for m in _DB_URL_STOP.finditer(units)]
    n = len(units)
    last = 0
    for start in _DB_URL_START.finditer(units):
        s = start.start()
        if s < last:
            continue
        user = _DB_URL_USER.match(units, start.end())
        assert user is not None
        colon = user.end()
        if colon >= n or units[colon] != ":":
            continue
        k = bisect_left(stops, colon + 1)
        stop = stops[k] if k < len(stops) else n
        if stop == colon + 1 or stop >= n or units[stop] != "@":
            continue
        yield Match(s, stop + 1, units[s : stop + 1], (units[colon + 1 : stop],), (colon + 1 - s,))
        last = stop + 1


def _first_pair_matcher() -> Scanner:
    """Pattern 15, `(^|[\\s,;])(?:KEYS)=([^&\\s]+)(?=&[A-Za-z_][A-Za-z0-9_.-]*=)`: keys hold no `=`, so the
    key ends at the first `=`; the value runs to the next `&` or whitespace, where the lookahead must hold
    (computed once per such end)."""
    start_re = js_regex(rf"(^|[\s,;])(?:{FORM_BODY_FIRST_PAIR_KEYS})=", ignore_case=True)
    stop_re = js_regex(r"[&\s]")
    follow_re = js_regex(r"&[A-Za-z_][A-Za-z0-9_.-]*=")

    def matches(pattern: RedactPattern, units: str) -> Iterator[Match]:
        del pattern
        stops = [m.start() for m in stop_re.finditer(units)]
        n = len(units)
        follows: dict[int, bool] = {}
        last = 0
        for start in start_re.finditer(units):
            s = start.start()
            if s < last:
                continue
            value_start = start.end()
            k = bisect_left(stops, value_start)
            stop = stops[k] if k < len(stops) else n
            if stop == value_start:
                continue
            if stop not in follows:
                follows[stop] = follow_re.match(units, stop) is not None
            if not follows[stop]:
                continue
            boundary = start.group(1)
            yield Match(
                s,
                stop,
                units[s:stop],
                (boundary, units[value_start:stop]),
                (0, value_start - s),
            )
            last = stop

    return matches


SCANNERS.update(
    {
        14: db_url_matches,
        15: _first_pair_matcher(),
        18: pem_matches,
        37: jwt_matches,
        42: guarded_regex_matches,
        59: guarded_regex_matches,
        65: _at_token_matches("ATCTT3xFfG"),
        66: _at_token_matches("ATATT"),
        67: guarded_regex_matches,
        87: guarded_regex_matches,
        88: guarded_regex_matches,
    }
)
