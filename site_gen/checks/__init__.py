"""``site-gen check``: validate a graph-data change before it merges.

One module per family of checks; each returns :class:`~.finding.Finding` objects
and never stops at the first problem, so one run reports everything it can.
"""
