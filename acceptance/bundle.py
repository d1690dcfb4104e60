"""Read a bundle (tar.gz, tar or zip of logs, or one log compressed alone) into memory, safely (pure: no
Django).

Nothing is written to disk, so a member name cannot escape a directory; names are still normalised and a
member whose path is absolute or climbs out (`..`) is refused by name. Bounded: the number of members,
each member's size, the total unpacked size, and the ratio of unpacked to packed bytes (a small archive
that expands enormously is refused before it is read). Links, devices and nested archives are listed as
skipped with the reason (a `Msg`: English, with its message id for a page in another language).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import posixpath
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from hardware.messages import Msg, _

MAX_MEMBERS = 2000
MAX_TOTAL_BYTES = 256 * 1024 * 1024
MAX_RATIO = 200  # unpacked bytes per packed byte; text logs compress 5-20x
ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".zip", ".gz", ".xz", ".bz2", ".zst", ".7z")
IGNORED_PARTS = ("__MACOSX",)


class BundleError(ValueError):
    """The bundle as a whole cannot be read (not an archive, or over a limit): the message says which."""


@dataclass(frozen=True)
class Member:
    name: str
    data: bytes


@dataclass
class Bundle:
    members: list[Member] = field(default_factory=list)
    skipped: list[tuple[str, Msg]] = field(default_factory=list)  # (name, why)


@dataclass(frozen=True)
class Limits:
    max_members: int = MAX_MEMBERS
    max_member_bytes: int = 20 * 1024 * 1024
    max_total_bytes: int = MAX_TOTAL_BYTES
    max_ratio: int = MAX_RATIO


def _mib(n: int) -> str:
    return f"{n / 1024 / 1024:.0f} MiB"


def clean_name(raw: str) -> str | None:
    """The member path normalised (forward slashes, no `./`), or None when it is absolute or climbs out."""
    name = raw.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return None
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return posixpath.join(*parts)


def _ignored(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base.startswith("._") or any(part in IGNORED_PARTS for part in name.split("/"))


class _Reader:
    """Applies the limits while the members are read, in archive order."""

    def __init__(self, packed_size: int, limits: Limits) -> None:
        self.limits = limits
        self.budget = min(limits.max_total_bytes, max(packed_size, 1) * limits.max_ratio)
        self.total = 0
        self.count = 0
        self.bundle = Bundle()

    def admit(self, raw_name: str, size: int) -> str | None:
        """The clean name when the member may be read, None when it is skipped (reason recorded)."""
        self.count += 1
        if self.count > self.limits.max_members:
            raise BundleError(
                _("more than %(count)s files; send the results folder only.", count=self.limits.max_members)
            )
        name = clean_name(raw_name)
        if name is None:
            self.bundle.skipped.append((raw_name[:255], _("unsafe path (absolute or '..'): not read")))
            return None
        if _ignored(name):
            return None
        if name.lower().endswith(ARCHIVE_SUFFIXES):
            self.bundle.skipped.append((name, _("an archive inside the bundle: unpack it into the folder")))
            return None
        if size > self.limits.max_member_bytes:
            limit = _mib(self.limits.max_member_bytes)
            why = _("%(size)s is above the %(limit)s limit per file", size=_mib(size), limit=limit)
            self.bundle.skipped.append((name, why))
            return None
        if self.total + size > self.budget:
            raise BundleError(
                _(
                    "unpacks to more than %(size)s (limits: %(total)s in all, %(ratio)sx the packed size).",
                    size=_mib(self.budget),
                    total=_mib(self.limits.max_total_bytes),
                    ratio=self.limits.max_ratio,
                )
            )
        return name

    def add(self, name: str, data: bytes) -> None:
        self.total += len(data)
        if self.total > self.budget:  # a header that understated the size
            raise BundleError(_("unpacks to more than %(size)s.", size=_mib(self.budget)))
        self.bundle.members.append(Member(name, data))


def _tar_members(data: bytes, reader: _Reader) -> None:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
        for info in _iter_tar(archive):
            if info.isdir():
                continue
            if not info.isfile():
                reader.bundle.skipped.append((info.name[:255], _("a link or device, not a file: not read")))
                continue
            name = reader.admit(info.name, info.size)
            if name is None:
                continue
            handle = archive.extractfile(info)
            if handle is not None:
                reader.add(name, handle.read(reader.limits.max_member_bytes + 1))


def _iter_tar(archive: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    while True:
        info = archive.next()
        if info is None:
            return
        yield info


def _zip_members(data: bytes, reader: _Reader) -> None:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            name = reader.admit(info.filename, info.file_size)
            if name is None:
                continue
            with archive.open(info) as handle:
                # Never trust the stated size: read at most one byte past the limit.
                content = handle.read(reader.limits.max_member_bytes + 1)
            if len(content) > reader.limits.max_member_bytes:
                reader.bundle.skipped.append((name, _("larger than its stated size: not read")))
                continue
            reader.add(name, content)


# One log compressed alone (`gzip nccl.log`, `xz`, `bzip2`): its magic bytes and a reader of its stream. The
# same bytes as three of benchmarks.services.COMPRESSED_MAGIC, written again because this module is pure and
# may import only `hardware` (tests/test_architecture.py).
SINGLE_FILE_CODECS: tuple[tuple[bytes, Callable[[io.BytesIO], io.BufferedIOBase]], ...] = (
    (b"\x1f\x8b", lambda raw: gzip.GzipFile(fileobj=raw)),
    (b"\xfd7zXZ\x00", lzma.LZMAFile),
    (b"BZh", bz2.BZ2File),
)


def _single_file(data: bytes, reader: _Reader) -> bool:
    """Read `data` as one compressed log (SINGLE_FILE_CODECS), at most one byte past the per-file limit;
    False when it is not one. Its name is the one gzip keeps in its header, else `log.txt`."""
    codec = next((opener for magic, opener in SINGLE_FILE_CODECS if data.startswith(magic)), None)
    if codec is None:
        return False
    with codec(io.BytesIO(data)) as handle:
        content = handle.read(reader.limits.max_member_bytes + 1)
    if content[257:262] == b"ustar":  # a tar archive the tar reader could not read: not a log
        return False
    name = reader.admit(_gzip_name(data) or "log.txt", len(content))
    if name is None:
        raise BundleError(
            _(
                "the compressed file unpacks to more than %(limit)s, the limit per file.",
                limit=_mib(reader.limits.max_member_bytes),
            )
        )
    reader.add(name, content)
    return True


def _gzip_name(data: bytes) -> str | None:
    """The original file name a gzip header holds (FNAME, RFC 1952 section 2.3), when it holds one."""
    if not data.startswith(b"\x1f\x8b") or len(data) < 10 or not data[3] & 0x08:
        return None
    at = 10
    if data[3] & 0x04:  # FEXTRA: two bytes of length, then the field
        at += 2 + int.from_bytes(data[10:12], "little")
    end = data.find(b"\x00", at, at + 256)
    if end < 0:
        return None
    raw = data[at:end].decode("latin-1")
    name = clean_name(raw.rsplit("/", 1)[-1])
    return name if name and not name.lower().endswith(ARCHIVE_SUFFIXES) else None


def read_bundle(data: bytes, limits: Limits | None = None) -> Bundle:
    """Every file of a tar(.gz/.bz2/.xz) or zip archive, or the one log of a gzip/xz/bzip2 file, within the
    limits; BundleError otherwise."""
    limits = limits or Limits()
    if not data:
        raise BundleError(_("the file is empty."))
    reader = _Reader(len(data), limits)
    try:
        if zipfile.is_zipfile(io.BytesIO(data)):
            _zip_members(data, reader)
        else:
            try:
                _tar_members(data, reader)
            except tarfile.ReadError:
                reader = _Reader(len(data), limits)
                if not _single_file(data, reader):
                    raise
    except BundleError:
        raise
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, lzma.LZMAError) as exc:
        raise BundleError(
            _(
                "not a readable tar.gz, tar or zip archive; pack the results folder with pack.sh or "
                "`tar -czf results.tar.gz results`."
            )
        ) from exc
    if not reader.bundle.members:
        raise BundleError(_("the archive holds no files that could be read."))
    return reader.bundle
