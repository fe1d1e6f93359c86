"""Writing a dump file: gzip that two exports of the same data write byte for byte alike,
hashed and measured as it is written, never held whole in memory."""

import gzip
import hashlib
import io
import json
import tarfile

# Each file's sha256 is read by those who download it; the gzip header would
# otherwise carry the time and the file's name, and make every export differ.
GZIP_MTIME = 0
# Tar entries: fixed owner, mode and time, so the archive depends on the pages alone.
TAR_MTIME = 0
TAR_MODE = 0o644


class Hashing(io.RawIOBase):
    """A binary file that hashes and counts the bytes written through it."""

    def __init__(self, target):
        self.target = target
        self.sha256 = hashlib.sha256()
        self.size = 0

    def writable(self):
        return True

    def write(self, data):
        self.sha256.update(data)
        self.size += len(data)
        self.target.write(data)
        return len(data)


class GzipOut:
    """A gzip file under `path`, deterministic; `.size` and `.sha256` once closed."""

    def __init__(self, path):
        self.path = path
        self._file = open(path, "wb")  # noqa: SIM115 (closed by close())
        self._hashing = Hashing(self._file)
        # filename="" leaves the name out of the header; mtime fixed.
        self.stream = gzip.GzipFile(
            filename="", mode="wb", fileobj=self._hashing, mtime=GZIP_MTIME, compresslevel=6
        )

    def write(self, data):
        self.stream.write(data)

    def close(self):
        self.stream.close()
        self._file.flush()
        self._file.close()
        self.size = self._hashing.size
        self.sha256 = self._hashing.sha256.hexdigest()

    def discard(self):
        """Closed after a failure: the file is left half-written, for its set to be removed."""
        self._file.close()


def record_json(record):
    """One record as the archive's files hold it: JSON, non-ASCII kept."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def write_array(path, records):
    """`records` written as one JSON array, gzipped, a record at a time: (size, sha256)."""
    out = GzipOut(path)
    try:
        out.write(b"[")
        for index, record in enumerate(records):
            if index:
                out.write(b",\n")
            out.write(record_json(record).encode())
        out.write(b"]\n")
    except BaseException:
        out.discard()
        raise
    out.close()
    return out.size, out.sha256


class PageTar:
    """A .tar.gz of page files, one entry added at a time."""

    def __init__(self, path):
        self.out = GzipOut(path)
        self.tar = tarfile.open(  # noqa: SIM115 (closed by close())
            fileobj=self.out.stream, mode="w|", format=tarfile.PAX_FORMAT
        )

    def add(self, name, data):
        info = tarfile.TarInfo(name)
        info.size = len(data)
        info.mtime = TAR_MTIME
        info.mode = TAR_MODE
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        self.tar.addfile(info, io.BytesIO(data))

    def close(self):
        self.tar.close()
        self.out.close()
        return self.out.size, self.out.sha256

    def discard(self):
        self.out.discard()
