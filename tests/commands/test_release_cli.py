"""site_gen/commands/release_cli.py: ``site-gen release diff|info`` on a site folder made here, with
contents files written to the agreed schema (and, with ../shared, the real 4.8 and 4.10 images)."""

from __future__ import annotations

import orjson
import pytest

from site_gen.cli import main
from site_gen.js_rules.release_diff import changes_json, release_changes

from contents_records import (
    IMAGE_REFERENCES,
    crd,
    error_record,
    image,
    record,
    record_from_image_references,
    resource,
    sha,
)

REPO = "https://github.com/openshift/cluster-version-operator"
GATE_4_8 = ("ack-4.8-kube-1.22-api-removals-in-4.9",
            "Kubernetes 1.22 and therefore OpenShift 4.9 remove several APIs which require admin consideration. "
            "Please see the knowledge article https://access.redhat.com/articles/6329921 for details and "
            "instructions.")
ACK_4_8 = ("oc -n openshift-config patch cm admin-acks --patch "
           """'{"data":{"ack-4.8-kube-1.22-api-removals-in-4.9":"true"}}' --type=merge""")


def write(site, contents: dict):
    version, arch = contents["version"], contents["arch"]
    folder = site / "releases" / version / arch
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "contents.json").write_bytes(orjson.dumps(contents))
    return folder / "contents.json"


def small_pair() -> tuple[dict, dict]:
    old = record("4.8.0", components={"kubernetes": {"version": "1.21.0-rc.0", "displayName": None}},
                 images={"cluster-version-operator": image("cvo", "1", REPO, "a" * 40),
                         "gone": image("gone", "2", REPO, "a" * 40)},
                 cluster_operators={"kube-apiserver": {"versions": {"operator": "4.8.0", "kube-apiserver": "1.21.0"}}},
                 manifest_files={"0000_50_a.yaml": sha("a"), "0000_50_b.yaml": sha("b")},
                 resources=[crd("0000_50_a.yaml", "things.example.io", ["v1beta1", "v1"])],
                 admin_gates=dict([GATE_4_8]))
    new = record("4.10.0", components={"kubernetes": {"version": "1.22.1", "displayName": None}},
                 images={"cluster-version-operator": image("cvo", "3", REPO, "b" * 40),
                         "new": image("new", "4", REPO, "c" * 40)},
                 cluster_operators={"kube-apiserver": {"versions": {"operator": "4.10.0", "kube-apiserver": "1.22.1"}}},
                 manifest_files={"0000_50_a.yaml": sha("a2"), "0000_50_c.yaml": sha("c")},
                 resources=[crd("0000_50_a.yaml", "things.example.io", ["v1"])],
                 admin_gates={"ack-4.10-x": "a 4.10 gate"})
    return old, new


@pytest.fixture
def site(tmp_path):
    old, new = small_pair()
    write(tmp_path, old)
    write(tmp_path, new)
    return tmp_path


