"""Promotion: what the graph-data's feeders and tombstones will do to channels.

Cincinnati serves only each channel's ``versions``; feeders and tombstones drive
the promotion tooling that writes those lists (spec §9). This package computes,
offline and deterministically, which versions are waiting to be promoted and
when, the zombies, and (opt-in) the channels as they will be at a given time.
"""
