"""The two reference suites pytest-ora's replay is measured against, written into a temp dir.

(a) `bare`: 1,173 parametrized trivial tests: what pytest itself costs per item.
(b) `floor`: the design floor: 1,173 parametrized tests, each replaying its own vcrpy cassette
    of two interactions (two POSTs, sent concurrently through one httpx.AsyncClient on one event
    loop per process, matched on method, URL and body), as pytest-ora does for each capture.

The floor's cassettes are recorded once, by vcrpy itself, against a throwaway loopback
http.server, so their format is whatever the installed vcrpy writes.
"""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

TESTS = 1173
"""As many items as the sample's scored set."""

_INI = "[pytest]\n# A rootdir of its own: no configuration is picked up from the directories above.\n"

BARE_TEST = '''\
"""(a) 1,173 parametrized trivial tests."""

import pytest


@pytest.mark.parametrize("i", range({tests}), ids=lambda i: f"c{{i:04d}}")
def test_trivial(i):
    assert i >= 0
'''

FLOOR_TEST = '''\
"""(b) The design floor: each test replays its own two-interaction vcrpy cassette through httpx."""

import asyncio
import atexit
import json
from pathlib import Path

import httpx
import pytest
import vcr

CASSETTES = Path(__file__).parent / "cassettes"
BASE = {base!r}
MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "body")
VCR = vcr.VCR(serializer="json", record_mode="none", match_on=MATCH_ON)
_state = {{}}


def body(i, judge):
    return json.dumps({{"capture": i, "judge": judge, "prompt": "score capture %d" % i}}).encode()


def _ensure():
    # One event loop and one AsyncClient per process, as pytest-ora's CaptureRunner keeps.
    if not _state:
        _state["loop"] = asyncio.new_event_loop()
        _state["client"] = httpx.AsyncClient(trust_env=False)
        atexit.register(_close)
    return _state["loop"], _state["client"]


async def _both(client, i):
    headers = {{"content-type": "application/json"}}
    return await asyncio.gather(
        client.post(BASE + "/v1/messages", content=body(i, "a"), headers=headers),
        client.post(BASE + "/v1/chat/completions", content=body(i, "b"), headers=headers),
    )


@pytest.mark.parametrize("i", range({tests}), ids=lambda i: f"c{{i:04d}}")
def test_replay(i):
    loop, client = _ensure()
    with VCR.use_cassette(str(CASSETTES / f"c{{i:04d}}.json")):
        a, b = loop.run_until_complete(_both(client, i))
    assert a.status_code == b.status_code == 200
    assert a.json()["capture"] == b.json()["capture"] == i


def _close():
    _state["loop"].run_until_complete(_state["client"].aclose())
    _state["loop"].close()
'''


class _Echo(BaseHTTPRequestHandler):
    """Answers a POST with a small JSON reply naming the capture and judge it was sent for."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms delayed-ACK stall

    def do_POST(self) -> None:
        sent = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        reply = {
            "capture": sent["capture"],
            "judge": sent["judge"],
            "scores": {"fidelity": 7, "soundness": 8, "completeness": 6, "relevance": 9, "calibration": 7},
            "impression": "a small reply, about the size of a short judge answer",
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def write_bare(directory: Path, tests: int = TESTS) -> Path:
    directory.mkdir(parents=True)
    (directory / "pytest.ini").write_text(_INI)
    (directory / "test_bare.py").write_text(BARE_TEST.format(tests=tests))
    return directory


def write_floor(directory: Path, tests: int = TESTS) -> Path:
    """Write the floor suite and record its cassettes with vcrpy against a loopback http.server."""
    import httpx
    import vcr

    directory.mkdir(parents=True)
    cassettes = directory / "cassettes"
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        recorder = vcr.VCR(
            serializer="json", record_mode="all", match_on=("method", "scheme", "host", "port", "path", "query", "body")
        )
        headers = {"content-type": "application/json"}

        def body(i: int, judge: str) -> bytes:
            return json.dumps({"capture": i, "judge": judge, "prompt": f"score capture {i}"}).encode()

        async def record_all() -> None:
            async with httpx.AsyncClient(trust_env=False) as client:
                for i in range(tests):
                    with recorder.use_cassette(str(cassettes / f"c{i:04d}.json")):
                        replies = await asyncio.gather(
                            client.post(base + "/v1/messages", content=body(i, "a"), headers=headers),
                            client.post(base + "/v1/chat/completions", content=body(i, "b"), headers=headers),
                        )
                    assert all(reply.status_code == 200 for reply in replies)

        asyncio.run(record_all())
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    recorded = sorted(cassettes.glob("*.json"))
    if len(recorded) != tests:
        raise RuntimeError(f"recorded {len(recorded)} floor cassettes, expected {tests}")
    (directory / "pytest.ini").write_text(_INI)
    (directory / "test_floor.py").write_text(FLOOR_TEST.format(tests=tests, base=base))
    return directory
