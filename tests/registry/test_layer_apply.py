"""site_gen/registry/layer_apply.py into memory, as the release-contents reader will use it: two
prefixes, containerd's whiteout, opaque and link rules, and the digest checked."""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import struct
import tarfile

import pytest

from site_gen.registry import layer_apply
from site_gen.registry.layer_apply import DirectoryTarget, ImageTree, LayerRefused, MemoryTarget, TreeLimits, zstd

from registry_images import entries_layer as layer

PREFIXES = [("release-manifests",), ("manifests",)]


def digest(blob: bytes) -> str:
    return "sha256:" + hashlib.sha256(blob).hexdigest()


def applied(*layers: bytes, target=None) -> ImageTree:
    tree = ImageTree(PREFIXES, target or MemoryTarget())
    for blob in layers:
        tree.apply_layer(iter([blob[i:i + 700] for i in range(0, len(blob), 700)]), digest(blob))
    return tree


BASE = layer(("usr/bin/cluster-version-operator", b"\0" * 100), ("manifests/0000_00_cvo.yaml", b"cvo"),
             ("release-manifests/image-references", b"{}"), ("release-manifests/0000_50_a.yaml", b"a"),
             ("release-manifests/old.yaml", b"old"))
TOP = layer(("release-manifests/", "dir"), ("release-manifests/0000_50_a.yaml", b"a2"),
            ("release-manifests/.wh..wh..opq", b""), ("manifests/.wh.0000_00_cvo.yaml", b""),
            ("manifests/copy.yaml", "hardlink", "release-manifests/0000_50_a.yaml"),
            ("manifests/link.yaml", "symlink", "../release-manifests/0000_50_a.yaml"),
            ("etc/ignored", b"not kept"))


def test_two_prefixes_in_memory_as_containerd_applies_them():
    tree = applied(BASE, TOP)
    assert tree.target.files == {"release-manifests/0000_50_a.yaml": b"a2", "manifests/copy.yaml": b"a2"}
    assert tree.links_under(("manifests",)) == {"manifests/link.yaml": "../release-manifests/0000_50_a.yaml"}


def test_the_same_into_a_directory(tmp_path):
    applied(BASE, TOP, target=DirectoryTarget(tmp_path / "root"))
    files = {str(path.relative_to(tmp_path / "root")): path.read_bytes()
             for path in sorted((tmp_path / "root").rglob("*")) if path.is_file()}
    assert files == {"manifests/copy.yaml": b"a2", "manifests/link.yaml": b"a2",  # the link, followed
                     "release-manifests/0000_50_a.yaml": b"a2"}
    assert not (tmp_path / "root" / "usr").exists() and not (tmp_path / "root" / "etc").exists()


def test_a_layer_that_does_not_match_its_digest_is_refused_naming_it():
    tree = ImageTree(PREFIXES, MemoryTarget())
    wrong = digest(b"another layer")
    with pytest.raises(LayerRefused, match=f"^layer {wrong} does not match its digest$"):
        tree.apply_layer(iter([BASE]), wrong)


@pytest.mark.parametrize("blob, what", [
    (b"plain bytes, neither gzip nor tar", "is neither gzip, zstd nor tar"),
    (b"\x1f\x8b\x00" + bytes(600), "is neither gzip, zstd nor tar"),  # containerd's gzip magic has the method
    (gzip.compress(b"{}" * 300, mtime=0), "is gzip-compressed, but not a tar archive"),
    (zstd.compress(b"{}" * 300), "is zstd-compressed, but not a tar archive"),
])
def test_bytes_that_are_no_tar_are_refused_as_opm_refuses_them(blob, what):
    """containerd hands whatever is not gzip or zstd to Go's archive/tar as it is, which fails
    on a first block that is no header: opm cannot unpack the image."""
    with pytest.raises(LayerRefused, match=f"^layer {digest(blob)} {what}: opm cannot unpack it"):
        applied(blob)


def test_an_empty_blob_applies_nothing_as_in_containerd():
    assert applied(BASE, b"").target.files == applied(BASE).target.files


def plain_tar(*entries: tuple) -> bytes:
    return gzip.decompress(layer(*entries))


def v7(tar: bytes) -> bytes:
    """The same archive with every header's magic wiped: the pre-POSIX format Go still reads."""
    blocks = bytearray(tar)
    for start in range(0, len(blocks), 512):
        block = blocks[start:start + 512]
        if block[257:263] == b"ustar\0":
            block[257:265] = bytes(8)
            block[148:156] = b"        "
            block[148:156] = b"%06o\0 " % sum(block)
            blocks[start:start + 512] = block
    return bytes(blocks)


