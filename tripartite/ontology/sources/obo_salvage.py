"""An OBO file fastobo refuses as a whole, read around its malformed lines.

fastobo parses a whole document or fails at its first bad line, and published files have some
(the 2015 doid.obo: a definition whose references hold spaces). When the whole fails, its
frames are read one after another until one fails; that frame is tried line by line against
its own id, the lines that fail are left out and the rest of it kept (a frame whose header or
id line fails is left out whole); reading goes on from the next frame. Each restart reads on
from where the last one stopped, so the file is read about once however many lines are bad.
Every line left out is named in the report."""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tripartite.ontology.sources.tally import Tally, quoted

STANZA = re.compile(r"\[[^\]\n]*\][ \t]*(?:![^\n]*)?\r?")  # a frame's header line: [Term], [Typedef], [Instance]
LISTED = 50  # line numbers named in the report


class Stopped(Exception):
    """fastobo stopped reading: at this line of what it was given (1-based), if it says."""

    def __init__(self, line: int | None) -> None:
        super().__init__(line)
        self.line = line


# parse(text): fastobo's document or None; frames(tail): its frames one by one, raising Stopped
Parse = Callable[[str], object]
Frames = Callable[["Tail"], Iterator]


@dataclass
class Salvaged:
    frames: list = field(default_factory=list)          # fastobo's frames that read, in file order
    lines: Tally = field(default_factory=Tally)         # malformed lines left out
    numbers: list[int] = field(default_factory=list)    # ... their line numbers
    frames_left: Tally = field(default_factory=Tally)   # frames left out whole

    def problems(self) -> list[str]:
        found = []
        if self.lines.count:
            listed = ", ".join(map(str, self.numbers[:LISTED])) + (", ..." if len(self.numbers) > LISTED else "")
            found.append(self.lines.line("malformed OBO line(s) skipped", f"the rest of their frames is read (lines "
                                         f"{listed}); fix them, or pass --strict to refuse such a file"))
        if self.frames_left.count:
            found.append(self.frames_left.line("OBO frame(s) skipped whole, their header or id line being malformed",
                                               "fix them, or pass --strict to refuse such a file"))
        return found


class Tail:
    """The document from a byte offset on, read as fastobo reads a file: in pieces, so that a
    restart copies nothing ahead of what is parsed."""

    def __init__(self, data: bytes, offset: int) -> None:
        self.data, self.at = data, offset

    def read(self, size: int | None = -1) -> bytes:
        end = len(self.data) if size is None or size < 0 else self.at + size
        piece = self.data[self.at:end]
        self.at += len(piece)
        return piece


def salvage(text: str, parse: Parse, frames: Frames) -> Salvaged:
    """The frames of text that read, and what was left out."""
    lines = text.split("\n")
    starts = [number for number, line in enumerate(lines) if STANZA.fullmatch(line)]  # 0-based
    found = Salvaged()
    header = lines[:starts[0]] if starts else lines
    if parse("\n".join(header)) is None:
        for number, line in enumerate(header):
            if line.strip() and parse(line + "\n") is None:
                _left_out(found, number, line)
    data = text.encode("utf-8")
    offsets = [0] + [match.end() for match in re.finditer(b"\n", data)]  # each line's first byte
    index = 0
    while index < len(starts):
        read = 0
        try:
            for frame in frames(Tail(data, offsets[starts[index]])):
                found.frames.append(frame)
                read += 1
            break
        except Stopped as stop:
            failing = index + read if stop.line is None else \
                max(index, bisect_right(starts, starts[index] + stop.line - 1) - 1)
            found.frames.extend(_repaired(failing, starts, lines, parse, found))
            index = failing + 1
    return found


def _repaired(index: int, starts: list[int], lines: list[str], parse: Parse, found: Salvaged) -> list:
    """One frame without its malformed lines, or nothing if its header or id line is one."""
    start = starts[index]
    end = starts[index + 1] if index + 1 < len(starts) else len(lines)
    head = lines[start]
    body = [(number, lines[number]) for number in range(start + 1, end) if lines[number].strip()]
    if not body or parse(f"{head}\n{body[0][1]}\n") is None:
        found.frames_left.add(f"line {start + 1} {quoted(head + ' ' + (body[0][1] if body else ''))}")
        return []
    id_line = body[0][1]
    kept = [line for number, line in body[1:] if parse(f"{head}\n{id_line}\n{line}\n") is not None
            or _left_out(found, number, line)]
    document = parse("\n".join([head, id_line, *kept]) + "\n")
    if document is None:  # every line reads alone, not together
        found.frames_left.add(f"line {start + 1} {quoted(head + ' ' + id_line)}")
        return []
    return list(document)


def _left_out(found: Salvaged, number: int, line: str) -> bool:
    found.lines.add(f"line {number + 1} {quoted(line.strip())}")
    found.numbers.append(number + 1)
    return False
