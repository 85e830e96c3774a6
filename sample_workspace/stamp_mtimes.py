"""Give the sample's memory notes fixed modification times (git does not keep mtimes).

Slugged notes of one day are ranked by mtime, so without this the demo would pick a different four
notes on every clone. Each note gets 09:00 UTC of its date plus its position in ORDER (later = newer).
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path

ORDER = [
    "old-draft",
    "lunch",
    "retro",
    "billing-export",
    "search-fix",
    "standup",
    "vendor-call",
    "reading-list",
]

STAMPED = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-(.+))?\.md$")


def main() -> None:
    root = Path(__file__).resolve().parent / "workspaces"
    for path in sorted(root.glob("*/memory/*.md")):
        match = STAMPED.match(path.name)
        if not match:
            continue
        day = datetime.fromisoformat(match.group(1)).replace(hour=9, tzinfo=UTC)
        slug = match.group(2)
        rank = ORDER.index(slug) + 1 if slug in ORDER else 0
        stamp = day.timestamp() + rank * 600
        os.utime(path, (stamp, stamp))


if __name__ == "__main__":
    main()