@pytest.mark.parametrize("encode", [
    lambda tar: tar,
    lambda tar: zstd.compress(tar),
    lambda tar: b"".join(zstd.compress(tar[i:i + 1000]) for i in range(0, len(tar), 1000)),  # frames in a row
    lambda tar: struct.pack("<II", 0x184D2A53, 3) + b"abc" + zstd.compress(tar),  # a skippable frame first
    lambda tar: v7(tar),
], ids=["uncompressed", "zstd", "zstd-frames", "zstd-skippable", "v7"])
def test_uncompressed_zstd_and_v7_layers_read_as_the_gzip_one(encode):
    top = ("release-manifests/0000_50_a.yaml", b"a3"), ("manifests/.wh.0000_00_cvo.yaml", b"")
    assert applied(BASE, encode(plain_tar(*top))).target.files == applied(BASE, layer(*top)).target.files


def test_a_zstd_layer_that_breaks_off_is_refused():
    blob = zstd.compress(plain_tar(("manifests/a.yaml", b"a" * 5000)))[:-20]
    with pytest.raises(LayerRefused, match=f"^layer {digest(blob)} is corrupt"):
        applied(blob)


@pytest.mark.parametrize("field", [(100, 108), (108, 116), (136, 148), (329, 337)])
def test_a_header_number_go_cannot_parse_is_refused(field):
    """Go's reader parses mode, uid, gid, mtime and (above V7) the device numbers too; a field
    that is no octal number makes the header invalid, and opm fails."""
    tar = bytearray(plain_tar(("manifests/a.yaml", b"a")))
    start = next(i for i in range(0, len(tar), 512) if tar[i + 156] == ord("0"))
    block = tar[start:start + 512]
    block[field[0]:field[1]] = b"9" * (field[1] - field[0] - 1) + b"\0"
    block[148:156] = b"        "
    block[148:156] = b"%06o\0 " % sum(block)
    tar[start:start + 512] = block
    with pytest.raises(LayerRefused, match="a tar header with a number Go's archive/tar cannot read"):
        applied(bytes(tar))




def one_file(name: str, tar_format: int, pax: dict[str, str] | None = None, data: bytes = b"x") -> bytes:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.pax_headers = len(data), 0, pax or {}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tar_format) as archive:
        archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize("pax, files", [
    ({"path": "", "size": "", "mtime": "1.5", "uid": "+7"}, {"manifests/a.yaml": b"x"}),  # empty: the header's
    ({"path": "manifests/b.yaml", "linkpath": ""}, {"manifests/b.yaml": b"x"}),
])
def test_pax_records_merged_as_go_merges_them(pax, files):
    assert applied(one_file("manifests/a.yaml", tarfile.PAX_FORMAT, pax)).target.files == files


@pytest.mark.parametrize("key, value", [("uid", "abc"), ("gid", "1_0"), ("size", " 1"), ("mtime", "1.x"),
                                        ("atime", ".5"), ("ctime", str(1 << 63))])
def test_a_pax_number_go_cannot_read_is_refused(key, value):
    with pytest.raises(LayerRefused, match=f"is corrupt: a PAX {key} Go's archive/tar cannot read"):
        applied(one_file("manifests/a.yaml", tarfile.PAX_FORMAT, {key: value}))


def test_a_gnu_long_name_wins_over_a_pax_path_as_in_go():
    """Go merges PAX records, then sets the GNU long name over them."""
    long_name = "manifests/" + "g" * 120 + ".yaml"
    pax_block = one_file("manifests/a.yaml", tarfile.PAX_FORMAT, {"path": "manifests/pax.yaml"})[:1024]
    spliced = pax_block + one_file(long_name, tarfile.GNU_FORMAT)
    assert applied(spliced).target.files == {long_name: b"x"}


def test_a_zstd_bomb_stops_at_the_expansion_limit():
    """zstd is decoded in 1 MiB steps like gzip, so the same ratio stops it early."""
    header = tarfile.TarInfo("var/zeros")
    header.size = 1 << 30
    compressor = zstd.ZstdCompressor()
    bomb = compressor.compress(header.tobuf(format=tarfile.USTAR_FORMAT)) + b"".join(
        compressor.compress(bytes(1 << 20)) for _ in range(256)) + compressor.flush()
    assert len(bomb) < 100_000
    with pytest.raises(LayerRefused, match=r"expands past [0-9,]+ bytes, 100 per compressed byte"):
        applied(bomb)


