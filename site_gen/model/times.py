"""Points in time as users write them and as we publish them (RFC 3339, UTC)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, date, datetime

UTC = UTC
# "Public since forever": errata known to be public, but not since when.
LONG_AGO = datetime.min.replace(tzinfo=UTC)


def parse_time(value: object) -> datetime:
    """An aware UTC datetime from an RFC 3339 / ISO 8601 string, or from the
    datetime or date YAML already parsed. No offset means UTC, as in YAML."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"{value!r} is not an RFC 3339 time such as 2024-06-20T10:00:00Z") from None
    elif isinstance(value, date) and not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    if not isinstance(value, datetime):
        raise ValueError(f"{value!r} is not a time (write it as 2024-06-20T10:00:00Z)")
    try:
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is before the first moment a datetime holds
        raise ValueError(f"{value.isoformat()} is out of the range of times (years 1 to 9999 UTC)") from None


def format_time(moment: datetime) -> str:
    """``2024-06-20T10:00:00Z`` (fractions of a second only when there are some)."""
    moment = moment.astimezone(UTC)
    spec = "microseconds" if moment.microsecond else "seconds"
    return moment.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def resolve_time(text: str, environ: Mapping[str, str] = os.environ) -> tuple[datetime, bool]:
    """``now`` or an explicit time -> (time, whether it came from the clock).

    ``now`` honours SOURCE_DATE_EPOCH so a scheduled build can be reproduced."""
    if text.strip().lower() != "now":
        return parse_time(text), False
    epoch = environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            return datetime.fromtimestamp(int(epoch), UTC), False
        except (ValueError, OverflowError):
            raise ValueError(f"SOURCE_DATE_EPOCH={epoch!r} is not a number of seconds") from None
    return datetime.now(UTC).replace(microsecond=0), True
