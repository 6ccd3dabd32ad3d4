"""Web-server configuration written into the site, under ``deploy/``.

``deploy/nginx/site-gen.conf`` turns any nginx ``server`` into a drop-in update
service for the site (the policy engine's query endpoints over the static graph
files); ``deploy/nginx/nginx.conf`` is a complete server around it. Both are
rendered from the constants of ``site_gen.server.policy_http`` so nginx and
``site-gen serve`` answer alike. Nothing in them depends on where the site will
live: the site's URL path is matched by the location and its directory comes from
nginx's ``root``, so the output stays the same wherever it is built.
"""

from __future__ import annotations

import re

import orjson
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from ..layout import GRAPH_API_DIR, NGINX_DIR
from ..resources import DEPLOY_TEMPLATE_DIR
from ..server import policy_http as http
from ..server.static_files import CONTENT_TYPES, DEFAULT_TYPE, TEXT_TYPES

DEFAULT_LISTEN = "8080"
_VALUE = "@site-gen-value@"  # stands for the nginx variable holding the request's value
_MEDIA_KEYS = {http.JSON: "json", http.VND_JSON: "vnd"}  # named-location suffixes
# What nginx's quoted strings unescape (the backslash first, so it is not doubled again).
_NGINX_ESCAPES = (("\\", "\\\\"), ("'", "\\'"), ("\n", "\\n"), ("\t", "\\t"), ("\r", "\\r"))


def _nginx_string(text: str) -> str:
    """``text`` as a single-quoted nginx string, which nginx unquotes back to ``text``."""
    for char, escaped in _NGINX_ESCAPES:
        text = text.replace(char, escaped)
    return f"'{text}'"


def _nginx_json(kind: str, value: str, variable: str | None = None) -> str:
    """The JSON error body ``{"kind", "value"}`` as an nginx string.

    ``$`` is written as the JSON escape ``\\u0024``: nginx would read it as a variable,
    and the body decodes to the same text. ``_VALUE`` in ``value`` becomes ``variable``."""
    quoted = _nginx_string(orjson.dumps({"kind": kind, "value": value}).decode().replace("$", "\\u0024"))
    return quoted if variable is None else quoted.replace(_VALUE, "${" + variable + "}")


def _nginx_regex(pattern: str) -> str:
    """A double-quoted nginx string that nginx unquotes back to ``pattern``."""
    escaped = pattern.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _accept_pattern(value: str) -> str:
    """A regex for the Accept header ``value`` with any spaces and tabs around it."""
    return _nginx_regex(f"^[ \\t]*{re.escape(value)}[ \\t]*$")


def _encoded_key(name: str) -> str:
    """A regex for the query key ``name`` in any percent-encoding: each character as
    itself or as %XX with either case of hex digit, as the engine decodes keys."""
    def one(char: str) -> str:
        code = f"{ord(char):02x}"
        high, low = code[0], code[1]
        low = f"[{low}{low.upper()}]" if low.isalpha() else low
        return f"(?:{re.escape(char)}|%{high}{low})"
    return "".join(one(char) for char in name)


def _parameter(name: str, default: str | None) -> dict[str, str | None]:
    variable = f"site_gen_{name}"
    shown = http.mismatch_message(name, _VALUE)
    return {
        "name": name,
        "key": _encoded_key(name),
        "variable": variable,
        "default": default,
        "pattern": _nginx_regex(http.PATTERNS[name].pattern),
        "too_long": _nginx_json("invalid_params", http.too_long_message(name)),
        # nginx cannot JSON-escape, so a value with quotes, backslashes, control or
        # non-ASCII bytes is not repeated back in the message.
        "unshown": _nginx_json("invalid_params", shown.replace(f" '{_VALUE}'", "")),
        "mismatch": _nginx_json("invalid_params", shown, variable),
        "dots": _nginx_json("invalid_params", http.dots_message(name, _VALUE), variable)
        if http.PATTERNS[name].fullmatch(".") else None,  # a pattern without dots needs no check
    }


def _environment() -> Environment:
    return Environment(loader=FileSystemLoader(str(DEPLOY_TEMPLATE_DIR)), undefined=StrictUndefined,
                       keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                       autoescape=False)


def render_nginx_snippet() -> str:
    return _environment().get_template("nginx/site-gen.conf.j2").render(
        api_dir="/".join(http.API_DIR),
        graph_api_dir=GRAPH_API_DIR,
        json=http.JSON,
        media_types={key: media for media, key in _MEDIA_KEYS.items()},
        accept_rules=[(_accept_pattern(value), _MEDIA_KEYS[media]) for value, media in http.ACCEPTED.items()],
        no_accept=_MEDIA_KEYS[http.VND_JSON],
        invalid_accept=_nginx_json("invalid_content_type", http.INVALID_ACCEPT),
        missing_channel=_nginx_json("missing_params", http.MISSING_CHANNEL),
        parameters=[_parameter("channel", None), _parameter("arch", http.DEFAULT_ARCH)],
        max_length=http.MAX_VALUE_LENGTH,
        empty_graph=_nginx_string(http.EMPTY_GRAPH_BODY.decode()),
        endpoint_methods=http.ENDPOINT_METHODS,
        cors_methods=http.CORS_METHODS,
        max_age=http.PREFLIGHT_MAX_AGE,
        endpoint_vary=http.ENDPOINT_VARY,
        file_vary=http.API_FILE_VARY,
        cache_control=http.CACHE_CONTROL,
        text=http.TEXT,
        not_allowed=_nginx_string(http.NOT_ALLOWED_BODY.decode()),
    )


def render_nginx_conf(listen: str = DEFAULT_LISTEN) -> str:
    by_type: dict[str, list[str]] = {}
    for extension, media in CONTENT_TYPES.items():
        by_type.setdefault(media, []).append(extension)
    text_types = [media for media in TEXT_TYPES if media != "text/html"]  # nginx always includes text/html
    return _environment().get_template("nginx/nginx.conf.j2").render(
        listen=listen,
        types=sorted(by_type.items()),
        default_type=DEFAULT_TYPE,
        charset_types=" ".join(text_types),
    )


def deploy_files() -> dict[str, str]:
    """Site-relative path -> text of the server configuration files every site carries."""
    return {f"{NGINX_DIR}/site-gen.conf": render_nginx_snippet(), f"{NGINX_DIR}/nginx.conf": render_nginx_conf()}