def with_size_field(tar: bytes, kind: bytes, field: bytes) -> bytes:
    """``tar`` with the size field of its first header of type ``kind`` replaced (checksum redone)."""
    blocks = bytearray(tar)
    start = next(i for i in range(0, len(blocks), 512) if blocks[i + 156:i + 157] == kind)
    block = blocks[start:start + 512]
    block[124:136] = field
    block[148:156] = b"        "
    block[148:156] = b"%06o\0 " % sum(block)
    blocks[start:start + 512] = block
    return bytes(blocks)


NEGATIVE = b"\xff" * 12  # base-256 -1


def test_a_negative_size_is_refused_unless_the_header_carries_no_data():
    """Go's handleRegularFile: a negative size is an invalid header, except for the header-only
    types (links, directories, devices), whose size is taken as 0; an extension header too."""
    for kind, name in ((b"0", "manifests/a.yaml"), (b"x", "manifests/" + "p" * 120)):
        tar = with_size_field(one_file(name, tarfile.PAX_FORMAT), kind, NEGATIVE)
        with pytest.raises(LayerRefused, match="is corrupt: a negative size"):
            applied(tar)
    link = with_size_field(plain_tar(("manifests/a.yaml", b"a"), ("manifests/l.yaml", "symlink", "a.yaml")),
                           b"2", NEGATIVE)
    tree = applied(link)
    assert tree.links_under(("manifests",)) == {"manifests/l.yaml": "a.yaml"}


SIZES = (0, 1, 7, 511, 512, 513, 1023, 1024, 1025, 4096, 70_000)  # data ending in, at and past a block


def test_files_are_the_same_whether_the_layer_comes_whole_or_in_small_pieces():
    """An entry's data and padding are taken at once when both are decoded already (a whole
    blob), else piece by piece as they arrive (7-byte pieces: every padding straddles them)."""
    files = {f"release-manifests/{n:02}.yaml": bytes([65 + n]) * size for n, size in enumerate(SIZES)}
    blob = layer(*files.items(), ("etc/after", b"x" * 300), ("manifests/last.yaml", b"last"))
    expected = {**files, "manifests/last.yaml": b"last"}
    for pieces in ([blob], [blob[i:i + 7] for i in range(0, len(blob), 7)]):
        tree = ImageTree(PREFIXES, MemoryTarget())
        tree.apply_layer(iter(pieces), digest(blob))
        assert tree.target.files == expected


def test_the_expansion_limit_refuses_small_files_whole_or_in_small_pieces():
    """A layer of small files past its allowance is refused either way, and nothing is kept past it."""
    blob = layer(*((f"release-manifests/{n:03}.yaml", b"z" * 3000) for n in range(200)))
    limits = TreeLimits(expansion=2, expansion_floor=200_000)
    for pieces in ([blob], [blob[i:i + 7] for i in range(0, len(blob), 7)]):
        tree = ImageTree(PREFIXES, MemoryTarget(), limits)
        with pytest.raises(LayerRefused, match=r"expands past [0-9,]+ bytes, 2 per compressed byte plus 200,000"):
            tree.apply_layer(iter(pieces), digest(blob))
        assert 0 < len(tree.target.files) < 200


# --- the short ways (a common file header; a parent met before) give what the general path gives ---

class NothingKept(dict):
    def __setitem__(self, key, value) -> None:
        pass


