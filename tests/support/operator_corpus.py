"""The operator checker's shared corpus: questions and the answers both implementations must give.

`site-gen plan-operator` (site_gen/olm/update_check.py) and olm/checker.html
(assets/operator-rules.js) are held to the same answers, in tests/olm/test_update_check.py, so
they cannot disagree. Every answer is also checked against the channel files it was read from
(``verify_answer``).

After a deliberate change of the rules, regenerate the answers and review the diff:

    .venv/bin/python tests/support/operator_corpus.py --update
"""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import OLM_CATALOGS
from corpus_file import load_corpus as load_corpus_file
from corpus_file import regenerate
from operators_only_site import example_catalog_arguments

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS.parent))

CORPUS = TESTS / "data" / "operator_corpus.json"
DEMO = TESTS / "olm_fixtures" / "checker"


def q(family: str, package: str, installed: str, source: str, target: str, channel: str | None = None) -> dict:
    return {"family": family, "package": package, "channel": channel, "installed": installed,
            "openshiftFrom": source, "openshiftTo": target}


QUESTIONS = {
    "demo": [
        q("demo", "gated", "1.0.0", "4.18", "4.19"),              # blocks; 1.2.0 lifts it; re-resolved in 4.19
        q("demo", "gated", "gated.v1.1.0", "4.18", "4.18"),       # a patch update is never blocked
        q("demo", "gated", "v1.2.0", "4.18.3", "v4.19"),          # at the head; 4.19 has more
        q("demo", "gated", "1.0.0", "4.18", "4.20"),              # blocks; no 4.20 catalog of the family
        q("demo", "gated", "1.2.0", "4.18", "4.20"),              # no 4.20 catalog: said, not "no path"
        q("demo", "legacy", "0.9.0", "4.18", "4.19"),             # invalid max; nothing on the path lifts it
        q("demo", "pulse", "0.2.1", "4.18", "4.19", "fast-v0"),   # spec §3.3 C: stranded
        q("demo", "pulse", "0.2.3", "4.18", "4.18", "fast-v0"),   # the skipped entry still updates
        q("demo", "pulse", "1.0.0", "4.18", "4.19"),              # the default channel
        q("demo", "sunset", "2.0.0", "4.18", "4.19", "alpha"),    # deprecated package, channel, bundle; gone in 4.19
        q("demo", "mover", "1.0.0", "4.18", "4.19"),              # the channel is gone in 4.19
        q("demo", "ranger", "1.0.0", "4.18", "4.19"),             # skipRange: one hop; 4.19 replaces the old head
        q("demo", "ranger", "ranger.v1.0.5", "4.18", "4.19"),     # no longer listed: a skipRange holds it
        q("demo", "ranger", "ranger.v0.5.0", "4.18", "4.19"),     # no longer listed, nothing updates it: stranded
        q("demo", "ranger", "0.5.0", "4.18", "4.19"),             # a bare version not listed: its CSV name asked
        q("demo", "dropped", "3.0.0", "4.18", "4.19"),            # nothing in 4.19 updates the old head
        q("demo", "spanner", "1.0.0", "4.18", "4.19"),            # 4.19 lists neither; a skipRange holds 1.1.0
        q("demo", "gated", "1.0.0", "4.19", "4.18"),              # no downgrade
        q("demo", "gated", "1.0.0", "4.x", "4.19"),
        q("demo", "nope", "1.0.0", "4.18", "4.19"),
        q("other", "gated", "1.0.0", "4.18", "4.19"),
        q("demo", "gated", "1.0.0", "4.17", "4.19"),
        q("demo", "gated", "1.0.0", "4.18", "4.19", "fast"),
        q("demo", "gated", "9.9.9", "4.18", "4.19"),
        q("demo", "gated", " ", "4.18", "4.19"),
        q("demo", "twice", "1.0.0", "4.18", "4.18"),              # listed twice: invalid package, head 1.1.0
        q("demo", "tolerant", "1.0.0", "4.18", "4.19"),           # "v4" and 4 are 4.0 (block); " 4.19 " lifts
        q("demo", "tolerant", "1.1.0", "4.18", "4.19"),           # max "v4": blang ParseTolerant reads 4.0
        q("demo", "tolerant", "1.2.0", "4.18", "4.19"),           # max 4 (a JSON number): 4.0 too
        q("demo", "escaped", "1.0.0", "4.18", "4.18"),            # a channel name a URL must escape
    ],
    "example": [  # example-catalogs/ (olm-site's), as the example site publishes them
        q("community", "lighthouse", "1.1.0", "4.15", "4.16"),               # max 4.15 blocks 4.16; 1.2.0 lifts it
        q("community", "lighthouse", "1.1.0", "4.14", "4.15"),               # ... but not 4.14 -> 4.15
        q("community", "lighthouse", "1.0.0", "4.15", "4.16"),               # 1.0.0 is gone from 4.16
        q("community", "lighthouse", "1.1.0", "4.14", "4.16"),               # blocks beyond 4.15; 4.15's 1.2.0 lifts
        q("community", "lighthouse", "1.0.0", "4.14", "4.16"),               # 1.1.0 on the way blocks nothing yet
        q("community", "harbourmaster", "2.0.0", "4.15", "4.16"),            # fan-in: one hop
        q("community", "harbourmaster", "2.0.0", "4.14", "4.15"),            # not in 4.14 yet
        q("community", "tidewatch", "1.0.0", "4.14", "4.14"),                # a path that skips 1.0.1
        q("community", "tidewatch", "1.1.0", "4.15", "4.16", "fast"),        # stranded in 4.15, reached in 4.16
        q("community", "oldstone", "2.9.0", "4.15", "4.16", "maintenance"),  # deprecated channel, package in 4.16
        q("community", "oldstone", "3.0.1", "4.16", "4.16"),                 # the legacy olm.deprecated tail
        q("community", "ferryman", "1.0.0", "4.14", "4.15"),                 # stable-1.x renamed stable
        q("community", "ferryman", "1.2.0-alpha.1", "4.14", "4.15", "alpha"),  # alpha dropped
    ],
    "real": [
        q("community", "clusterpulse", "0.2.1", "4.18", "4.19", "fast-v0"),       # §7.2 case 1: stranded
        q("community", "clusterpulse", "0.2.3", "4.19", "4.20", "fast-v0"),
        q("community", "clusterpulse", "1.0.0", "4.20", "4.21"),                  # no 4.21 catalog
        q("community", "kubernaut-operator", "1.3.2", "4.19", "4.20"),            # §7.2 case 2: default channel
        q("community", "kubernaut-operator", "1.3.4", "4.18", "4.19"),
        q("community", "sailoperator", "1.26.1", "4.18", "4.19", "stable"),       # §7.2 case 3: one hop by skipRange
        q("community", "sailoperator", "1.27.0", "4.19", "4.20", "stable-1.27"),
        q("community", "jumpstarter-operator", "0.8.0", "4.18", "4.19", "alpha"),  # §7.2 case 4: prerelease bounds
        q("community", "jumpstarter-operator", "0.8.1-rc.1", "4.20", "4.20", "alpha"),
        q("community", "infinispan", "2.3.0", "4.18", "4.20", "2.3.x"),           # §7.2 case 5
        q("community", "aws-neuron-operator", "0.1.2", "4.20", "4.20", "Stable"),  # §7.2 case 7: down in semver
        q("community", "slurm-operator", "1.0.1", "4.19", "4.20", "release-1.0"),  # §7.2 case 8
        q("community", "project-quay", "3.15.0", "4.18", "4.19", "stable-3.15"),  # §7.2 case 9
    ],
}


