"""The folders the package keeps its state in (the server home, the cache, the LLM answer
cache's folder), made and checked in one place: a place that cannot be used is one line naming
it, what is wrong and the setting that moves it, before anything is written there. Also what a
path given to be read is when it is no regular file (a FIFO would block the read forever)."""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from tripartite.infra.errors import StorageError

HOME = "the server home"
HOME_FIX = "set TRIPARTITE_SERVER_HOME (or [server] home) to a writable folder"
CACHE = "the cache folder"
CACHE_FIX = "set TRIPARTITE_CACHE_DIR (or [paths] cache_dir) to a writable folder"


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def not_regular(path: Path) -> str | None:
    """What an existing path is when it is no regular file ("a named pipe"), or None: a regular
    file (a link to one too), or nothing there."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else next((kind for test, kind in _KINDS if test(mode)), "a special file")


def not_a_folder(path: Path) -> Path | None:
    """What stands where `path` or a folder above it must be a folder (a regular file, a FIFO),
    or None."""
    for place in (path, *path.parents):
        if place.exists():
            return None if place.is_dir() else place
    return None


def refusal(thing: str, named: Path, fix: str, folder: Path, trouble: str, exc: OSError | None = None) -> StorageError:
    """'cannot use {thing} {named}: {folder} {trouble} ({the system's reason}); {fix}', or, when
    something other than a folder stands where `folder` or one above it must be, that named
    instead (the system's "Not a directory" names nothing)."""
    blocker = not_a_folder(folder)
    if blocker is not None:
        folder, trouble, exc = blocker, "is a file, not a folder" if blocker.is_file() else "is not a folder", None
    who = "it" if folder == named else str(folder)
    reason = f" ({exc.strerror})" if exc is not None and exc.strerror else ""
    return StorageError(f"cannot use {thing} {named}: {who} {trouble}{reason}; {fix}")


def writable_folder(folder: Path, thing: str, fix: str, named: Path | None = None) -> Path:
    """`folder`, made if missing and proven writable, or a StorageError naming `named` (the
    folder itself by default; a file in it, for a cache file) and `fix`."""
    named = named or folder
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise refusal(thing, named, fix, folder, "cannot be made", exc) from None
    try:
        # Creating a file is the one proof that holds for root too: the mode does not stop root,
        # an immutable folder (chattr +i) or a read-only mount does.
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as exc:
        raise refusal(thing, named, fix, folder, "is not writable", exc) from None
    return folder


def undeletable(root: Path) -> Path | None:
    """The first folder of `root`'s tree (or the one holding it) whose entries may not be
    deleted, or None: checked before a deletion starts, so none stops halfway."""
    folders = [root.parent, root]
    for top, names, _ in os.walk(root):
        folders += [Path(top) / name for name in names if not (Path(top) / name).is_symlink()]
    return next((folder for folder in folders if not os.access(folder, os.W_OK | os.X_OK)), None)
