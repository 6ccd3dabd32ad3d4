"""The planner's shared corpus: questions and the answers both implementations must give.

`site-gen plan` (site_gen/planner) and planner.html (assets/planner-rules.js) are held to the
same answers, in tests/planner/test_planner_corpus.py, so they cannot disagree. Every hop of every answer is
also checked against the graph JSON files a cluster reads (``verify_hops``).

After a deliberate change of the rules, regenerate the answers and review the diff:

    .venv/bin/python tests/support/planner_corpus.py --update
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from corpus_file import load_corpus as load_corpus_file
from corpus_file import regenerate

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS.parent / "benchmarks"))

CORPUS = TESTS / "data" / "planner_corpus.json"


def q(arch: str, source: str, target: str, kind: str = "stable", channel: str | None = None) -> dict:
    return {"arch": arch, "from": source, "to": target, "kind": kind, "channel": channel}


QUESTIONS = {
    "example": [
        q("amd64", "4.14.10", "4.16.0", "eus"),              # F8.1 as EUS-to-EUS, with the procedure
        q("amd64", "4.14.10", "4.16.0", "any"),
        q("amd64", "4.14.0", "4.16.0", "any"),               # F7: a channel switch
        q("amd64", "4.14.0", "4.16"),                         # the newest 4.16 in stable channels
        q("amd64", "4.14.10", "4.16.0", "fast"),
        q("amd64", "4.15.5", "4.16.0-rc.3", "candidate"),    # prereleases, flagged
        q("amd64", "4.15.5", "4.16.0-rc.3"),                  # not in any stable channel
        q("amd64", "4.14.6", "4.14.7", channel="stable-4.14"),  # F4: conditional only
        q("amd64", "4.15.0", "4.15.1", "any"),               # F8.3: nothing updates to it
        q("amd64", "4.14.10", "4.15.7", channel="stable-4.15"),  # F8.3: not in the channel
        q("s390x", "4.14.9", "4.14.8", channel="eus-4.14"),  # updates only go forward
        q("s390x", "4.14.8", "4.16.0", "eus"),               # F8.2
        q("arm64", "4.15.4", "4.16.0-ec.0", "any"),          # F1: not served
        q("multi", "4.14.0", "4.16", "any"),
        q("amd64", " v4.14.10 ", "V4.16.0"),
    ],
    # the example with its release contents (example-release-contents/): each hop's changes and acks
    "contents": [
        q("amd64", "4.14.12", "4.16", "any"),                # 4.14.12 -> 4.15.8 -> 4.16.4: both hops have contents
        q("amd64", "4.15.8", "4.16.4", "candidate"),         # the 4.15 admin gate, with its oc patch
        q("amd64", "4.15.8", "4.15.9", "candidate"),         # a z-stream update: no gate
        q("amd64", "4.14.10", "4.16.0", "eus"),              # releases without contents: one line per hop
    ],
    "real": [
        q("amd64", "4.14.20", "4.18.52"),                     # finding 1: stays in stable channels
        q("amd64", "4.14.20", "4.18"),                        # finding 1: the newest 4.18 in stable
        q("amd64", "4.14.20", "4.18.52", "any"),             # finding 1: any channel, marked
        q("amd64", "4.14.20", "4.18", "any"),                # issue 21.5: 4.18.52 (unmarked) over 4.18.54
        q("amd64", "4.14.20", "4.18.54"),                     # finding 1: candidate-only target
        q("amd64", "4.14.20", "4.18.54", "candidate"),
        q("amd64", "4.12.10", "4.16.68", "eus"),             # finding 2: EUS-to-EUS
        q("amd64", "4.12.10", "4.16", "eus"),
        q("amd64", "4.12.10", "4.16.68", channel="eus-4.16"),  # finding 2: the old dead end, explained
        q("amd64", "4.14.20", "4.14", "stable"),
        q("amd64", "4.8.4", "4.14.30", "any"),               # millions of routes
    ],
}


CLUSTERS_DIR = TESTS / "data" / "clusters"
HINT_RULES = [{"type": "PromQL", "promql": {"promql": 'group(cluster_infrastructure_provider{type="BareMetal"})'}}]


def c(site: str, file: str, target: str = "", kind: str | None = None, arch: str | None = None,
      operators: str | None = None) -> dict:
    """A ClusterVersion document pasted into the planner (--cluster FILE): target, kind and
    architecture as the admin sets them (empty: from the document); the installed operators pasted
    in their own box (--operators FILE), when given."""
    entry = {"site": site, "file": file, "target": target, "kind": kind, "arch": arch}
    return {**entry, "operators": operators} if operators else entry


CLUSTER_QUESTIONS = [
    c("example", "single-arch-true.json"),               # True: the first update counts as recommended
    c("example", "single-arch-false.yaml"),              # False: avoided while another route exists
    c("example", "single-arch-unknown.json"),            # Unknown: shown as such
    c("example", "anchored-channel.yaml"),               # `channel: &c stable-4.16`, aliases in flow sequences
    c("example", "single-arch-true.json", "4.16.0", "any"),
    c("example", "multi-eus.json"),                      # architecture Multi, eus channel: the procedure
    c("example", "multi-wrong-image.json"),             # Multi, but desired.image is the amd64 payload
    c("example", "multi-unknown-image.json"),            # Multi, and desired.image no payload of this site
    c("example", "no-channel.json"),                     # no spec.channel: a channel asked for
    c("example", "no-channel.json", "4.16"),             # ... and with a target, planned in stable channels
    c("example", "mid-update.yaml"),                     # history: updating 4.15.4 -> 4.15.5
    c("example", "unknown-version.json", arch="amd64"),  # a version, channel and upstream the site lacks
    c("example", "malformed-truncated.json"),
    c("example", "malformed-not-clusterversion.yaml"),
    c("example", "malformed-no-status.json"),
    c("example", "flow-style.yaml"),                     # a whole document in YAML flow style ({...})
    c("example", "alias-bomb.yml"),                      # aliases expanding to 10^9 nodes: refused by both
    c("hints", "hint-later-hop.json"),                   # the evaluated risk again on a later update
    c("hints", "hint-strongest-evidence.json"),          # cited from the single-risk evaluation, not a 3-risk one
    c("hints", "first-hop-applies-elsewhere.json", "4.2.0"),  # Unknown on 4.2.0, applies on 4.1.3: avoided, said
    # installed operators (tests/support/cluster_operator_site.py says what each one meets)
    c("operators", "with-operators.json"),               # one List: the ClusterVersion and the operators
    c("operators", "multi-eus.json", operators="operators.yaml"),   # the EUS steps name them
    c("operators", "single-arch-true.json", "4.15.6", operators="operators.yaml"),  # a patch update: none blocks
    c("operators", "single-arch-true.json", operators="malformed-truncated.json"),  # the operators' own error
    c("example", "with-operators.json"),                 # a site without catalogs: only the CSVs' own maximum
    # release contents: the cluster's own admin acknowledgements on the first update
    c("contents", "admin-ack-pending.json"),             # Upgradeable=False AdminAckRequired names the 4.15 gate
    c("contents", "admin-ack-given.json"),               # no Upgradeable condition: nothing pending
    c("contents", "admin-ack-given.json", "4.15.9"),     # a z-stream update needs no acknowledgement
    c("contents", "single-arch-true.json"),              # 4.15.3: no contents on the site for its hops
]


def build_hints_site(root: Path) -> Path:
    """4.1.0 -> 4.1.1 -> 4.2.0 and 4.1.0 -> 4.2.0, both updates into 4.2.0 carrying the risk
    BareMetalNetworkStall: a cluster at 4.1.0 that evaluated it meets it again one update later.
    4.1.0 -> 4.1.2 carries it with two other risks, 4.1.0 -> 4.1.3 alone: the strongest evidence
    of the cluster's evaluations is the single-risk one."""
    from scenario import Scenario
    from site_helpers import build_site
    scenario = Scenario(root)
    scenario.release("4.1.0").release("4.1.1", previous=["4.1.0"]).release("4.2.0", previous=["4.1.0", "4.1.1"])
    scenario.release("4.1.2", previous=["4.1.0"]).release("4.1.3", previous=["4.1.0"])
    scenario.channel("stable-4.2", ["4.1.0", "4.1.1", "4.1.2", "4.1.3", "4.2.0"])
    scenario.risk("4.2.0-BareMetalNetworkStall.yaml", "4.2.0", "4[.]1[.][01][+]", "BareMetalNetworkStall",
                  rules=HINT_RULES)
    # the same risk evaluated twice: with two others on 4.1.0 -> 4.1.2, alone on 4.1.0 -> 4.1.3
    for to, name in (("4.1.2", "AlwaysBreaksA"), ("4.1.2", "BareMetalNetworkStall"), ("4.1.2", "AlwaysBreaksB"),
                     ("4.1.3", "BareMetalNetworkStall")):
        scenario.risk(f"{to}-{name}.yaml", to, "4[.]1[.]0[+]", name,
                      rules=HINT_RULES if name == "BareMetalNetworkStall" else None)
    return build_site(root / "site", root / "cache", graph_data=scenario.data, releases=scenario.releases).out


