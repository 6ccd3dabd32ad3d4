"""Building the HTML site in tests and serving it over loopback HTTP under a sub-path."""

from __future__ import annotations

import functools
import threading
from contextlib import contextmanager
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import orjson

from conftest import EXAMPLE
from site_gen.commands.build import BuildOptions, run_build
from site_gen.errors import Warnings

GRAPH_DIR = "api/upgrades_info/v1/graph"
SUB_PATH = "/mirror/openshift/updates/"  # the site is never served from the host root in tests


def build_site(out: Path, cache: Path, graph_data: Path = EXAMPLE, releases: Path | None = None,
               jobs: int | None = None):
    """Build with pages (``--force``: tests rebuild on purpose)."""
    options = BuildOptions(graph_data=graph_data, releases=releases, out=out, html=True,
                           quiet=True, force=True, cache_dir=cache, jobs=jobs)
    return run_build(options, Warnings())


def served_graph(site: Path, channel: str, arch: str) -> dict:
    return orjson.loads((site / GRAPH_DIR / channel / f"{arch}.json").read_bytes())


def served_documents(site: Path) -> dict[tuple[str, str], dict]:
    return {(path.parent.name, path.stem): orjson.loads(path.read_bytes())
            for path in sorted((site / GRAPH_DIR).glob("*/*.json"))}


class LinkCollector(HTMLParser):
    """Every href/src of a page, plus its ids, <title>, <h1> count and script/style sources."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str, str]] = []   # (tag, attribute, value)
        self.ids: set[str] = set()
        self.title = ""
        self.h1 = 0
        self.lang = None
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "html":
            self.lang = attributes.get("lang")
        if tag == "h1":
            self.h1 += 1
        if tag == "title" and not self.title:  # the document's, not an SVG node's <title>
            self._in_title = True
        if "id" in attributes:
            self.ids.add(attributes["id"])
        for name in ("href", "src", "xlink:href", "action"):
            if attributes.get(name) is not None:
                self.links.append((tag, name, attributes[name]))

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data


def parse_page(path: Path) -> LinkCollector:
    collector = LinkCollector()
    collector.feed(path.read_text("utf-8"))
    return collector


class _SubPathHandler(SimpleHTTPRequestHandler):
    """Serves the site only under SUB_PATH; anything else is a 404, like a shared host."""

    def translate_path(self, path):
        plain = urlsplit(path).path
        if not plain.startswith(SUB_PATH):
            return str(Path(self.directory) / ".no-such-file")
        return super().translate_path("/" + plain[len(SUB_PATH):])

    def log_message(self, format, *args):  # keep pytest output clean
        pass


@contextmanager
def serve(site: Path):
    """Serve ``site`` at http://127.0.0.1:<free port>SUB_PATH; yields that base URL."""
    handler = functools.partial(_SubPathHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{SUB_PATH}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def site_path(base_url: str, url: str) -> str:
    """The site-relative path of an absolute URL under the served base."""
    return unquote(urlsplit(url).path)[len(urlsplit(base_url).path):]


class TableParser(HTMLParser):
    """Rows of the tables with a given class: each row a list of (tag, text, [list item texts])."""

    def __init__(self, table_class: str):
        super().__init__(convert_charrefs=True)
        self.table_class = table_class
        self.rows: list[list[tuple[str, str, list[str]]]] = []
        self._depth = 0          # >0 while inside a wanted table
        self._cell = None        # [tag, text parts, items]
        self._item = None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and (self._depth or self.table_class in (dict(attrs).get("class") or "").split()):
            self._depth += 1
        if not self._depth:
            return
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th") and self.rows:
            self._cell = [tag, [], []]
        elif tag == "li" and self._cell is not None:
            self._item = []

    def handle_endtag(self, tag):
        if not self._depth:
            return
        if tag == "table":
            self._depth -= 1
        elif tag == "li" and self._item is not None:
            self._cell[2].append(" ".join("".join(self._item).split()))
            self._item = None
        elif tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append((self._cell[0], " ".join("".join(self._cell[1]).split()), self._cell[2]))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1].append(data)
        if self._item is not None:
            self._item.append(data)


def table_rows(path: Path, table_class: str) -> list[list[tuple[str, str, list[str]]]]:
    """Body rows (rows with at least one <td>) of the tables with ``table_class``."""
    parser = TableParser(table_class)
    parser.feed(path.read_text("utf-8"))
    return [row for row in parser.rows if any(tag == "td" for tag, _, _ in row)]
