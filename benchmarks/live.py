"""Live judging against the loopback reference judge with a fixed latency per call.

The judge runs as its own process (`python -m pytest_ora.testing.server --port 0 --latency S`),
so its handler threads never share a GIL with pytest or with the benchmark.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import yaml

PLACEHOLDER_KEYS = {"ANTHROPIC_API_KEY": "ora-benchmark-placeholder-a", "OPENAI_API_KEY": "ora-benchmark-placeholder-b"}
"""The reference judge accepts any non-empty key; these never leave the machine."""

_ROUTE = re.compile(r"^\s+(anthropic|openai|openai-compatible|google)\s+(http://\S+)$")


class JudgeServer:
    """The reference judge in a child process; stop() ends that process (and only that one)."""

    def __init__(
        self,
        latency: float,
        rpm: float | None = None,
        port: int = 0,
        batch_delay: float = 0.5,
        rate_headers: bool = True,
    ) -> None:
        self.latency = latency
        self.rate_headers = rate_headers
        self.batch_delay = batch_delay
        self.rpm = rpm
        self.port = port
        self.routes: dict[str, str] = {}
        self.closing: list[str] = []
        """What the server printed after the routes (its call and rate-limit counts, when stopped)."""
        self._process: subprocess.Popen[str] | None = None

    def start(self) -> JudgeServer:
        command = [
            sys.executable,
            "-m",
            "pytest_ora.testing.server",
            "--port",
            str(self.port),
            "--latency",
            str(self.latency),
        ]
        if self.rpm is not None:
            command += ["--rpm", str(self.rpm)]
            if not self.rate_headers:
                command += ["--rate-headers", "none"]
        command += ["--batch-delay", str(self.batch_delay)]
        self._process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True
        )
        assert self._process.stdout is not None
        lines: list[str] = []
        timer = threading.Timer(30, self.stop)  # a judge that never prints its routes is stopped
        timer.start()
        try:
            for line in self._process.stdout:
                lines.append(line)
                match = _ROUTE.match(line.rstrip("\n"))
                if match:
                    self.routes[match.group(1)] = match.group(2)
                if len(self.routes) == 4:
                    break
        finally:
            timer.cancel()
        if len(self.routes) < 4:
            self.stop()
            raise RuntimeError("the reference judge did not start: " + "".join(lines))
        # Keep draining stdout so the child can never block on a full pipe.
        self._drain = threading.Thread(target=self._read_rest, args=(self._process.stdout,), daemon=True)
        self._drain.start()
        return self

    def _read_rest(self, stream: Any) -> None:
        for line in stream:
            self.closing.append(line.rstrip("\n"))

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGINT)  # the CLI stops serving cleanly on KeyboardInterrupt
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        drain = getattr(self, "_drain", None)
        if drain is not None:
            drain.join(timeout=5)

    def __enter__(self) -> JudgeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def point_bundle_at(bundle: Path, server: JudgeServer) -> None:
    """Route big-1 (Anthropic) and big-2 (OpenAI) of the bundle's optimum.yaml to the server."""
    path = bundle / "optimum.yaml"
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    for role in ("big-1", "big-2"):
        spec = data["roles"][role]
        spec["route"] = server.routes[spec["provider"]]
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def judged_ids(bundle: Path, count: int) -> list[str]:
    """The first `count` captures of the bundle that intake sends to the judges, spread over families."""
    from pytest_ora.bundle.intake import intake

    judged = [planned.capture.capture_id for planned in intake(bundle).captures if planned.status == "judge"]
    if count > len(judged):
        raise ValueError(f"asked for {count} judged captures, the bundle has {len(judged)}")
    step = len(judged) / count
    return [judged[int(i * step)] for i in range(count)]


def environment(base: dict[str, str]) -> dict[str, str]:
    """`base` with placeholder keys and the loopback judge reached directly; bytecode caches kept, as
    Python keeps them for a user (without them every process compiles every module again)."""
    kept = {key: value for key, value in base.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {**kept, **PLACEHOLDER_KEYS, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
