"""``--catalog NAME[@4.N]=SOURCE``: the minor a catalog serves and the family it belongs to."""


import pytest

from site_gen.olm.sources import CatalogSourceError, catalog_family, parse_catalog_source


@pytest.mark.parametrize(("text", "name", "openshift", "family"), [
    ("community-v4.20=catalogs/x", "community-v4.20", "4.20", "community"),
    ("redhat-operators@4.19=docker://mirror:5000/redhat/redhat-operator-index:v4.19", "redhat-operators", "4.19",
     "redhat-operators"),
    ("community=catalogs/v4.18", "community", "4.18", "community"),
    ("ops_4.17=dir", "ops_4.17", "4.17", "ops"),
    ("v4.16=dir", "v4.16", "4.16", "v4.16"),   # nothing but a minor: the family is the name itself
])
def test_the_minor_and_family_come_from_the_name_or_the_source(text, name, openshift, family):
    source = parse_catalog_source(text)
    assert (source.name, source.openshift, source.family) == (name, openshift, family)


def test_a_catalog_whose_minor_cannot_be_told_is_refused_with_what_to_write():
    with pytest.raises(CatalogSourceError, match="NAME@4.20=SOURCE"):
        parse_catalog_source("community=catalogs/latest")


def test_a_suffix_inside_the_name_is_not_a_minor():
    assert catalog_family("community-v4.20-extra") == "community-v4.20-extra"