def terminal_cluster_answer(site: Path, entry: dict) -> dict:
    """{"answer": ...} or {"error": message} (the parser's own detail is left out: the page's differs),
    with "errorIn": "operators" when the operators' document is the one refused."""
    from site_gen.olm.update_check import site_json_reader
    from site_gen.planner.cluster import NOT_CLUSTER_VERSION, ClusterError, plan_for_cluster, read_cluster
    from site_gen.planner.cluster_operators import has_operators, parse_objects, read_operators, split_cluster
    from site_gen.planner.data import load_planner_data
    from site_gen.planner.hop_changes import attach_hop_changes, cluster_evidence, site_reader
    from site_gen.planner.operator_findings import attach_operators
    payloads = orjson.loads((site / "data" / "payloads.json").read_bytes())
    try:
        document, others = split_cluster(parse_objects((CLUSTERS_DIR / entry["file"]).read_text("utf-8"),
                                                       NOT_CLUSTER_VERSION))
        cluster = read_cluster(document, payloads)
    except ClusterError as exc:
        return {"error": exc.message}
    objects = list(others)
    if entry.get("operators"):
        try:
            objects += parse_objects((CLUSTERS_DIR / entry["operators"]).read_text("utf-8"))
        except ClusterError as exc:
            return {"error": exc.message, "errorIn": "operators"}
    data = load_planner_data(site, cluster["arch"] or entry["arch"])
    answer = plan_for_cluster(data, cluster, entry["target"], entry["kind"])
    attach_hop_changes(answer, site_reader(site), cluster_evidence(document))
    if has_operators(objects):
        attach_operators(answer, read_operators(objects), site_json_reader(site))
    return {"answer": answer}


