"""The cluster-version operator's own manifests are Go ``text/template`` files.

The CVO renders each file of its ``manifests/`` directory before parsing it
(cluster-version-operator ``pkg/payload/render.go``, ``renderManifest``) with a
``manifestRenderConfig``: ``.ReleaseImage`` (the release image's pull spec),
``.ClusterProfile`` and ``.Images`` (image-references' tag name -> pull spec, for tags
``from`` a ``DockerImage``). A file that fails to parse or execute as a template is skipped
with a warning (``pkg/payload/payload.go``, ``LoadUpdate``: an older CVO loading a newer
payload), not an error.

The real templates (every version of the CVO's ``install/`` directory) use only these
actions, which is what this renderer takes: ``{{.Field}}``, ``{{index .Images "name"}}``,
a quoted or raw string literal (``{{ "{{ $labels.name }}" }}``, how an alert template
escapes its own braces), comments ``{{/* ... */}}``, and the trim markers ``{{- `` and
`` -}}``. Anything else raises :class:`UnsupportedTemplate`; an unknown field or a
malformed action raises :class:`TemplateError`, as Go's parse or execution would.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

FIELDS = ("ReleaseImage", "ClusterProfile", "Images")
_SPACE = " \t\r\n"  # Go's template lexer: isSpace
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\", '"': '"', "'": "'"}
_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_RAW = re.compile(r"`[^`]*`")
_WORD = re.compile(r"[^\s\"`]+")


class TemplateError(ValueError):
    """What Go's template parse or execution reports for this file."""


class UnsupportedTemplate(TemplateError):
    """An action Go would run but this renderer does not implement (no real payload has one)."""


def _unquote(literal: str) -> str:
    """strconv.Unquote of a Go interpreted string literal."""
    body, out, at = literal[1:-1], [], 0
    while at < len(body):
        char = body[at]
        if char != "\\":
            out.append(char)
            at += 1
            continue
        code = body[at + 1:at + 2]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            at += 2
            continue
        width = {"x": 2, "u": 4, "U": 8}.get(code)
        if width is not None:
            digits = body[at + 2:at + 2 + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise TemplateError(f"invalid syntax in string {literal}")
            out.append(chr(int(digits, 16)))
            at += 2 + width
            continue
        digits = body[at + 1:at + 4]
        if len(digits) == 3 and all(c in "01234567" for c in digits) and int(digits, 8) < 256:
            out.append(chr(int(digits, 8)))
            at += 4
            continue
        raise TemplateError(f"invalid syntax in string {literal}")
    return "".join(out)


def _tokens(action: str) -> list[str]:
    tokens, at = [], 0
    while at < len(action):
        if action[at] in _SPACE:
            at += 1
            continue
        for pattern in (_QUOTED, _RAW, _WORD):
            match = pattern.match(action, at)
            if match:
                tokens.append(match.group())
                at = match.end()
                break
        else:
            raise TemplateError(f"unterminated quoted string in action {{{{{action}}}}}")
    return tokens


def _literal(token: str) -> str | None:
    if token.startswith('"'):
        return _unquote(token)
    if token.startswith("`"):
        return token[1:-1]
    return None


def _execute(action: str, values: Mapping[str, object]) -> str:
    tokens = _tokens(action)
    if not tokens:
        raise TemplateError("missing value for command")
    if len(tokens) == 1:
        token = tokens[0]
        literal = _literal(token)
        if literal is not None:
            return literal
        if token.startswith(".") and len(token) > 1 and "." not in token[1:] and token[1:].isidentifier():
            name = token[1:]
            if name not in values:
                raise TemplateError(f"can't evaluate field {name} in type payload.manifestRenderConfig")
            value = values[name]
            if isinstance(value, Mapping):
                return "map[" + " ".join(f"{k}:{v}" for k, v in sorted(value.items())) + "]"
            return str(value)
    if len(tokens) == 3 and tokens[0] == "index" and tokens[1] == ".Images":
        key = _literal(tokens[2])
        if key is not None:
            images = values["Images"]
            assert isinstance(images, Mapping)
            return str(images.get(key, ""))  # a missing map key is the zero value, not an error
    raise UnsupportedTemplate(f"the template action {{{{{action}}}}} is not one this renderer supports")


def _action_end(text: str, start: int) -> int:
    """Where the ``}}`` closing the action opened before ``start`` begins (quotes skipped)."""
    at = start
    while True:
        close = text.find("}}", at)
        quote = min((q for q in (text.find('"', at), text.find("`", at)) if q >= 0), default=-1)
        if close < 0:
            raise TemplateError("unclosed action")
        if quote < 0 or quote > close:
            return close
        pattern = _QUOTED if text[quote] == '"' else _RAW
        match = pattern.match(text, quote)
        if not match:
            raise TemplateError("unterminated quoted string")
        at = match.end()


def render(text: str, release_image: str, cluster_profile: str, images: Mapping[str, str]) -> str:
    """``text`` rendered as the CVO renders its manifests."""
    values: dict[str, object] = {"ReleaseImage": release_image, "ClusterProfile": cluster_profile, "Images": images}
    out: list[str] = []
    at = 0
    while True:
        opening = text.find("{{", at)
        if opening < 0:
            out.append(text[at:])
            return "".join(out)
        before = text[at:opening]
        inner = opening + 2
        if text[inner:inner + 1] == "-" and text[inner + 1:inner + 2] in tuple(_SPACE):
            before = before.rstrip(_SPACE)
            inner += 2
        out.append(before)
        if text.startswith("/*", inner):
            close = text.find("*/", inner + 2)
            if close < 0:
                raise TemplateError("unclosed comment")
            after = close + 2
            if text[after:after + 1] in tuple(_SPACE) and text.startswith("-}}", after + 1):
                at = len(text) - len(text[after + 4:].lstrip(_SPACE))
            elif text.startswith("}}", after):
                at = after + 2
            else:
                raise TemplateError("comment ends before closing delimiter")
            continue
        close = _action_end(text, inner)
        action = text[inner:close]
        trim_right = len(action) >= 2 and action[-1] == "-" and action[-2] in _SPACE
        if trim_right:
            action = action[:-2]
        out.append(_execute(action, values))
        at = close + 2
        if trim_right:
            at = len(text) - len(text[at:].lstrip(_SPACE))
