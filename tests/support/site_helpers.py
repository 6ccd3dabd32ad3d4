"""Building the HTML site in tests and serving it over loopback HTTP under a sub-path."""

from __future__ import annotations

import functools
import html
import os
import re
import shutil
import subprocess
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable
from contextlib import contextmanager
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import orjson

from site_gen.layout import GRAPH_API_DIR, graph_path
from site_gen.model.errors import Warnings
from site_gen.olm.sources import CatalogSource
from site_gen.pipeline.site_build import BuildOptions, run_build
from site_gen.promotion.resolve import PromotionOptions
from site_gen.registry.contents_source import ContentsSource, contents_source

from conftest import EXAMPLE, REPO

EXAMPLE_CONTENTS = REPO / "example-release-contents"  # the example's release images, as image trees

SUB_PATH = "/mirror/openshift/updates/"  # the site is never served from the host root in tests
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"  # for review; not compared
SVG = "{http://www.w3.org/2000/svg}"      # ElementTree's names for dot's SVG elements
XLINK = "{http://www.w3.org/1999/xlink}"


def build_site(out: Path, cache: Path, graph_data: Path = EXAMPLE, releases: Path | None = None,
               jobs: int | None = None, changes_since: str | None = None,
               promotion: PromotionOptions | None = None, force: bool = True, warnings: Warnings | None = None,
               catalogs: list[CatalogSource] | None = None,
               release_contents: Path | ContentsSource | None = None):
    """Build with pages (``--force`` by default: tests rebuild on purpose); ``release_contents``: a
    --release-contents folder (EXAMPLE_CONTENTS: the example's)."""
    options = BuildOptions(graph_data=graph_data, releases=releases, out=out, html=True,
                           quiet=True, force=force, cache_dir=cache, jobs=jobs,
                           promotion=promotion or PromotionOptions(), changes_since=changes_since,
                           catalogs=catalogs or [],
                           release_contents=contents_source(str(release_contents))
                           if isinstance(release_contents, Path) else release_contents)
    return run_build(options, warnings if warnings is not None else Warnings())


def git(repo: Path, *args: str, date: str = "2024-05-01T00:00:00Z") -> str:
    """Run git in ``repo`` with a fixed identity and commit date; its output."""
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com", GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    result = subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True, text=True)
    return result.stdout.strip()


def example_repo(root: Path, first: Callable[[Path], None], second: Callable[[Path], None]) -> Path:
    """A git repository whose ``graph-data`` subdirectory is the example (without its releases:
    build with ``--releases EXAMPLE/releases``) edited by ``first`` and committed on May 1, 2024,
    then edited by ``second`` and committed on May 2. Returns the graph-data directory."""
    repo = root / "repo"
    data = repo / "graph-data"
    shutil.copytree(EXAMPLE, data, ignore=shutil.ignore_patterns("releases"))
    git(repo, "init", "-q", "-b", "main")
    first(data)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first", date="2024-05-01T00:00:00Z")
    second(data)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "second", date="2024-05-02T00:00:00Z")
    return data