def build_example_site(root: Path) -> Path:
    from conftest import EXAMPLE
    from site_helpers import build_site
    return build_site(root / "site", root / "cache", graph_data=EXAMPLE, releases=EXAMPLE / "releases").out


def build_contents_site(root: Path) -> Path:
    """The example with the release contents of example-release-contents/ (as the default build)."""
    from site_gen.registry.contents_source import contents_source

    from conftest import EXAMPLE, REPO
    from site_helpers import build_site
    return build_site(root / "site", root / "cache", graph_data=EXAMPLE, releases=EXAMPLE / "releases",
                      release_contents=contents_source(str(REPO / "example-release-contents"))).out


def build_real_site(root: Path) -> Path:
    """The real 2026-08 graph-data with synthetic amd64 releases (the planner needs no other arch)."""
    from conftest import REAL_GRAPH_DATA
    from site_helpers import build_site
    from synthetic_releases import write_synthetic_releases
    write_synthetic_releases(REAL_GRAPH_DATA, root / "releases", arches=("amd64",))
    return build_site(root / "site", root / "cache", graph_data=REAL_GRAPH_DATA, releases=root / "releases").out


def terminal_answer(site: Path, question: dict) -> dict:
    from site_gen.planner.answer import Question, plan
    from site_gen.planner.data import load_planner_data
    from site_gen.planner.hop_changes import attach_hop_changes, site_reader
    answer = plan(load_planner_data(site, question["arch"]),
                  Question(question["arch"], question["from"], question["to"], question["kind"], question["channel"]))
    attach_hop_changes(answer, site_reader(site))
    return answer


