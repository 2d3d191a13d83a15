"""What counts as a control character, for every layer that stores, checks or prints text.

The loaders strip these characters from what they store and the API refuses them in a question or a
title: one definition keeps the two in agreement, and it sits in core so a route's input check does not
reach into the ingest loaders for it.
"""

from __future__ import annotations

import re

CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""C0 and C1 controls but tab, newline and CR: NUL (Postgres refuses it) and terminal commands (ESC, CSI)."""
ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""Every C0 and C1 control, whitespace included: for text shown on one line (titles, file names)."""


def control_char(text: str, *, allow_whitespace: bool = False) -> str | None:
    """The first C0/C1 control character in ``text`` (tab, newline and CR allowed if asked), or None."""
    for match in (CONTROL if allow_whitespace else ANY_CONTROL).finditer(text):
        return match.group()
    return None