def catalog_arguments(name: str) -> list[str]:
    """The --catalog options of a corpus site."""
    if name == "demo":
        return [f"demo-v4.18={DEMO / 'demo-v4.18'}", f"demo-v4.19={DEMO / 'demo-v4.19'}"]
    if name == "example":
        return example_catalog_arguments()
    return [f"community-v{minor}={OLM_CATALOGS / f'v{minor}'}" for minor in ("4.18", "4.19", "4.20")]


def build_site(name: str, root: Path, html: bool) -> Path:
    """The example graph-data with the corpus' catalogs; pages only when ``html``."""
    from site_gen.cli import main
    out = root / f"{name}-site"
    arguments = ["build", "--graph-data", str(TESTS.parent / "graph-data"), "--out", str(out), "-q",
                 "--cache-dir", str(root / "cache"), *([] if html else ["--no-html"])]
    for catalog in catalog_arguments(name):
        arguments += ["--catalog", catalog]
    assert main(arguments) == 0
    return out


def terminal_answer(site: Path, question: dict) -> dict:
    from site_gen.olm.update_check import OperatorQuestion, check_operator, site_json_reader
    return check_operator(OperatorQuestion(**question), site_json_reader(site))


def load_corpus() -> dict:
    return load_corpus_file(CORPUS)


