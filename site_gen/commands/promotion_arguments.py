"""``--promote-until`` and the time sources of the promotion step, for site-gen build."""

from __future__ import annotations

import sys
from pathlib import Path

from ..model.errors import InputError
from ..model.times import format_time, resolve_time
from ..promotion.resolve import PromotionOptions


def add_promotion_arguments(parser) -> None:
    group = parser.add_argument_group("promotion (feeders and tombstones, see docs/maintainers.md)")
    group.add_argument("--promote-until", metavar="TIME",
                       help="apply every promotion due before TIME (RFC 3339, or 'now': "
                            "SOURCE_DATE_EPOCH if set, else the clock) to the channels before "
                            "building, following feeder chains hop by hop (default: off)")
    group.add_argument("--entry-times", type=Path, metavar="FILE",
                       help="YAML/JSON {channel: {version: time}}: when versions entered channels, "
                            "for graph-data without git history (git blame fills the rest)")
    group.add_argument("--errata", type=Path, metavar="FILE",
                       help="YAML/JSON {version: public | true | false | time}: errata publicity "
                            "for feeders with 'errata: public' (tools/errata_status.py writes it "
                            "on a connected machine); it overrides --trust-errata-urls")
    group.add_argument("--trust-errata-urls", action="store_true",
                       help="count a version's errata as public when its amd64 release metadata "
                            "has an errata 'url' (the promotion tool checks that the URL answers; "
                            "offline we can only trust it). The URL exists days before the errata is "
                            "published, so the due and promoted times this gives are the EARLIEST "
                            "POSSIBLE, NOT EXPECTED (marked earliestPossible in promotion.json)")


def options_from_args(args) -> PromotionOptions:
    """The promotion options of a command line; ``now`` is resolved here, once, and
    announced when it came from the clock so the run can be repeated."""
    until = None
    if args.promote_until is not None:
        try:
            until, from_clock = resolve_time(args.promote_until)
        except ValueError as exc:
            raise InputError(f"--promote-until: {exc}") from None
        if from_clock and not args.quiet:
            print(f"promoting until {format_time(until)} (now); pass --promote-until "
                  f"{format_time(until)} to repeat this build", file=sys.stderr)
    return PromotionOptions(until, args.entry_times, args.errata, args.trust_errata_urls)
