"""olm.deprecations messages and the Subscription conditions OLM derives from them (spec §4.3)."""

from __future__ import annotations

from site_gen.olm.deprecations import package_deprecations, subscription_conditions
from site_gen.olm.loading import load_catalog

from conftest import TESTS

FIXTURE = TESTS / "olm_fixtures" / "deprecations"


def test_messages_by_scope():
    found = package_deprecations(load_catalog(FIXTURE), "etcd")
    assert found.package == "etcd is end of life; use etcd-ng"
    assert found.channels == {"alpha": "the alpha channel is no longer updated"}
    assert found.bundles == {"etcd.v1.0.0": "etcd.v1.0.0 has a known data-loss bug"}
    assert package_deprecations(load_catalog(FIXTURE), "other").package is None


def test_subscription_conditions():
    found = package_deprecations(load_catalog(FIXTURE), "etcd")
    conditions = subscription_conditions(found, "alpha", "etcd.v1.0.0")
    assert list(conditions) == ["PackageDeprecated", "ChannelDeprecated", "BundleDeprecated", "Deprecated"]
    assert conditions["Deprecated"] == ("etcd is end of life; use etcd-ng; the alpha channel is no longer updated; "
                                        "etcd.v1.0.0 has a known data-loss bug")
    # no channel in the Subscription: no ChannelDeprecated; another bundle: no BundleDeprecated
    assert list(subscription_conditions(found, "", "etcd.v1.1.0")) == ["PackageDeprecated", "Deprecated"]