def load_corpus() -> dict:
    return load_corpus_file(CORPUS)


def _graph(site: Path, channel: str, arch: str, cache: dict) -> tuple[dict, set, dict]:
    """A channel's served graph as (version -> index, recommended pairs, conditional pair -> risk names)."""
    if (channel, arch) not in cache:
        document = orjson.loads((site / f"api/upgrades_info/v1/graph/{channel}/{arch}.json").read_bytes())
        versions = [node["version"] for node in document["nodes"]]
        recommended = {(versions[a], versions[b]) for a, b in document["edges"]}
        conditional = {}
        for group in document["conditionalEdges"]:
            for edge in group["edges"]:
                conditional.setdefault((edge["from"], edge["to"]), []).extend(r["name"] for r in group["risks"])
        cache[channel, arch] = ({v: i for i, v in enumerate(versions)}, recommended, conditional)
    return cache[channel, arch]


def cluster_as_question(answer: dict) -> dict:
    """The question a cluster plan answered, for verify_hops."""
    cluster = answer["cluster"]
    return {"arch": answer["arch"], "from": answer["from"], "to": answer["to"], "kind": cluster["kind"],
            "channel": None, "cluster_channel": cluster["channel"]}


def verify_hops(site: Path, question: dict, answer: dict, cache: dict | None = None) -> int:
    """Check every hop of every route against the graph JSON of every channel it names: the update is
    there, recommended or conditional with exactly those risks; the channel the cluster is set to
    serves it; the route is connected; in a kind, every channel is of that kind. Returns the hops checked."""
    cache = {} if cache is None else cache
    arch = answer["arch"]
    checked = 0
    for section in answer["sections"]:
        assert section["route"][0] == answer["from"] and section["route"][-1] == answer["to"], section["route"]
        current = question.get("cluster_channel")  # a cluster's own channel, already set
        for hop, (a, b) in zip(section["hops"], zip(section["route"], section["route"][1:]), strict=True):
            assert (hop["from"], hop["to"]) == (a, b)
            current = hop["set"] or current
            assert current in hop["channels"], (a, b, current, hop["channels"])
            if hop.get("evaluation", {}).get("status") == "False":  # avoided unless nothing else gets there
                assert any("Every route starts with an update whose risks apply" in note
                           for note in answer["cluster"]["notes"]), (a, b)
            if question["channel"]:
                assert hop["channels"] == [question["channel"]]
            elif question["kind"] != "any":
                assert all(c.startswith(question["kind"] + "-") for c in hop["channels"]), hop["channels"]
            for channel in hop["channels"]:
                _, recommended, conditional = _graph(site, channel, arch, cache)
                if hop["risks"]:
                    assert sorted(conditional.get((a, b), [])) == sorted(hop["risks"]), (channel, a, b)
                else:
                    assert (a, b) in recommended, (channel, a, b)
            checked += 1
    return checked


def answers(tmp: Path) -> dict:
    """Every question's answer and every cluster's, each hop verified against the site's graph JSON."""
    from cluster_operator_site import build_operators_site
    corpus = {}
    sites = {}
    for name, build in (("example", build_example_site), ("real", build_real_site), ("hints", build_hints_site),
                        ("operators", build_operators_site), ("contents", build_contents_site)):
        site = sites[name] = build(tmp / name)
        if name not in QUESTIONS:
            continue
        corpus[name] = [{"question": question, "answer": terminal_answer(site, question)}
                        for question in QUESTIONS[name]]
        for entry in corpus[name]:
            verify_hops(site, entry["question"], entry["answer"])
    corpus["clusters"] = []
    for entry in CLUSTER_QUESTIONS:
        result = terminal_cluster_answer(sites[entry["site"]], entry)
        if "answer" in result:
            verify_hops(sites[entry["site"]], cluster_as_question(result["answer"]), result["answer"])
        corpus["clusters"].append({**entry, **result})
    return corpus


def main(argv: list[str] | None = None) -> int:
    return regenerate(CORPUS, __doc__, "site_gen/planner", answers, argv)


if __name__ == "__main__":
    sys.exit(main())
