"""``site-gen serve``: the built site over HTTP, graph queries answered like the update service."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..layout import GRAPH_INDEX, OLM_DIR
from ..model.errors import InputError, Warnings
from .arguments import add_quiet_argument

EPILOG = """\
examples:
  site-gen serve                                   # _site/ on http://127.0.0.1:8080/
  site-gen serve public/ --host 0.0.0.0 --port 80  # a quick mirror in a disconnected network

Besides every file of the site, it answers
  GET /api/upgrades_info/v1/graph?channel=C&arch=A   (and /api/upgrades_info/graph)
as the policy engine does: default arch amd64, 400 for a missing or invalid channel or
arch, 406 for an Accept it cannot satisfy, the empty graph for an unknown channel or
arch, CORS for browsers. Graphs go out precompressed (the build's .json.gz) to clients
that accept gzip, with ETags (If-None-Match gives 304) and Cache-Control, as from nginx.
It runs on one event loop: slow or stalled clients cannot hold it up. For many clusters or
a long-lived service, put the site behind nginx with the generated deploy/nginx/
configuration instead.
"""


def port_number(text: str) -> int:
    """A TCP port for argparse: 1 to 65535, or 0 for any free one."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: use 1 to 65535, or 0 for any free port")
    return port


def add_parser(sub) -> None:
    serve = sub.add_parser("serve", help="serve a built site, answering graph queries like the update service",
                           epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                           description="Serve a built site over HTTP until interrupted (Ctrl-C).")
    serve.add_argument("site", nargs="?", type=Path, default=Path("_site"), metavar="DIR",
                       help="the built site (default: _site)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default: 127.0.0.1; 0.0.0.0 or :: for every interface)")
    serve.add_argument("--port", type=port_number, default=8080, help="port (default: 8080; 0 picks a free one)")
    add_quiet_argument(serve, "no access log")


def looks_foreign(site: Path) -> bool:
    """Neither graphs nor operator catalogs (an operators-only site has no graph index)."""
    return not (site / GRAPH_INDEX).is_file() and not (site / OLM_DIR).is_dir()


def run(args, warnings: Warnings) -> int:
    # imported here: every command's parser is built on each run, this module's imports with it
    from ..server.httpd import SiteServer
    if not args.site.is_dir():
        raise InputError("no site here: build one first (site-gen build --out DIR)", args.site)
    if looks_foreign(args.site):
        warnings.add(f"no {GRAPH_INDEX}: not a site-gen site? every graph query "
                     "will get the empty graph", args.site)
    try:
        server = SiteServer((args.host, args.port), args.site, quiet=args.quiet)
    except OSError as exc:
        print(f"site-gen serve: error: cannot listen on {args.host} port {args.port}: {exc.strerror}",
              file=sys.stderr)
        return 1
    host, port = server.server_address[:2]
    assert isinstance(host, str)  # an IP socket's address
    base = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    print(f"serving {args.site} at {base}/ (graph queries: {base}/api/upgrades_info/v1/graph?channel=...); "
          "Ctrl-C stops", file=sys.stderr, flush=True)
    with server:
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("stopped", file=sys.stderr)
    return 0