def verify_answer(site: Path, answer: dict) -> None:
    """Each hop is OLM v0's published choice from the one before, ending at the head or where
    the answer says it is stranded; the gate's lifting bundle is on the hops."""
    from site_gen.layout import path_component
    from site_gen.olm.update_check import VERDICTS, site_json_reader
    assert answer["verdict"] in VERDICTS
    if not answer["found"]:
        assert answer["problem"] and answer["steps"] == [answer["problem"]]
        return
    read = site_json_reader(site)
    document = read(f"olm/{path_component(answer['catalog'])}/{path_component(answer['package'])}/"
                    f"{path_component(answer['channel'])}.json")
    names = [node["metadata"]["io.operatorframework.bundle.name"] for node in document["nodes"]]
    hops = answer["hops"]
    if not answer["installedListed"]:  # resolved from the CSV: the first hop is an entry of v0's order
        assert answer["installed"]["bundle"] not in names
        if not hops:
            assert answer["stranded"]["stranded"] and answer["stranded"]["at"] == answer["installed"]["bundle"]
            return
        at = names.index(hops[0]["bundle"])
        assert at in document["v0Order"]
        hops = hops[1:]
    else:
        at = names.index(answer["installed"]["bundle"])
    for hop in hops:
        at = document["updates"][str(at)]
        assert names[at] == hop["bundle"], (names[at], hop)
    assert answer["stranded"]["stranded"] == (at != document["head"])
    assert str(at) not in document["updates"] or at == document["head"]
    gate = answer["gate"]
    if gate["liftedIn"]:  # lifted in the catalog of the minor where it blocks: a bundle of the channel there
        there = read(f"olm/{path_component(gate['liftedIn'])}/{path_component(answer['package'])}/"
                     f"{path_component(answer['channel'])}.json")
        assert gate["liftedBy"] in [node["metadata"]["io.operatorframework.bundle.name"] for node in there["nodes"]]
    elif gate["liftedBy"]:
        assert gate["liftedBy"] in [hop["bundle"] for hop in answer["hops"]]


def answers(tmp: Path) -> dict:
    """Every question's answer, each verified against the site it was read from."""
    corpus = {}
    for name, questions in QUESTIONS.items():
        site = build_site(name, tmp, html=False)
        corpus[name] = [{"question": question, "answer": terminal_answer(site, question)} for question in questions]
        for entry in corpus[name]:
            verify_answer(site, entry["answer"])
    return corpus


def main(argv: list[str] | None = None) -> int:
    return regenerate(CORPUS, __doc__, "update_check.py", answers, argv)


if __name__ == "__main__":
    sys.exit(main())
