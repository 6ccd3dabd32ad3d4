"""``release-manifests/image-references``: the ImageStream naming every image of a payload.

The CVO refuses anything but an ``image.openshift.io/v1`` ImageStream
(cluster-version-operator ``pkg/payload/payload.go``, ``loadImageReferences``) and oc
decodes it into one (oc ``pkg/cli/admin/release/info.go``, ``readReleaseImageReferences``).
Both keep ``spec.tags`` as the list it is: oc's component versions read every entry, a
name written twice included, while anything keyed by tag name (oc's images, ours) keeps
the last entry. Annotations are held to Kubernetes' own bound on an object's annotations
(256 KiB, apimachinery ``TotalAnnotationSizeLimitB``), per tag and for the stream.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson
import yaml

from ..inputs.bounded_json import check_depth, text_too_deep
from ..inputs.bounded_yaml import MAX_DEPTH, load_bounded
from ..model.errors import InputError
from .payload_errors import ContentsError

PATH = "release-manifests/image-references"
MAX_BYTES = 16 * 1024 * 1024        # real files are ~100 KB (146 tags)
MAX_TAGS = 10_000                    # real payloads have ~200
MAX_ANNOTATION_BYTES = 256 * 1024    # Kubernetes' TotalAnnotationSizeLimitB

# Annotations on tags (oc pkg/cli/admin/release/annotations.go)
BUILD_VERSIONS = "io.openshift.build.versions"
BUILD_DISPLAY_NAMES = "io.openshift.build.version-display-names"
SOURCE_LOCATION = "io.openshift.build.source-location"
COMMIT_ID = "io.openshift.build.commit.id"
COMMIT_REF = "io.openshift.build.commit.ref"
INCONSISTENCY = "release.openshift.io/inconsistency"


@dataclass(frozen=True)
class ImageTag:
    name: str
    kind: str | None          # from.kind: "DockerImage" in every real payload
    pull_spec: str | None     # from.name
    annotations: dict[str, str]

    def annotation(self, key: str) -> str | None:
        """An annotation's value, None when absent or empty (oc prints both alike)."""
        return self.annotations.get(key) or None


@dataclass(frozen=True)
class ImageReferences:
    name: str                       # metadata.name: the release version
    annotations: dict[str, str]     # the stream's own (release.openshift.io/from-release, ...)
    entries: tuple[ImageTag, ...]   # spec.tags in file order, repeated names included

    def tags(self) -> dict[str, ImageTag]:
        """By name, in order of first appearance; a name listed twice keeps its last entry."""
        by_name: dict[str, ImageTag] = {}
        for tag in self.entries:
            by_name[tag.name] = tag
        return by_name


def _fail(message: str, line: int | None = None) -> ContentsError:
    return ContentsError(message, PATH, line)


def _decode(data: bytes) -> object:
    if len(data) > MAX_BYTES:
        raise _fail(f"{len(data):,} bytes, more than the {MAX_BYTES:,} an image-references file may have")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _fail("not UTF-8", data[:exc.start].count(b"\n") + 1) from None
    if text.lstrip().startswith("{"):  # what every payload holds; the CVO also takes YAML
        try:  # parsed first: the depth of what parsed is the text's, checked in C (check_depth)
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            value = None
        else:
            try:
                check_depth(value, PATH)
            except InputError:
                raise _fail(f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from None
            return value
        if text_too_deep(text):
            raise _fail(f"invalid JSON: nested more than {MAX_DEPTH} levels deep")
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise _fail(f"invalid JSON: {exc.msg}", exc.lineno) from None
    try:
        value, _ = load_bounded(text, PATH)
    except InputError as exc:
        raise ContentsError(exc.message, PATH, exc.line) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise _fail(f"invalid YAML: {getattr(exc, 'problem', None) or exc}",
                    mark.line + 1 if mark is not None else None) from None
    except (ValueError, TypeError, OverflowError) as exc:  # PyYAML's constructors: a timestamp of month 13
        raise _fail(f"invalid YAML: {exc}") from None
    return value


def _string_map(value: object, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise _fail(f"{where}: annotations must map strings to strings")
    size = sum(len(k.encode()) + len(v.encode()) for k, v in value.items())
    if size > MAX_ANNOTATION_BYTES:
        raise _fail(f"{where}: annotations of {size:,} bytes, more than Kubernetes allows an object "
                    f"({MAX_ANNOTATION_BYTES:,})")
    return value


def parse_image_references(data: bytes) -> ImageReferences:
    """The ImageStream in ``data``; a :class:`ContentsError` naming the file otherwise."""
    document = _decode(data)
    if not isinstance(document, dict):
        raise _fail("not an image.openshift.io/v1 ImageStream: the document is not a mapping")
    api_version, kind = document.get("apiVersion"), document.get("kind")
    if api_version != "image.openshift.io/v1" or kind != "ImageStream":
        raise _fail(f"a {kind!s} of apiVersion {api_version!s}, not an image.openshift.io/v1 ImageStream "
                    "(the cluster-version operator refuses it)")
    metadata = document.get("metadata")
    if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str) or not metadata["name"]:
        raise _fail("metadata.name (the release version) is missing")
    spec = document.get("spec") or {}
    tags = spec.get("tags") if isinstance(spec, dict) else None
    if tags is None:
        tags = []
    if not isinstance(tags, list):
        raise _fail("spec.tags is not a list")
    if len(tags) > MAX_TAGS:
        raise _fail(f"{len(tags):,} tags, more than {MAX_TAGS:,}")
    entries = []
    for position, tag in enumerate(tags):
        where = f"spec.tags[{position}]"
        if not isinstance(tag, dict) or not isinstance(tag.get("name"), str) or not tag["name"]:
            raise _fail(f"{where} has no name")
        source = tag.get("from")
        if source is not None and not (isinstance(source, dict) and isinstance(source.get("kind", ""), str)
                                       and isinstance(source.get("name", ""), str)):
            raise _fail(f"{where} ({tag['name']}): from must hold a kind and a name")
        entries.append(ImageTag(
            name=tag["name"],
            kind=source.get("kind") if source else None,
            pull_spec=source.get("name") if source else None,
            annotations=_string_map(tag.get("annotations"), f"{where} ({tag['name']})"),
        ))
    return ImageReferences(metadata["name"], _string_map(metadata.get("annotations"), "metadata"), tuple(entries))