class GeneralTree(ImageTree):
    """An ImageTree that never takes _entry's short way: no parent is ever known."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._plain_parents = NothingKept()


def outcome(tree_class, layers: list[bytes], limits: TreeLimits, piece: int) -> tuple:
    """What applying ``layers`` leaves: the files, the refusal, the tree (its nodes, links
    included, and the bytes and entries counted)."""
    tree = tree_class(PREFIXES, MemoryTarget(), limits)
    refusal = None
    try:
        for blob in layers:
            tree.apply_layer(iter([blob[i:i + piece] for i in range(0, len(blob), piece)]), digest(blob))
    except LayerRefused as exc:
        refusal = str(exc)
    return tree.target.files, refusal, tree.snapshot()


def general_outcome(monkeypatch, layers: list[bytes], limits: TreeLimits, piece: int) -> tuple:
    with monkeypatch.context() as patched:
        patched.setattr(layer_apply, "_COMMON_HEADER", re.compile(b"(?!)"))  # no header is common
        return outcome(GeneralTree, layers, limits, piece)


def raw_entry(name: bytes, data: bytes = b"", typeflag: bytes = b"0", magic: bytes = b"ustar\x0000",
              device: bytes = b"0000000\0", uname: bytes = b"", prefix: bytes = b"") -> bytes:
    """One tar entry written field by field (Go's archive/tar writes device numbers as octal
    zeros, Python's tarfile as NULs), its checksum the unsigned sum."""
    block = bytearray(512)
    block[0:len(name)] = name
    block[100:148] = b"0000644\0" + b"0000000\0" * 2 + b"%011o\0" % len(data) + b"00000000000\0"
    block[156:157] = typeflag
    block[257:265] = magic
    block[265:265 + len(uname)] = uname
    block[329:345] = device * 2
    block[345:345 + len(prefix)] = prefix
    block[148:156] = b"        "
    block[148:156] = b"%06o\0 " % sum(block)
    return bytes(block) + data + bytes(-len(data) % 512)


def raw_layer(*entries: bytes) -> bytes:
    return gzip.compress(b"".join(entries) + bytes(1024), mtime=0)


def with_checksum(entry: bytes, checksum: bytes) -> bytes:
    return entry[:148] + checksum + entry[156:]


PLAIN = [("release-manifests/a.yaml", b"a"), ("release-manifests/sub/b.yaml", b"b" * 600),
         ("manifests/c.yaml", b"c"), ("etc/outside", b"o")]
LOW = TreeLimits()
SHORT_WAY_CASES = {
    "plain files and one at the top": ([layer(*PLAIN, ("top.yaml", b"t"), ("release-manifests/d.yaml", b""))], LOW),
    "names cleaned": ([layer(*PLAIN, ("./release-manifests/e.yaml", b"e"), ("release-manifests//f.yaml", b"f"),
                             ("/release-manifests/g.yaml", b"g"), ("release-manifests/x/../h.yaml", b"h"),
                             ("release-manifests/./i.yaml", b"i"), ("../manifests/j.yaml", b"j"))], LOW),
    "the same file twice": ([layer(*PLAIN, ("release-manifests/a.yaml", b"a2"))], LOW),
    "a known parent becomes a link": ([layer(*PLAIN, ("release-manifests/sub", "symlink", "../manifests"),
                                             ("release-manifests/sub/k.yaml", b"k"))], LOW),
    "a known parent becomes a file": ([layer(*PLAIN, ("release-manifests/sub", b"file"),
                                             ("release-manifests/sub/k.yaml", b"k"))], LOW),
    "a known parent whited out": ([layer(*PLAIN), layer(("release-manifests/.wh.sub", b""),
                                                        ("release-manifests/sub/k.yaml", b"k"))], LOW),
    "an opaque directory": ([layer(*PLAIN), layer(("release-manifests/sub/k.yaml", b"k"),
                                                  ("release-manifests/.wh..wh..opq", b""),
                                                  ("release-manifests/sub/l.yaml", b"l"))], LOW),
    "a prefix reached through a link": ([layer(("release-manifests", "symlink", "manifests"), *PLAIN[1:])], LOW),
    "whiteouts in a known parent": ([layer(*PLAIN), layer(("manifests/m.yaml", b"m"), ("manifests/.wh.c.yaml", b""),
                                                          ("manifests/.wh.m.yaml", b""))], LOW),
    "an invalid whiteout": ([layer(*PLAIN, ("release-manifests/.wh..", b""))], LOW),
    "a hard link and a symlink": ([layer(*PLAIN, ("manifests/n.yaml", "hardlink", "release-manifests/a.yaml"),
                                         ("manifests/o.yaml", "symlink", "n.yaml"), ("manifests/p.yaml", b"p"))],
                                  LOW),
    "a name too long for the limit": ([layer(*PLAIN, ("manifests/longer-name-x.yaml", b"q"))],
                                      TreeLimits(name_bytes=17)),
    "a name too long in bytes, not in characters": ([layer(*PLAIN, ("manifests/" + "€" * 7, b"q"))],
                                                    TreeLimits(name_bytes=17)),
    "a path too long in bytes, not in characters": ([layer(*PLAIN, ("manifests/" + "é" * 10, b"q"))],
                                                    TreeLimits(path_bytes=28)),
    "a path too long for the limit": ([layer(*PLAIN, ("manifests/longer-name-here.yaml", b"q"))],
                                      TreeLimits(path_bytes=28)),
    "too deep for the limit": ([layer(("release-manifests/a.yaml", b"a"), ("release-manifests/sub/b.yaml", b"b"))],
                               TreeLimits(depth=2)),
    "names not ASCII and long": ([layer(*PLAIN, ("release-manifests/é.yaml", b"r"),
                                        ("release-manifests/" + "s" * 200 + ".yaml", b"s"))], LOW),
    "Go's headers": ([raw_layer(raw_entry(b"release-manifests/a.yaml", b"a"),
                                raw_entry(b"release-manifests/b.yaml", b"b" * 513))], LOW),
    "headers the short way leaves": ([raw_layer(
        raw_entry(b"release-manifests/a.yaml", b"a", device=bytes(8)),
        raw_entry(b"release-manifests/b.yaml", b"b", typeflag=b"\0"),
        raw_entry(b"release-manifests/c.yaml/", b"", typeflag=b"\0"),
        raw_entry(b"release-manifests/d.yaml", b"d", magic=b"ustar  \0"),
        raw_entry(b"e.yaml", b"e", prefix=b"release-manifests"),
        raw_entry(b"release-manifests/f.yaml", b"f", uname=b"\xe9t\xe9"),
        raw_entry(b"release-manifests/g.yaml", b"g", device=b"0000001\0"),
        raw_entry(b"release-manifests/h.yaml", b"h", magic=bytes(8)))], LOW),
    "a checksum that does not match": ([raw_layer(raw_entry(b"manifests/a.yaml", b"a"), with_checksum(
        raw_entry(b"manifests/b.yaml", b"b"), b"000001\0 "))], LOW),
    "a first checksum that does not match": ([raw_layer(with_checksum(raw_entry(b"manifests/a.yaml", b"a"),
                                                                      b"000001\0 "))], LOW),
    "a file past the file limit": ([layer(*PLAIN, ("release-manifests/big.yaml", b"z" * 3000))],
                                   TreeLimits(file_bytes=2000)),
    "past the expansion limit": ([layer(*((f"release-manifests/{n:03}.yaml", b"z" * 3000) for n in range(100)))],
                                 TreeLimits(expansion=2, expansion_floor=100_000)),
    "past the decoded bytes of the image": ([layer(*PLAIN), layer(*PLAIN)], TreeLimits(expanded_total=9000)),
}


@pytest.mark.parametrize("piece", [7, 1 << 20], ids=["7-byte pieces", "whole"])
@pytest.mark.parametrize("case", SHORT_WAY_CASES)
def test_the_short_ways_give_what_the_general_path_gives(monkeypatch, case, piece):
    """A regular file's common header and a name whose parent is known take short ways; every
    other header and name takes the general path, and the short ways end as it ends: the same
    files, links and refusal."""
    layers, limits = SHORT_WAY_CASES[case]
    short = outcome(ImageTree, layers, limits, piece)
    assert short == general_outcome(monkeypatch, layers, limits, piece)
    assert short[0] or short[1]  # each case keeps files or is refused: it shows something


def test_the_common_header_is_go_s_and_python_s():
    """The short way is taken for what the writers of real layers write: Go's archive/tar (device
    numbers in octal) and Python's tarfile (NULs), USTAR and PAX."""
    for tar in (raw_entry(b"manifests/a.yaml", b"a"), plain_tar(("manifests/a.yaml", b"a")),
                one_file("manifests/a.yaml", tarfile.USTAR_FORMAT)):
        assert layer_apply._COMMON_HEADER.fullmatch(tar, 100, 346)
    assert not layer_apply._COMMON_HEADER.fullmatch(one_file("manifests/a.yaml", tarfile.GNU_FORMAT), 100, 346)



def tar_length(blob: bytes) -> int:
    """How far Go's reader reads a gzip'd tar: to the end of its last entry's data, then the
    two zero blocks that end the archive."""
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(blob))) as archive:
        ends = [member.offset_data + member.size + -member.size % 512 for member in archive]
    return max(ends) + 1024


@pytest.mark.parametrize("case", ["plain files and one at the top", "names cleaned", "the same file twice",
                                  "a known parent becomes a link", "a known parent whited out",
                                  "an opaque directory", "whiteouts in a known parent", "a hard link and a symlink",
                                  "names not ASCII and long", "Go's headers", "headers the short way leaves"])
@pytest.mark.parametrize("piece", [7, 1 << 20], ids=["7-byte pieces", "whole"])
def test_every_byte_up_to_the_end_of_the_archive_is_counted(case, piece):
    """Data and padding taken at once are counted as taken one after the other: the decoded
    bytes counted are the archive's, up to its end."""
    layers, limits = SHORT_WAY_CASES[case]
    files, refusal, tree = outcome(ImageTree, layers, limits, piece)
    assert refusal is None and files
    assert tree["expanded"] == sum(tar_length(blob) for blob in layers)
