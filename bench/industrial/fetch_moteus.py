"""Fetch the second domain's corpus: mjbots/moteus, an open brushless servo controller for
robots (CAN-FD bus, encoders, gate drivers, faults), Apache-2.0, at a pinned commit.

Documents: its Markdown manual (guides, protocol, integration, reference), without the
troubleshooting pages and the index pages. Objects (fault reports): what its troubleshooting
pages say went wrong, before they say how to fix it (each page's title and opening
paragraph, and each "common problem" fault of the no-motion page), and the bug-fix entries of
its changelog. Objects and documents come from different files, so no object's answer is its
own text. The files are written outside the repository (the text is moteus's, under its
licence, which is copied beside them).

    python3 bench/industrial/fetch_moteus.py                      # from GitHub (needs network)
    python3 bench/industrial/fetch_moteus.py --git-dir CLONE/.git  # from a local clone
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

REPOSITORY = "mjbots/moteus"
COMMIT = "db1a7623d6a7d5568e7632b974a9ab521a4d2bab"  # 2026-06-25
DOCUMENTS = [f"docs/{p}.md" for p in (
    "quick-start", "guides/calibration", "guides/configuration", "guides/control-modes", "guides/dual-encoders",
    "guides/electrical-setup", "guides/encoder-overview", "guides/field-weakening", "guides/hall-effects",
    "guides/mechanical-setup", "guides/optimizing-for-max-duty-cycle", "guides/pid-tuning",
    "guides/software-installation", "protocol/can", "protocol/diagnostic", "protocol/registers",
    "integration/can-fd", "integration/uart", "integration/python", "reference/client-tools",
    "reference/configuration", "reference/encoders", "reference/firmware", "reference/hardware",
    "reference/limits", "reference/pinouts", "reference/theory")]
TROUBLESHOOTING = [f"docs/troubleshooting/{p}.md" for p in (
    "no-motion", "timeout-mode-11", "calibration", "gate-driver-faults", "overvoltage-fault-34", "limited-torque")]
# Changelog sections whose entries report something that went wrong.
FIX_SECTIONS = ("Firmware improvements", "Utilities and examples", "Fixes")
FIX_WORDS = re.compile(r"\b(fix|fail|could|oscillat|error|wrong|previously|ignor|respect|properly|unlucky)", re.I)
TABS = re.compile(r'^=== "(.+)"\s*$', re.MULTILINE)  # MkDocs content tabs: a plain label instead


def reader(git_dir: Path | None):
    if git_dir is not None:
        def read(path: str) -> str:
            return subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{COMMIT}:{path}"], check=True,
                                  capture_output=True).stdout.decode("utf-8")
        return read

    def download(path: str) -> str:
        url = f"https://raw.githubusercontent.com/{REPOSITORY}/{COMMIT}/{path}"
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.read().decode("utf-8")
    return download


def opening(page: str) -> str:
    """The title and the first paragraph after it: the symptom, before the remedies."""
    lines = page.strip().splitlines()
    title = lines[0].lstrip("# ").strip()
    paragraph = []
    for line in lines[1:]:
        if line.strip().startswith(("#", "```")) and paragraph:
            break
        if line.strip():
            paragraph.append(line.strip())
        elif paragraph:
            break
    return f"# {title}\n\n{' '.join(paragraph)}\n"


def common_problems(page: str) -> list[tuple[str, str]]:
    """The no-motion page's '"NN (name)": ...' bullets, one fault each."""
    return [(f"fault-{code}", f"# Fault {code} ({name})\n\nThe controller reports fault {code} ({name}) and "
                              f"does not move: {text.split('.')[0].strip()}.\n")
            for code, name, text in re.findall(r'^\s*- "(\d+) \(([^)]+)\)": (.+)$', page, flags=re.MULTILINE)]


def changelog_fixes(changelog: str) -> list[str]:
    entries, section = [], ""
    for line in changelog.splitlines():
        if line.startswith("#### ") or line.startswith("### "):
            section = line.lstrip("# ").strip()
        elif line.startswith("- ") and section in FIX_SECTIONS and FIX_WORDS.search(line):
            entries.append(line[2:].strip())
    return entries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", type=Path, help="Read from this clone's git directory instead of GitHub.")
    parser.add_argument("--out", type=Path, default=Path.home() / ".cache" / "tripartite" / "corpora" / "moteus")
    args = parser.parse_args()
    read = reader(args.git_dir)
    docs, objects = args.out / "docs", args.out / "objects"
    for folder in (docs, objects):
        folder.mkdir(parents=True, exist_ok=True)
    for path in DOCUMENTS:
        name = path.removeprefix("docs/").replace("/", "-")
        (docs / name).write_text(TABS.sub(r"**\1:**", read(path)), encoding="utf-8")
    count = 0
    for path in TROUBLESHOOTING:
        page = read(path)
        (objects / f"trouble-{Path(path).stem}.md").write_text(opening(page), encoding="utf-8")
        count += 1
        if path.endswith("no-motion.md"):
            for stem, text in common_problems(page):
                (objects / f"{stem}.md").write_text(text, encoding="utf-8")
                count += 1
    for n, entry in enumerate(changelog_fixes(read("CHANGELOG.md")), start=1):
        (objects / f"changelog-fix-{n:02d}.md").write_text(f"# Changelog fix {n}\n\n{entry}\n", encoding="utf-8")
        count += 1
    (args.out / "LICENSE").write_text(read("LICENSE"), encoding="utf-8")
    (args.out / "SOURCE.md").write_text(f"github.com/{REPOSITORY} at {COMMIT}, Apache-2.0 (LICENSE).\n",
                                        encoding="utf-8")
    print(f"{len(DOCUMENTS)} documents in {docs}, {count} fault reports in {objects}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