def edit(path: Path, old: str, new: str) -> None:
    """Replace text that must be in the file."""
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def files_of(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` by relative path: to compare a published site before and after."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def served_graph(site: Path, channel: str, arch: str) -> dict:
    return orjson.loads((site / graph_path(channel, arch)).read_bytes())


def served_documents(site: Path) -> dict[tuple[str, str], dict]:
    return {(path.parent.name, path.stem): orjson.loads(path.read_bytes())
            for path in sorted((site / GRAPH_API_DIR).glob("*/*.json"))}


def page_svg(page: Path) -> ET.Element:
    """The picture inlined in a channel page (raises unless it is well-formed XML)."""
    match = re.search(r"<svg\b.*?</svg>", page.read_text("utf-8"), re.DOTALL)
    assert match, f"no inline SVG in {page}"
    return ET.fromstring(match.group(0))


def page_text(fragment: str) -> str:
    """The visible text of an HTML fragment, whitespace collapsed (inline elements add no space)."""
    inline = re.sub(r"</?(?:code|a|span|strong|em)\b[^>]*>", "", fragment)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", inline)).split())


def page_section(page: str, heading_id: str) -> str:
    """The HTML of the <section> whose heading has ``heading_id``."""
    match = re.search(rf'<section[^>]*aria-labelledby="{re.escape(heading_id)}"[^>]*>(.*?)</section>', page, re.S)
    assert match, heading_id
    return match.group(1)


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


def page_links(site: Path, page: Path) -> tuple[list[str], list[Path]]:
    """A page's relative href/src checked against the files of ``site``: (those that name no file
    of it, or a #fragment that is no id of that file; the pages it links to)."""
    root, broken, pages = site.resolve(), [], []
    name = page.resolve().relative_to(root)
    for _, _, target in parse_page(page).links:
        if re.match(r"[a-z]+:", target):  # http:, mailto:, data: ...
            continue
        path, _, fragment = target.partition("#")
        path = path.partition("?")[0]   # a query fills a form in; the file is what must exist
        linked = (page.parent / unquote(path)).resolve() if path else page
        if not linked.is_file() or root not in linked.parents:
            broken.append(f"{name} -> {target}")
        elif fragment and unquote(fragment) not in parse_page(linked).ids:
            broken.append(f"{name} -> {target} (no such id)")
        elif linked.suffix == ".html":
            pages.append(linked)
    return broken, pages


class _SubPathHandler(SimpleHTTPRequestHandler):
    """Serves the site only under SUB_PATH; anything else is a 404, like a shared host.
    A request for a site path in ``held`` is answered once that path's event is set."""

    def __init__(self, *args, held: dict[str, threading.Event], **kwargs):
        self.held = held  # before the base class handles the request
        super().__init__(*args, **kwargs)

    def do_GET(self):
        event = self.held.get(unquote(urlsplit(self.path).path)[len(SUB_PATH):])
        if event is not None:
            event.wait(timeout=60)
        super().do_GET()

    def translate_path(self, path):
        plain = urlsplit(path).path
        if not plain.startswith(SUB_PATH):
            return str(Path(self.directory) / ".no-such-file")
        return super().translate_path("/" + plain[len(SUB_PATH):])

    def log_message(self, format, *args):  # keep pytest output clean
        pass


@contextmanager
def serve(site: Path, held: dict[str, threading.Event] | None = None):
    """Serve ``site`` at http://127.0.0.1:<free port>SUB_PATH; yields that base URL.
    ``held``: site paths whose answer waits until their event is set (a slow server)."""
    handler = functools.partial(_SubPathHandler, directory=str(site), held=held or {})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{SUB_PATH}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def chromium():
    """Debian's Chromium driven by Playwright (which never downloads a browser here)."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).is_file(), "Debian's chromium is missing: ./run.sh test installs it"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


class Visit:
    """A page in a fresh browser context, recording everything that went wrong while it was open."""

    def __init__(self, browser, url: str, viewport=None, wait_until: str = "networkidle"):
        self.context = browser.new_context(viewport=viewport or DESKTOP)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.problems: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed", self._request_failed)
        self.page.on("response", lambda r: r.status >= 400 and self.problems.append(f"HTTP {r.status}: {r.url}"))
        self.page.goto(url, wait_until=wait_until)

    def _request_failed(self, request):
        # leaving a page cancels what it still loads (the favicon, say): not a fault of the site
        if request.failure != "net::ERR_ABORTED":
            self.problems.append(f"request failed: {request.url} ({request.failure})")

    def close(self):
        self.context.close()
        assert self.problems == []

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        else:
            self.context.close()


def screenshot(visit: Visit, name: str, full_page: bool | None = None) -> None:
    """SCREENSHOTS/<name>.png: the whole page for a phone's (``-phone``), else the window."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    visit.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"),
                          full_page=name.endswith("-phone") if full_page is None else full_page)


def open_cluster_form(page, base_url: str) -> None:
    """planner.html with "Plan for my cluster" open, once the page's scripts are ready."""
    page.goto(base_url + "planner.html", wait_until="load")
    page.wait_for_function("document.getElementById('planner-result').dataset.outcome === 'idle'")
    page.click("#cluster-plan summary")


def set_cluster_text(page, text: str) -> None:
    """The ClusterVersion box set as a paste sets it (the page reads it on submit): typing 300 KB
    key by key (fill) takes minutes on a loaded machine."""
    page.locator("#cluster-text").evaluate("(area, text) => { area.value = text; }", text)


def submit_cluster(page) -> None:
    """Submit "Plan for my cluster" and wait until the page shows an outcome."""
    page.click("#cluster-form button[type=submit]")
    page.wait_for_function(
        "!['loading', 'idle'].includes(document.getElementById('planner-result').dataset.outcome)")


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


class Element:
    """A parsed HTML element: tag, attributes and children (elements or text)."""

    def __init__(self, tag: str, attrs: dict):
        self.tag, self.attrs, self.children = tag, attrs, []

    def iter(self, tag: str | None = None, cls: str | None = None):
        """This element and every descendant, filtered by tag and class."""
        if (tag is None or self.tag == tag) and (cls is None or cls in (self.attrs.get("class") or "").split()):
            yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter(tag, cls)

    def find(self, tag: str | None = None, cls: str | None = None) -> Element | None:
        return next(self.iter(tag, cls), None)

    def by_id(self, element_id: str) -> Element | None:
        return next((e for e in self.iter() if e.attrs.get("id") == element_id), None)

    @property
    def text(self) -> str:
        """The text content, whitespace collapsed."""
        parts = []

        def collect(node):
            for child in node.children:
                if isinstance(child, str):
                    parts.append(child)
                else:
                    collect(child)

        collect(self)
        return " ".join("".join(parts).split())


class _TreeBuilder(HTMLParser):
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        element = Element(tag, dict(attrs))
        self.stack[-1].children.append(element)
        if tag not in self.VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(Element(tag, dict(attrs)))

    def handle_endtag(self, tag):
        for depth in range(len(self.stack) - 1, 0, -1):  # tolerate a missing end tag
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse_html(source: Path | str) -> Element:
    """The document tree of a page (a path) or of HTML text."""
    builder = _TreeBuilder()
    builder.feed(source.read_text("utf-8") if isinstance(source, Path) else source)
    return builder.root
