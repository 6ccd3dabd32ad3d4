"""Feeder delays: the subset of ISO 8601 durations the promotion tool understands.

The tool accepts ``PnW``, or days and/or hours (``PnD``, ``PTnH``, ``PnDTnH``),
and a bare ``P`` (zero). Anything else, minutes and months included, makes it
fail, so we reject it too and say which part it does not understand.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

# Due dates are entry time + delay: from any entry time before 2200, within datetime's range.
_LONGEST = datetime.max - datetime(2200, 1, 1)
_TOOL_DELAY = re.compile(r"P(?:(?P<weeks>\d+)W|(?:(?P<days>\d+)D)?(?:T(?P<hours>\d+)H)?)")
_ISO_DURATION = re.compile(r"P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+([.,]\d+)?S)?)?")


def parse_delay(text: str) -> timedelta:
    """The delay as a timedelta, or ValueError saying what is wrong with it."""
    match = _TOOL_DELAY.fullmatch(text)
    if match:
        weeks, days, hours = (int(match[name] or 0) for name in ("weeks", "days", "hours"))
        try:
            delay = timedelta(weeks=weeks, days=days, hours=hours)
        except OverflowError:
            delay = _LONGEST
        if delay >= _LONGEST:
            raise ValueError(f"delay {text!r} is longer than {_LONGEST.days:,} days: no due date "
                             "can be computed from it (the promotion tool's datetime overflows)")
        return delay
    kind = ("is an ISO 8601 duration, but" if _ISO_DURATION.fullmatch(text)
            else "is not an ISO 8601 duration;")
    raise ValueError(f"delay {text!r} {kind} the promotion tool accepts only weeks (PnW) or "
                     "days and hours (PnD, PTnH, PnDTnH)")
