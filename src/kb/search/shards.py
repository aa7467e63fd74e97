"""The search index in shards: after a change, Pagefind runs only over the shards it touched.

Each searchable page belongs to one shard, chosen by a hash of its path, so the shards are the
same whatever the order of builds. A site of up to ``kb_search_shard_size`` pages is one
shard (Pagefind writes the bundle directly, as before); a larger one has a power of two
shards of at most that many pages. Each shard has a folder in the doctree folder
(``kb-search-shards/<shards>-<shard>/``) with Pagefind's bundle of its pages, what that bundle
was made from, and the bundle read once (:func:`kb.search.merge.read_shard`, pickled).
Pagefind runs over the changed shards, as many at a time as there are processors, while the
build writes its other pages; :func:`kb.search.merge.merge` then writes the site's bundle.
A thread of its own keeps them running, starting the next shard as one ends, and the build
reads each shard's bundle as its run ends: a clean build of 1000 posts indexes 32 shards,
and only the first two had run while its listing pages were written (the others ran, two at a
time, once the build waited for them).

A one-post edit at 1000 posts re-indexes one shard of about 31 pages instead of all
1000 (Pagefind's time grows with the pages it reads: about 2 ms each on 2 cores).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..core.fileio import crash_point, write_atomically
from ..core.journal import SEARCH_FILES
from ..core.waiting import Superseded, stop_if
from . import bundle as bundle_files
from .cbor import Unexpected
from .merge import Shard, merge, read_shard

SHARDS_DIR = f"{SEARCH_FILES}shards"
#: In the doctree folder: each record's digest, by file identity, so that an unchanged
#: record is not read again to tell that it has not changed.
DIGESTS_FILE = f"{SEARCH_FILES}digests.json"
PARSED = "shard.pickle"
#: In the shards' folder: what the last merge wrote into the bundle (kb.search.cbor.pack).
WRITTEN = "bundle-files.json"
STATE = "state"
#: Part of each shard's fingerprint: a kb that reads shards differently indexes them again
#: instead of loading another version's pickles.
FORMAT = "kb-shards-1"


def shard_count(pages: int, shard_size: int) -> int:
    """1 up to ``shard_size`` pages; above, the least power of two giving at most that many
    pages a shard on average."""
    if shard_size <= 0 or pages <= shard_size:
        return 1
    count = 2
    while count * shard_size < pages:
        count *= 2
    return count


def shard_of(relpath: str, count: int) -> int:
    return int.from_bytes(hashlib.sha256(relpath.encode("utf-8")).digest()[:8], "big") % count


def record_digests(sources: dict[str, str], workdir: Path) -> dict[str, str]:
    """Each record's SHA-256, read only when its file is not the one last read (records are
    written as new files, so a changed record has another inode or time stamp)."""
    path = workdir / DIGESTS_FILE
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    digests, seen = {}, {}
    for relpath, source in sources.items():
        stat = os.stat(source)
        identity = [stat.st_ino, stat.st_mtime_ns, stat.st_size]
        cached = known.get(relpath)
        if cached is not None and cached[:3] == identity:
            digest = cached[3]
        else:
            digest = hashlib.sha256(Path(source).read_bytes()).hexdigest()
        digests[relpath] = digest
        seen[relpath] = [*identity, digest]
    if seen != known:
        workdir.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps(seen, sort_keys=True))
    return digests


def sources_fingerprint(settings: str, sources: dict[str, str], digests: dict[str, str]) -> str:
    digest = hashlib.sha256(settings.encode("utf-8"))
    for relpath in sources:
        digest.update(f"\0{relpath}\0{digests[relpath]}".encode())
    return digest.hexdigest()


def stage(sources: dict[str, str], staging: Path) -> None:
    """Link each source into ``staging`` at its page's path in the site."""
    for relpath, source in sources.items():
        target = staging / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source, target)
        except OSError:  # another file system
            shutil.copyfile(source, target)


def _intact(folder: Path, fingerprint: str) -> bool:
    return bundle_files.is_intact(folder / STATE, fingerprint, folder / "bundle")


