"""image-references as JSON: parsed first, its depth checked after, the same refusals as before."""

from __future__ import annotations

import pytest

from site_gen.contents.image_references import parse_image_references
from site_gen.contents.payload_errors import ContentsError


def _nested(levels: int, closed: bool = True) -> bytes:
    return b'{"a":' * levels + b"1" + (b"}" * levels if closed else b"")


@pytest.mark.parametrize("data", [
    _nested(129),               # valid JSON orjson parses: caught on the parsed value
    _nested(2000),              # past orjson's own limit: caught on the text
    _nested(200, closed=False),  # not JSON at all: the depth is what is said, as before
])
def test_json_image_references_nested_too_deep_are_refused(data):
    with pytest.raises(ContentsError) as error:
        parse_image_references(data)
    assert str(error.value).startswith("release-manifests/image-references: ")
    assert "invalid JSON: nested more than 128 levels deep" in str(error.value)


def test_json_image_references_at_the_depth_bound_are_read_on():
    with pytest.raises(ContentsError) as error:  # 128 levels are allowed: refused for what it is
        parse_image_references(_nested(128))
    assert "not an image.openshift.io/v1 ImageStream" in str(error.value)