def test_diff_in_text(site, capsys):
    assert main(["release", "diff", "--site", str(site), "4.8.0", "4.10.0"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out == f"""\
Changes from 4.8.0 to 4.10.0 (amd64)

Components:
  Kubernetes upgraded from 1.21.0-rc.0 to 1.22.1

Images Changed (1, 1 commit range):
  cluster-version-operator  {REPO}/compare/{"a" * 40}...{"b" * 40}

Images Rebuilt (0):

Images Added (1):
  new  {REPO}/commit/{"c" * 40}

Images Removed (1):
  gone

Manifest Files Changed (1):
  0000_50_a.yaml

Manifest Files Added (1):
  0000_50_c.yaml

Manifest Files Removed (1):
  0000_50_b.yaml

CRD Versions No Longer Served:
  things.example.io: v1beta1

Cluster Operator Versions Changed:
  kube-apiserver: kube-apiserver 1.21.0 -> 1.22.1, operator 4.8.0 -> 4.10.0

Admin Acknowledgements This Update Needs (give each before updating):
  {GATE_4_8[0]}: {GATE_4_8[1]}
    {ACK_4_8}
""".replace("Images Rebuilt (0):\n\n", "")


def test_diff_in_json_is_the_change_file_byte_for_byte(site, capsysbinary):
    assert main(["release", "diff", "--site", str(site), "--format", "json", "4.8.0", "4.10.0"]) == 0
    out, err = capsysbinary.readouterr()
    old, new = small_pair()
    assert out == changes_json(release_changes(old, new)) == orjson.dumps(orjson.loads(out)) + b"\n"
    assert orjson.loads(out)["images"]["changed"] == {
        "cluster-version-operator": {"sourceRepository": REPO, "from": "a" * 40, "to": "b" * 40}}
    assert main(["release", "diff", "--site", str(site), "--format", "json", "4.8.0", "4.10.0"]) == 0
    assert capsysbinary.readouterr().out == out


def test_a_downgrade_and_a_release_with_itself(site, capsys):
    assert main(["release", "diff", "--site", str(site), "4.10.0", "4.8.0"]) == 0
    out = capsys.readouterr().out
    assert "Kubernetes upgraded from 1.22.1 to 1.21.0-rc.0" in out  # oc's words, whichever way
    assert "Admin Acknowledgements" not in out  # the CVO asks none for an older minor
    assert main(["release", "diff", "--site", str(site), "4.8.0", "4.8.0"]) == 0
    assert capsys.readouterr().out == "Changes from 4.8.0 to 4.8.0 (amd64)\n\nNo changes.\n"


def test_info_in_text(site, capsys):
    assert main(["release", "info", "--site", str(site), "4.8.0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Release 4.8.0 (amd64)\nDigest:    sha256:")
    assert "\nComponents:\n  Kubernetes 1.21.0-rc.0\n" in out
    assert f"\nImages (2):\n  cluster-version-operator  {REPO}/commit/{'a' * 40}\n" in out
    assert "\nCluster Operators (1):\n  kube-apiserver: operator 4.8.0, kube-apiserver 1.21.0\n" in out
    assert out.endswith(f"Admin Acknowledgements an Update to a Later Minor Needs:\n"
                        f"  {GATE_4_8[0]}: {GATE_4_8[1]}\n    {ACK_4_8}\n")


def test_info_in_json_is_the_contents_file(site, capsysbinary):
    assert main(["release", "info", "--site", str(site), "--format", "json", "4.10.0"]) == 0
    assert capsysbinary.readouterr().out == (site / "releases/4.10.0/amd64/contents.json").read_bytes()


@pytest.mark.parametrize("side", ["from", "to"])
def test_a_release_without_readable_contents_exits_1_with_the_reason(site, capsys, side):
    version = "4.8.0" if side == "from" else "4.10.0"
    path = write(site, error_record(version, "no release-manifests/image-references in the release image"))
    assert main(["release", "diff", "--site", str(site), "4.8.0", "4.10.0"]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"{path}: error: release {version} (amd64) has no readable contents: "
                              "no release-manifests/image-references in the release image\n")
    assert main(["release", "info", "--site", str(site), version]) == 1
    assert capsys.readouterr().err == err


@pytest.mark.parametrize(("content", "reason"), [
    (b"{not json", "not valid JSON"),
    (orjson.dumps(record("4.9.0")), "not the contents of release 4.8.0 (amd64)"),
    (None, "release 4.8.0 (amd64) has no contents file"),
])
def test_an_unreadable_contents_file_is_named(site, capsys, content, reason):
    path = site / "releases/4.8.0/amd64/contents.json"
    if content is None:
        path.unlink()
    else:
        path.write_bytes(content)
    assert main(["release", "diff", "--site", str(site), "4.8.0", "4.10.0"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}: error: {reason}") and err.count("\n") == 1


def test_a_contents_file_of_another_shape_is_refused_without_a_traceback(site, capsys):
    broken = small_pair()[0]
    broken["images"]["cluster-version-operator"]["image"] = 7  # not a pull spec
    path = write(site, broken)
    assert main(["release", "diff", "--site", str(site), "4.8.0", "4.10.0"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}, ") and "TypeError" in err and err.count("\n") == 1


def test_versions_and_architectures_the_site_lacks_are_usage_errors(site, capsys):
    assert main(["release", "diff", "--site", str(site), "4.8.0", "4.9.0"]) == 2
    assert capsys.readouterr().err == (f"error: {site}: the site has no release 4.9.0 "
                                       f"({site / 'releases/4.9.0'} does not exist)\n")
    assert main(["release", "diff", "--site", str(site), "--arch", "arm64", "4.8.0", "4.10.0"]) == 2
    assert capsys.readouterr().err == ("error: the site has no arm64 contents of 4.8.0 and 4.10.0; "
                                       "architectures: amd64\n")
    write(site, record("4.8.0", arch="arm64"))
    write(site, record("4.10.0", arch="arm64"))
    assert main(["release", "diff", "--site", str(site), "4.8.0", "4.10.0"]) == 2
    assert capsys.readouterr().err == "error: pass --arch: the site has 4.8.0 and 4.10.0 for amd64, arm64\n"
    assert main(["release", "diff", "--site", str(site), "--arch", "arm64", "4.8.0", "4.10.0"]) == 0
    capsys.readouterr()
    assert main(["release", "info", "--site", str(site), "../4.8.0"]) == 2
    assert capsys.readouterr().err == "error: '../4.8.0' is not a release version\n"
    assert main(["release", "info", "--site", str(site / "nowhere"), "4.8.0"]) == 2
    assert "not a site built with release contents" in capsys.readouterr().err


def test_usage_without_an_action_exits_2(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["release"])
    assert raised.value.code == 2


@pytest.mark.real_data
@pytest.mark.skipif(not IMAGE_REFERENCES["4.8"].is_file(), reason="../shared/data/release-contents is not there")
def test_the_real_4_8_and_4_10_images_read_as_oc_shows_them(tmp_path, capsys):
    old = record_from_image_references("4.8", "4.8.0")
    old["adminGates"] = dict([GATE_4_8])
    old["resources"] = [resource("0000_50_console-operator_07-downloads-route.yaml", "Route", "downloads",
                                 group="route.openshift.io", namespace="openshift-console")]
    new = record_from_image_references("4.10", "4.10.0")
    new["resources"] = [resource("0000_50_console-operator_07-downloads-route.yaml", "Route", "downloads",
                                 group="route.openshift.io", namespace="openshift-console", capabilities=["Console"])]
    write(tmp_path, old)
    write(tmp_path, new)
    assert main(["release", "diff", "--site", str(tmp_path), "4.8.0", "4.10.0"]) == 0
    out = capsys.readouterr().out
    assert "\nComponents:\n  Kubernetes upgraded from 1.21.0-rc.0 to 1.22.1\n" in out
    assert ("  Red Hat Enterprise Linux CoreOS upgraded from 48.84.202105022103-0 to 410.84.202111112202-0\n"
            in out)
    assert "\nImages Changed (132, 115 commit ranges):\n" in out
    installer = next(line for line in out.splitlines() if line.startswith("  baremetal-installer, installer,"))
    assert installer == ("  baremetal-installer, installer, installer-artifacts  https://github.com/openshift/installer"
                         "/compare/6de18f13b07104f4ff6b71f578b379c17148fc72...8fc863d833b1b361efc61c81998890e1305bcf9b")
    assert "\nImages Rebuilt (2):\n  kube-storage-version-migrator\n  machine-os-content\n" in out
    assert "\nImages Added (12):\n  azure-cloud-controller-manager" in out
    assert "\nImages Removed (6):\n  cluster-cloud-controller-manager-operator-src\n" in out
    assert "\nCapabilities This Update Enables Where They Are Disabled:\n  Console\n" in out
    assert out.endswith(f"  {GATE_4_8[0]}: {GATE_4_8[1]}\n    {ACK_4_8}\n")


@pytest.mark.heavy
def test_the_cli_names_the_example_updates_objects_as_the_script_does(tmp_path, capsys):
    """The names come from release-diff.js's objectName, as on the compare page."""
    assert main(["build", "-q", "--no-html", "--out", str(tmp_path / "site")]) == 0
    capsys.readouterr()
    assert main(["release", "diff", "--site", str(tmp_path / "site"), "4.15.8", "4.16.4"]) == 0
    text = capsys.readouterr().out
    assert ("Objects This Update Deletes:\n"
            "  ServiceMonitor.monitoring.coreos.com openshift-monitoring/telemeter-client "
            "(0000_50_cluster-monitoring-operator_07-telemeter-servicemonitor.yaml)\n") in text
    assert "Objects in Another File:\n  Console.operator.openshift.io cluster: " in text