def _load(path: Path) -> Shard:
    try:
        with open(path, "rb") as handle:
            shard = pickle.load(handle)
    except Exception as error:  # a damaged file: index every page instead
        raise Unexpected(f"{path.parent.name}: {error}") from None
    if not isinstance(shard, Shard):
        raise Unexpected(f"{path.parent.name}: not a shard")
    return shard


@dataclass
class _Run:
    """One shard's Pagefind run."""

    process: subprocess.Popen[str]
    folder: Path
    group: dict[str, str]
    fingerprint: str
    staging: Path
    output: str = ""


class ShardedRun:
    """Pagefind over the changed shards, started now; :meth:`wait` merges the bundle.

    ``command(site, bundle)`` is Pagefind's command line for one shard. The bundle is
    written again only when some shard changed, or when the bundle is not the one recorded
    (:func:`kb.search.bundle.is_intact`). Each record (a shard's, the bundle's) is removed
    before what it vouches for is touched, and written after."""

    def __init__(
        self,
        bundle: Path,
        sources,
        workdir: Path,
        command,
        settings: str,
        count: int,
        superseded: Callable[[], bool] = lambda: False,
    ):
        self.bundle = bundle
        self.superseded = superseded  # asked before each run starts, and before the merge
        self.was_superseded = False
        self.root = workdir / SHARDS_DIR
        self.command = command
        digests = record_digests(sources, workdir)
        groups: list[dict[str, str]] = [{} for _ in range(count)]
        for relpath, source in sources.items():
            groups[shard_of(relpath, count)][relpath] = source
        self.shards = []  # (folder, sources, fingerprint, current)
        for number, group in enumerate(groups):
            if not group:
                continue
            folder = self.root / f"{count}-{number}"
            fingerprint = sources_fingerprint(f"{FORMAT}\0{settings}", group, digests)
            recorded, _ = bundle_files.read_state(folder / STATE)
            current = recorded == fingerprint and (folder / PARSED).is_file()
            self.shards.append((folder, group, fingerprint, current))
        self._remove_other_shards()
        self.fingerprint = hashlib.sha256(
            "\0".join(fingerprint for _, _, fingerprint, _ in self.shards).encode()
        ).hexdigest()
        self.reindexing = not all(shard[3] for shard in self.shards) or not self._bundle_current()
        if self.reindexing:
            # The merge links every shard's fragments: a shard whose bundle was damaged since
            # it was recorded is indexed again.
            self.shards = [
                (folder, group, fingerprint, current and _intact(folder, fingerprint))
                for folder, group, fingerprint, current in self.shards
            ]
        self.pending = [shard for shard in self.shards if not shard[3]]
        self.published: set[str] | None = None
        # What the driver thread and the build share, under the lock: the runs going on,
        # those ended (in the order they ended), whether to start more, what went wrong.
        self._lock = threading.Condition()  # notified as a run ends, and as the thread ends
        self._running: list[_Run] = []
        self._ended: list[_Run] = []
        self._stopped = False
        self._error: BaseException | None = None
        self._driver: threading.Thread | None = None
        self._done = not self.pending
        if self.pending:
            # A daemon: a build stopped by Ctrl-C (Sphinx then emits no build-finished) ends
            # without waiting for every shard.
            self._driver = threading.Thread(
                target=self._drive, name="kb-search-shards", daemon=True
            )
            self._driver.start()

    def _bundle_current(self) -> bool:
        return bundle_files.is_intact(self.root / STATE, self.fingerprint, self.bundle)

    def _remove_other_shards(self) -> None:
        wanted = {folder.name for folder, _, _, _ in self.shards}
        if self.root.is_dir():
            for path in self.root.iterdir():
                if path.is_dir() and path.name not in wanted:
                    shutil.rmtree(path, ignore_errors=True)

    def _drive(self) -> None:
        """Run Pagefind over each pending shard, one a processor at a time, until none is left
        (or :meth:`cancel`, or a run fails). A thread waiting for a process leaves Python to
        the build."""
        try:
            limit = os.cpu_count() or 1
            while True:
                with self._lock:
                    while not self._stopped and self.pending and len(self._running) < limit:
                        if self.superseded():
                            self.was_superseded = self._stopped = True
                            break
                        self._running.append(self._launch(self.pending.pop(0)))
                    if not self._running:
                        return
                    run = self._running[0]
                run.output, _ = run.process.communicate()
                with self._lock:
                    if run in self._running:  # not cancelled meanwhile
                        self._running.remove(run)
                        self._ended.append(run)
                        self._stopped = self._stopped or run.process.returncode != 0
                        self._lock.notify_all()
        except BaseException as error:  # given to the build by _finish
            with self._lock:
                self._error, self._stopped = error, True
        finally:
            with self._lock:
                self._done = True
                self._lock.notify_all()

    def _launch(self, shard) -> _Run:
        folder, group, fingerprint, _ = shard
        bundle_files.invalidate(folder / STATE)  # first: rmtree removes in any order
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        staging = Path(tempfile.mkdtemp(prefix="site-", dir=folder))
        stage(group, staging)
        process = subprocess.Popen(
            self.command(staging, folder / "bundle"),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        return _Run(process, folder, group, fingerprint, staging)

    def wait(self, failed) -> None:
        """Finish the runs and merge. ``failed(output, status)`` raises the error for a
        Pagefind run that failed."""
        self._finish(failed)
        if not self.reindexing:
            return
        if self.was_superseded:
            raise Superseded("a build waits for the folders")
        stop_if(self.superseded)  # each shard that ran is recorded: the merge is the next one's
        bundle_files.invalidate(self.root / STATE)
        loaded: list[Shard] = []
        for shard in self.shards:
            try:
                loaded.append(_load(shard[0] / PARSED))
            except Unexpected:  # damaged since: indexed again
                self.pending.append(shard)
                self._done = False
                self._drive()
                self._finish(failed)
                loaded.append(_load(shard[0] / PARSED))
        self.bundle.mkdir(parents=True, exist_ok=True)
        try:
            written = json.loads((self.root / WRITTEN).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            written = {}
        if not isinstance(written, dict):
            written = {}
        try:
            self.published = merge(loaded, self.bundle, written, self.superseded)
        finally:
            # Also where the merge stopped: what it wrote is on disk as recorded, and the next
            # merge does not compress those files again to find them the same.
            write_atomically(self.root / WRITTEN, json.dumps(written, sort_keys=True))

    def record(self) -> None:
        """After the old bundle's files are gone: the bundle is the one these shards make."""
        bundle_files.write_state(self.root / STATE, self.fingerprint, self.bundle)

    def _finish(self, failed) -> None:
        """Each shard's bundle read and recorded as its run ends, while the others run; the
        first run that failed raises, through ``failed``."""
        while True:
            with self._lock:
                while not self._ended and not self._done:
                    self._lock.wait()
                error, self._error = self._error, None
                run = self._ended.pop(0) if self._ended and error is None else None
            if error is not None:
                self.cancel()
                raise error
            if run is None:
                break
            shutil.rmtree(run.staging, ignore_errors=True)
            if run.process.returncode != 0:
                self.cancel()
                failed(run.output, run.process.returncode)
            shard = read_shard(run.folder / "bundle", run.group)
            partial = run.folder / f"{PARSED}.partial"
            with open(partial, "wb") as handle:
                pickle.dump(shard, handle, protocol=pickle.HIGHEST_PROTOCOL)
            partial.replace(run.folder / PARSED)
            crash_point("shard")
            bundle_files.write_state(run.folder / STATE, run.fingerprint, run.folder / "bundle")
        if self._driver is not None:
            self._driver.join()
            self._driver = None

    def cancel(self) -> None:
        with self._lock:
            self._stopped = True
            self.pending = []
            running, self._running = self._running, []
        for run in running:
            run.process.kill()
            run.process.wait()
        if self._driver is not None and self._driver is not threading.current_thread():
            self._driver.join()
            self._driver = None
        for run in [*running, *self._ended]:
            shutil.rmtree(run.staging, ignore_errors=True)
        self._ended = []
