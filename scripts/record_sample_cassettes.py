"""Re-record the sample bundle's cassettes against the loopback reference judge.

The sample's optimum.yaml routes Judge A and Judge B to http://127.0.0.1:8765, where this script
starts the reference judge (a deterministic test double, not a real model). Every judge call goes
through the real HTTP path: the provider clients, httpx, retries and vcrpy recording.

    python scripts/record_sample_cassettes.py            # all scorable captures, -n 2
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pytest_ora.testing.server import ReferenceJudge

ROOT = Path(__file__).resolve().parent.parent
PORT = 8765
# The reference judge accepts any non-empty key; these placeholders never leave this machine.
PLACEHOLDER_KEYS = {
    "ANTHROPIC_API_KEY": "reference-judge-placeholder-a",
    "OPENAI_API_KEY": "reference-judge-placeholder-b",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="2", help="pytest-xdist workers (-n)")
    parser.add_argument("--cassettes", type=Path, default=ROOT / "cassettes")
    args = parser.parse_args()
    shutil.rmtree(args.cassettes, ignore_errors=True)
    env = {**os.environ, **PLACEHOLDER_KEYS}
    with ReferenceJudge(port=PORT), tempfile.TemporaryDirectory() as out:
        command = [
            sys.executable,
            "-m",
            "pytest",
            "evals/",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            args.workers,
            "--ora-record",
            "all",
            "--ora-cassettes",
            str(args.cassettes),
            "--ora-out",
            out,
        ]
        result = subprocess.run(command, cwd=ROOT, env=env, check=False)
    files = sorted(args.cassettes.rglob("*.json"))
    size = sum(path.stat().st_size for path in files)
    print(f"{len(files)} cassettes, {size / 1e6:.1f} MB in {args.cassettes}")
    return result.returncode


if __name__ == "__main__":
    raise SystemExit(main())
