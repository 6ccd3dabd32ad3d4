"""Image pull specs as the distribution/reference grammar accepts them (opm checks bundle images so)."""

from __future__ import annotations

import re

_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = rf"(?:{_COMPONENT}(?:\.{_COMPONENT})*|\[[a-fA-F0-9:]+\])"
_DOMAIN = rf"{_HOST}(?::[0-9]+)?"
_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*"
_NAME = rf"(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE = re.compile(rf"({_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?", re.ASCII)
_NAME_TOTAL_LENGTH_MAX = 255


def image_error(image: str) -> str | None:
    """Why ``image`` is not a valid pull spec, or None."""
    match = _REFERENCE.fullmatch(image)
    if match is None:
        if image.lower() != image and _REFERENCE.fullmatch(image.lower()):
            return "invalid reference format: repository name must be lowercase"
        return "invalid reference format"
    if len(match.group(1)) > _NAME_TOTAL_LENGTH_MAX:
        return f"repository name must not be more than {_NAME_TOTAL_LENGTH_MAX} characters"
    digest = match.group(3)
    if digest and digest.startswith("sha256:") and len(digest) != len("sha256:") + 64:
        return "invalid checksum digest length"
    return None
