"""The readers of a run's files: `events.jsonl`, `results.json` and `hands/*.phhs` turned into
plain data. Each raises `UnreadableRun`, naming the file and line, when a file is missing or
cannot be parsed; what the data says is for the checks (`orchestrator.views.audit`) to judge."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.core.events import EventRecord
from orchestrator.errors import UnreadableRun

__all__ = ["PhhSection", "read_events", "read_hand_files", "read_results"]


def read_events(path: Path) -> list[EventRecord]:
    """events.jsonl as a list of objects; UnreadableRun names the first bad line."""
    text = _read_text(path)
    events: list[EventRecord] = []
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UnreadableRun(f"{path}:{number}: not a JSON line ({exc.msg})") from None
        if not isinstance(event, dict):
            raise UnreadableRun(f"{path}:{number}: not a JSON object")
        events.append(event)
    return events


def read_results(path: Path) -> dict[str, Any]:
    try:
        results = json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise UnreadableRun(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(results, dict):
        raise UnreadableRun(f"{path}: not a JSON object")
    return results


@dataclass(frozen=True, slots=True)
class PhhSection:
    """One hand of a `.phhs` file: its own TOML text (replayable alone) and its fields."""

    file: str  # relative to the run's folder, e.g. "hands/table-0001.phhs"
    line: int  # of the section's header
    text: str
    fields: dict[str, Any]

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


_HEADER = re.compile(r"^\[[^\]\n]+\][ \t]*$", re.MULTILINE)


def read_hand_files(folder: Path, *, relative_to: Path | None = None) -> list[PhhSection]:
    """Every hand of every `*.phhs` in `folder`, in file order then section order."""
    if not folder.is_dir():
        raise UnreadableRun(f"{folder}: no hands folder")
    base = relative_to if relative_to is not None else folder.parent
    sections: list[PhhSection] = []
    for path in sorted(folder.glob("*.phhs")):
        text = _read_text(path)
        starts = [m.start() for m in _HEADER.finditer(text)]
        try:
            tomllib.loads(text)  # the whole file first: its error names the right line
        except tomllib.TOMLDecodeError as exc:
            where = _breaks(text, starts, exc)
            raise UnreadableRun(f"{path}: not valid PHH/TOML ({exc}){where}") from None
        if text[: starts[0] if starts else len(text)].strip():
            raise UnreadableRun(f"{path}:1: not a PHH section before the first hand's header")
        name = str(path.relative_to(base))
        # An empty file (a table that dealt nothing before a crash) holds no hand.
        ends = [*starts[1:], len(text)] if starts else []
        for begin, end in zip(starts, ends, strict=True):
            chunk = text[begin:end]
            parsed = tomllib.loads(chunk)
            fields: object = next(iter(parsed.values()), {})
            line = text.count("\n", 0, begin) + 1
            sections.append(
                PhhSection(name, line, chunk, fields if isinstance(fields, dict) else {})
            )
    return sections


_AT_LINE = re.compile(r"at line (\d+)")


def _breaks(text: str, starts: list[int], error: tomllib.TOMLDecodeError) -> str:
    """Which hand's section a TOML error falls in: a file cut off by a crash breaks in its
    last one."""
    if not starts:
        return ""
    heads = [text.count("\n", 0, start) + 1 for start in starts]
    found = _AT_LINE.search(str(error))
    if found is not None:
        head = max((h for h in heads if h <= int(found.group(1))), default=None)
    else:  # "at end of document"
        head = heads[-1]
    if head is None:
        return ""
    last = ", its last: cut off by a crash?" if head == heads[-1] else ""
    return f"; it breaks in the hand from line {head}{last}"


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UnreadableRun(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UnreadableRun(f"{path}: cannot be read ({exc})") from None
