"""One channel × architecture as its page shows it: versions, updates and the marks
that answer "why is no update available?" at a glance."""

from __future__ import annotations

from dataclasses import dataclass, field

from .risk_catalog import RiskInfo
from .served_views import ServedView

PLAIN_FILL = "#ffffff"  # a version without a mark


@dataclass(frozen=True)
class Mark:
    """A property of a version in one channel, drawn as node colours and listed in words.

    The legend shows each mark as a node with only that mark looks. A version with
    several marks is drawn like the first of them in MARKS (fill, border colour and
    width), and the dashed or double outline of any other is added: those two are the
    only features no other mark uses, so the picture never contradicts the legend."""

    label: str
    fill: str | None     # node fill in the picture (None: the plain fill)
    border: str
    bold: bool = False
    dashed: bool = False
    double: bool = False  # a second outline

    @property
    def drawn_fill(self) -> str:
        return self.fill or PLAIN_FILL


HEAD = Mark("head of the channel", "#dbeafe", "#1e40af", bold=True)
DEAD_END = Mark("no update leaves it", None, "#b91c1c", bold=True)
NEWEST_REACHABLE = Mark("newest version a recommended update leads to", "#dcfce7", "#166534", bold=True)
CONDITIONAL_ONLY = Mark("reachable only through conditional updates", "#ffedd5", "#9a3412")
NO_INCOMING = Mark("no update leads here", "#f3f4f6", "#4b5563", dashed=True)
TOMBSTONED = Mark("tombstoned in its feeder or further up the feeder chain", "#fee2e2", "#7f1d1d",
                  double=True)
# By priority: a dead end (a cluster there is stuck) outranks how the version is reached.
MARKS = (HEAD, DEAD_END, NEWEST_REACHABLE, CONDITIONAL_ONLY, NO_INCOMING, TOMBSTONED)


@dataclass
class ChannelView:
    channel: str
    arch: str
    versions: list[str]                                    # SemVer order, as served
    recommended: list[tuple[int, int]]                     # positions into versions
    conditional: list[tuple[int, int, tuple[RiskInfo, ...]]]
    risks: list[RiskInfo]                                  # distinct risks on its updates
    newest_reachable: str | None   # newest version a recommended update leads to
    no_incoming: list[str]         # no update leads here: only installs land on it
    conditional_only: list[str]    # reachable only by accepting a risk
    dead_ends: list[str]           # not the head, yet no update leaves it
    # version -> the feeder chain from this channel's feeder up to the channel that
    # tombstones it (just the feeder: a zombie); see promotion_pages.chain_tombstones
    tombstoned: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def head(self) -> str:
        """The newest version in the channel."""
        return self.versions[-1]

    def marks(self) -> dict[str, list[Mark]]:
        """The marks of every marked version, in priority order (the order of MARKS)."""
        marked = {HEAD: [self.head],
                  DEAD_END: self.dead_ends,
                  NEWEST_REACHABLE: [self.newest_reachable] if self.newest_reachable else [],
                  CONDITIONAL_ONLY: self.conditional_only,
                  NO_INCOMING: self.no_incoming,
                  TOMBSTONED: self.tombstoned}
        found: dict[str, list[Mark]] = {}
        for mark in MARKS:
            for version in marked[mark]:
                found.setdefault(version, []).append(mark)
        return found

    def tombstone_note(self, version: str) -> str:
        """Where ``version`` is tombstoned, in words (a zombie when it is the feeder)."""
        chain = self.tombstoned[version]
        if len(chain) == 1:
            return f"zombie: tombstoned in its feeder {chain[0]}"
        return f"tombstoned in {chain[-1]}, up the feeder chain {' ← '.join(chain)}"

    def mark_notes(self, version: str, marks: list[Mark]) -> list[str]:
        """The marks of a version in words, saying where it is tombstoned."""
        return [self.tombstone_note(version) if mark is TOMBSTONED else mark.label for mark in marks]


def channel_view(view: ServedView) -> ChannelView:
    versions = view.versions
    recommended = view.edges  # (from, to) position pairs
    conditional = sorted(view.conditional_updates(), key=lambda item: item[:2])
    distinct = {id(risk): risk for risks, _ in view.conditional for risk in risks}

    into_recommended = {b for _, b in recommended}
    into_conditional = {b for _, b, _ in conditional}
    sources = {a for a, _ in recommended} | {a for a, _, _ in conditional}
    last = len(versions) - 1
    return ChannelView(
        view.channel, view.arch, versions, recommended, conditional,
        risks=sorted(distinct.values(), key=lambda r: (r.name, r.url, r.message)),
        newest_reachable=versions[max(into_recommended)] if into_recommended else None,
        no_incoming=[v for i, v in enumerate(versions)
                     if i not in into_recommended and i not in into_conditional],
        conditional_only=[v for i, v in enumerate(versions)
                          if i in into_conditional and i not in into_recommended],
        dead_ends=[v for i, v in enumerate(versions) if i != last and i not in sources],
    )
