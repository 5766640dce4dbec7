"""The record's state folder, `.sourcebook-cache/`: what one run keeps for the next.

What is kept there is trusted by the next run (a quote found in a text is not looked for
again), so it must be what this user's runs wrote, not what arrived with the record: a
record is untrusted input, and a cache committed with it could prove quotes that its
copies do not hold. The folder therefore carries a seal, an HMAC of its own place made
with a secret kept outside every record, in the user's cache folder. A state folder
without the right seal (from a clone, a copy, another machine or another user) is emptied
and sealed afresh; one that is a symbolic link, or cannot be written, keeps nothing. A
file whose values are read back as objects (the queries' runs) carries a seal of its own,
an HMAC of its bytes and its name (`Store.write_sealed`), so that it is read only as this
user's run wrote it.

A `Store` is that folder for one record, or nothing at all (`Store.memory()`: what is kept
lives in the process, from save to save in `serve`, or for one run with `--no-cache`).
Each part of it (a stage's memo, the site, the Library's texts) is a sub-folder.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import os
import secrets
import shutil
from pathlib import Path

from sourcebook.files import write_atomic

STATE_FOLDER = ".sourcebook-cache"
_SEAL = "seal"


class Store:
    """Where kept values live from run to run: the sealed state folder of the record at
    `root`, or, where `root` is None, nowhere but in memory."""

    def __init__(self, root: Path | None) -> None:
        self.root = root

    @classmethod
    def of(cls, root: Path | str) -> Store:
        """The state folder of the record at `root`."""
        return cls(Path(root))

    @classmethod
    def memory(cls) -> Store:
        """No folder: what is kept lives as long as the objects that keep it."""
        return cls(None)

    @property
    def on_disk(self) -> bool:
        return self.root is not None

    def folder(self, part: str) -> Path | None:
        """The sealed folder of `part`, made where need be; None in memory, or where no
        state can be kept safely. For the parts that keep a format of their own (see
        the package's docstring); a memo keeps its values with `read` and `write`."""
        return state_folder(self.root, part) if self.root is not None else None

    def read(self, part: str, name: str) -> bytes | None:
        """The bytes kept as `part/name`; None where there are none, or they cannot be read."""
        folder = self.folder(part)
        if folder is None:
            return None
        try:
            return (folder / name).read_bytes()
        except OSError:
            return None

    def write(self, part: str, name: str, data: bytes) -> None:
        """Keep `data` as `part/name`, whole or not at all; nothing where no state can be kept."""
        folder = self.folder(part)
        if folder is not None:
            with contextlib.suppress(OSError):
                write_atomic(folder / name, data)

    def read_sealed(self, part: str, name: str) -> bytes | None:
        """The bytes kept as `part/name` by `write_sealed`: None where there are none, or
        they are not as this user's run sealed them."""
        data = self.read(part, name)
        secret = _secret() if data is not None else None
        if data is None or secret is None or len(data) < _TAG:
            return None
        tag, kept = data[:_TAG], data[_TAG:]
        return kept if hmac.compare_digest(tag, _tag(secret, part, name, kept)) else None

    def write_sealed(self, part: str, name: str, data: bytes) -> None:
        """Keep `data` as `part/name`, sealed with this user's secret: for what a run reads
        back as objects, which must be what this user's runs wrote, not only be found in a
        sealed folder."""
        secret = _secret()
        if secret is not None and self.on_disk:
            self.write(part, name, _tag(secret, part, name, data) + data)


_TAG = 32


def _tag(secret: bytes, part: str, name: str, data: bytes) -> bytes:
    named = f"{part}/{name}".encode() + b"\0"
    return hmac.new(secret, named + data, hashlib.sha256).digest()


def state_folder(root: Path, part: str) -> Path | None:
    """`root/.sourcebook-cache/PART`, made where need be, sealed by this user; None where
    no state can be kept safely (the run then keeps nothing, and is only slower)."""
    folder = root / STATE_FOLDER
    try:
        folder.mkdir(exist_ok=True)
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:  # a link, a file, or a record that cannot be written
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # two runs starting at once seal it once
        seal = _seal_of(os.fstat(fd))
        if seal is None:
            return None
        if _read_seal(folder) != seal:
            _empty(folder)
            (folder / _SEAL).write_text(seal, encoding="ascii")
        kept = folder / part
        kept.mkdir(exist_ok=True)
        return None if kept.is_symlink() else kept
    except OSError:
        return None
    finally:
        os.close(fd)


def _seal_of(stat: os.stat_result) -> str | None:
    """The seal of the folder with `stat`: bound to its device and inode, so that neither a
    committed seal nor one copied from another folder is the right one."""
    secret = _secret()
    if secret is None:
        return None
    place = f"{stat.st_dev}:{stat.st_ino}".encode()
    return hmac.new(secret, place, hashlib.sha256).hexdigest()


def _secret() -> bytes | None:
    """This user's secret, made on first use, readable by the user alone."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(home, "sourcebook", "state-secret")
    with contextlib.suppress(OSError):
        return path.read_bytes()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(secrets.token_bytes(32))
    except FileExistsError:
        pass  # another run made it first
    except OSError:
        return None
    with contextlib.suppress(OSError):
        return path.read_bytes()
    return None


def _read_seal(folder: Path) -> str | None:
    seal = folder / _SEAL
    if seal.is_symlink():
        return None
    try:
        return seal.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _empty(folder: Path) -> None:
    """Remove all that `folder` holds; links are removed, never followed."""
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
