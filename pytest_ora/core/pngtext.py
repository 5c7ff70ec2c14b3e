"""The text a PNG image carries in its tEXt, zTXt and iTXt chunks, read within fixed bounds.

An image is sent to the judges whole: a token in a text chunk, or a key deflated into a zTXt
chunk, would travel with it. Intake reads these chunks (decompressing zTXt and compressed iTXt,
never past MAX_TEXT_BYTES) so the secret scan sees them like any other text of the capture.
"""

from __future__ import annotations

import struct
import zlib

from .errors import OraError

__all__ = ["MAX_TEXT_BYTES", "PNG_SIGNATURE", "PngTextError", "png_texts"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_TEXT_BYTES = 1 << 20
"""Decompressed text read from one image, all chunks together; more is refused, never inflated."""
_TEXT_CHUNKS = (b"tEXt", b"zTXt", b"iTXt")


class PngTextError(OraError, ValueError):
    """The image's text cannot be read within the bounds (a decompression bomb, a broken chunk)."""


def _inflate(data: bytes, budget: int) -> bytes:
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, budget + 1)
    except zlib.error as error:
        raise PngTextError(f"a compressed text chunk does not inflate ({error})") from None
    if len(out) > budget or inflater.unconsumed_tail:
        raise PngTextError(f"its compressed text chunks inflate past {MAX_TEXT_BYTES} bytes")
    return out


def png_texts(data: bytes) -> list[str]:
    """Each text chunk's keyword and text ("keyword: text"), decoded as Latin-1 (tEXt, zTXt) or UTF-8 (iTXt)."""
    if not data.startswith(PNG_SIGNATURE):
        return []
    texts: list[str] = []
    budget = MAX_TEXT_BYTES
    offset = len(PNG_SIGNATURE)
    while offset + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[offset : offset + 8])
        body = data[offset + 8 : offset + 8 + length]
        offset += 12 + length
        if kind == b"IEND":
            break
        if kind not in _TEXT_CHUNKS:
            continue
        keyword, _, rest = body.partition(b"\x00")
        if kind == b"tEXt":
            text = rest
        elif kind == b"zTXt":
            text = _inflate(rest[1:], budget)
        else:
            flag = rest[:1]
            _language, _, rest = rest[2:].partition(b"\x00")
            _translated, _, rest = rest.partition(b"\x00")
            text = _inflate(rest, budget) if flag == b"\x01" else rest
        budget -= len(text)
        if budget < 0:
            raise PngTextError(f"its text chunks hold more than {MAX_TEXT_BYTES} bytes")
        encoding = "utf-8" if kind == b"iTXt" else "latin-1"
        texts.append(f"{keyword.decode('latin-1')}: {text.decode(encoding, errors='replace')}")
    return texts
