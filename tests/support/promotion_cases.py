"""The example's promotion facts (graph-data/README.md F9) and the entry-time and errata files the
promotion tests and the promotion pages' tests build it with, so every due time is known."""

TIMES = """\
candidate:
  4.14.12: 2024-05-01T00:00:00Z
  4.15.9: 2024-05-02T00:00:00Z
  4.16.4: 2024-05-03T00:00:00Z
  4.16.5: 2024-05-04T00:00:00Z
fast:
  4.14.11: 2024-04-20T00:00:00Z
  4.15.7: 2024-04-21T00:00:00Z
  4.15.8: 2024-04-22T00:00:00Z
  4.16.3: 2024-04-25T00:00:00Z
stable:
  4.14.10: 2024-04-01T00:00:00Z
  4.16.1: 2024-04-02T00:00:00Z
"""
ERRATA = "4.14.12: public\n4.15.9: false\n4.16.4: 2024-05-10T00:00:00Z\n"


# graph-data/README.md F9: pending versions (conditions 1-2) and zombies per channel.
F9_PENDING = {
    "fast": ["4.14.12", "4.15.9", "4.16.4", "4.16.5"],
    "stable": ["4.14.11", "4.15.7", "4.15.8", "4.16.3"],
    "candidate-4.15": ["4.14.0-rc.5", "4.14.0-rc.6", "4.14.0-rc.7"],
    "candidate-4.16": ["4.16.5"],
    "fast-4.16": ["4.16.3"],
    "eus-4.14": ["4.14.10"],
    "eus-4.16": ["4.16.1"],
}
F9_ZOMBIES = {"fast": ["4.15.4"], "fast-4.15": ["4.15.1"], "fast-4.16": ["4.15.1"],
              "candidate-4.14": ["4.14.4"], "candidate-4.15": ["4.14.4", "4.15.4"],
              "candidate-4.16": ["4.15.4", "4.16.2"]}
