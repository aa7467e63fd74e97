"""What ``kb import`` says: one line per item that needs reading, then a grouped summary.

A new user reads the summary first, so it says everything in a few lines: what was (or would
be) written, each kind of item left out in one line (menu items, attachments, drafts...),
each kind of problem with its count, what it is about and the one option that fixes it, and
the redirects to set at the host. Per-item lines, in the file's order, name the line of the
export for each post written, each error and each note; an item that is no post (an
attachment, a menu item) gets no line of its own. ``--dry-run`` prints a table instead.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .model import Item

#: What fixes each kind of problem, said once in the summary.
ADVICE = {
    "category": "use --default-category CATEGORY (add --categories-as-tags to keep them as "
    "tags), --map-category OLD=NEW or a --map file",
    "author": "use --map-author LOGIN=KEY or a --map file, or add the author to blog_authors",
    "markup": "its text would become MyST markup: report it, with the item, as a kb bug",
    "check": "fix what each line says and run kb import again",
}
#: Items that are no post of the site, said in one line each.
SILENT = {"attachment", "menu item", "wp_block", "wp_navigation", "wp_template", "custom_css"}


@dataclass
class Report:
    shown: str  # the file, as messages name it
    dry_run: bool = False
    lines: list[tuple[int, int, str]] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)
    problems: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    kinds: Counter = field(default_factory=Counter)  # errors of each kind
    rows: list[tuple[int, str, str, str, str]] = field(default_factory=list)
    host_redirects: list[tuple[str, str, str]] = field(default_factory=list)  # from, to, why

    def say(self, item: Item, message: str) -> None:
        self.lines.append((item.line, len(self.lines), f"{self.shown}:{item.line}: {message}"))

    def skip(self, item: Item, reason: str, why: str) -> None:
        self.skipped[reason] += 1
        if reason not in SILENT and not reason.startswith("wp_"):
            self.say(item, f"not imported: {item.label}: {why}")
            self.rows.append((item.line, "skipped", "", item.label, reason))

    def error(self, item: Item, message: str, kind: str = "other", subject=()) -> None:
        self.counts["error"] += 1
        self.kinds[kind] += 1
        for about in [subject] if isinstance(subject, str) else subject or ["-"]:
            self.problems[kind][about or "-"] += 1
        self.say(item, f"error: {item.label} not imported: {message}")
        self.rows.append((item.line, "error", "", item.label, kind))

    def written(self, item: Item, relpath: str, images: int, notes: list[str], verb: str):
        self.counts["written"] += 1
        self.counts["images"] += images
        extra = f" and {images} image(s) into {relpath.rsplit('/', 1)[-1][:-3]}/" if images else ""
        self.say(item, f"{verb} {relpath}{extra} from {item.label}")
        for note in notes:
            self.counts["notes"] += 1
            self.say(item, f"note: {relpath}: {note}")
        self.rows.append(
            (item.line, verb, relpath, item.label, f"{images} img, {len(notes)} notes")
        )

    def print(self, rtd_redirects: bool = False) -> bool:
        """Print it all; whether there were errors."""
        stream = sys.stderr if rtd_redirects else sys.stdout
        if self.dry_run and not rtd_redirects:
            self._table(stream)
        else:
            for _, _, line in sorted(self.lines):
                print(line, file=stream)
        self._summary()
        return bool(self.counts["error"])

    def _table(self, stream) -> None:
        rows = sorted(self.rows)
        width = max((len(r[2]) for r in rows), default=4)
        print(f"{'line':>6}  {'what':<11}  {'file':<{width}}  title / why", file=stream)
        for line, what, relpath, label, extra in rows:
            print(f"{line:>6}  {what:<11}  {relpath:<{width}}  {label} ({extra})", file=stream)
        errors = [text for _, _, text in sorted(self.lines) if ": error: " in text]
        for text in errors:
            print(text, file=stream)

    def _summary(self) -> None:
        counts = self.counts
        done = "would write" if self.dry_run else "wrote"
        pages = f", {counts['pages']} page(s)" if counts["pages"] else ""
        line = f"kb import: {done} {counts['written'] - counts['pages']} post(s){pages} and "
        line += f"{counts['images']} image(s)"
        if counts["already imported"]:
            line += f"; {counts['already imported']} already imported"
        if counts["notes"]:
            line += f"; {counts['notes']} note(s) to read"
        print(line, file=sys.stderr)
        if counts["pages"]:
            print(
                f"kb import: {counts['pages']} WordPress page(s) under pages/: list them in the "
                "toctree of index.md to show them in the navigation",
                file=sys.stderr,
            )
        if self.skipped:
            listed = ", ".join(f"{n} {reason}" for reason, n in self.skipped.most_common())
            print(f"kb import: not imported (not published posts): {listed}", file=sys.stderr)
        for kind, subjects in sorted(self.problems.items()):
            total = self.kinds[kind]
            about = ", ".join(
                f"{subject} ({n})" if n > 1 else subject
                for subject, n in subjects.most_common(8)
                if subject != "-"
            )
            more = f" and {len(subjects) - 8} more" if len(subjects) > 8 else ""
            advice = ADVICE.get(kind, ADVICE["check"])
            about = f" [{about}{more}]" if about else ""
            print(f"kb import: {total} error(s) of kind {kind}{about}: {advice}", file=sys.stderr)
        if counts["error"]:
            print(
                f"kb import: {counts['error']} item(s) not imported; run kb import again once "
                "fixed (it skips what it already imported)",
                file=sys.stderr,
            )
        if self.host_redirects:
            print(
                f"kb import: {len(self.host_redirects)} old address(es) the site cannot redirect "
                "by itself: set them at the host (kb import --rtd-redirects prints them all)",
                file=sys.stderr,
            )
