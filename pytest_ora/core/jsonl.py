"""How captures.jsonl is split into lines: one rule for every reader (intake, the scorecard, the advisory kind)."""

from __future__ import annotations

__all__ = ["jsonl_line", "jsonl_lines"]


def jsonl_line(number: int, data: bytes) -> bytes:
    """One line of captures.jsonl as read: its byte order mark (line 1) and line end removed."""
    if number == 1 and data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a UTF-8 byte order mark, as some editors write
    return data.rstrip(b"\r\n")


def jsonl_lines(data: bytes) -> list[bytes]:
    """captures.jsonl's lines numbered as intake numbers them (a list index is line - 1).

    One rule for every reader: lines end at \n only. bytes.splitlines() would also split at a lone
    \r (JSON whitespace inside a line), shift every later line, and read the wrong capture's keys.
    """
    return [jsonl_line(number, line) for number, line in enumerate(data.split(b"\n"), start=1)]
