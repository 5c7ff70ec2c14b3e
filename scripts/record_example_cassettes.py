"""Re-record the example bundles' cassettes (evals/examples/trio, solo, checklist, compare, pilot).

Each example's optimum.yaml routes its judges to a fixed loopback port (trio 8766, solo 8767, checklist 8769, compare 8770,
pilot 8771; the pilot's candidate models too),
where this script starts the reference judge (a deterministic test double, not a real model).
Every judge call goes through the real HTTP path: provider clients, httpx, retries, vcrpy.

    python scripts/record_example_cassettes.py            # both examples
    python scripts/record_example_cassettes.py trio
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
EXAMPLES = {"trio": 8766, "solo": 8767, "checklist": 8769, "compare": 8770, "pilot": 8771}
# The reference judge accepts any non-empty key; these placeholders never leave this machine.
PLACEHOLDER_KEYS = {
    "ANTHROPIC_API_KEY": "reference-judge-placeholder-a",
    "OPENAI_API_KEY": "reference-judge-placeholder-b",
    "MINIMAX_API_KEY": "reference-judge-placeholder-c",
    "QWEN_API_KEY": "reference-judge-placeholder-d",
}


def record(name: str, port: int) -> int:
    suite = ROOT / "evals" / "examples" / name
    cassettes = suite / "cassettes"
    shutil.rmtree(cassettes, ignore_errors=True)
    env = {**os.environ, **PLACEHOLDER_KEYS}
    with ReferenceJudge(port=port), tempfile.TemporaryDirectory() as out:
        command = [
            sys.executable,
            "-m",
            "pytest",
            str(suite),
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            "2",
            "--ora-record",
            "all",
            "--ora-cassettes",
            str(cassettes),
            "--ora-out",
            out,
        ]
        result = subprocess.run(command, cwd=ROOT, env=env, check=False)
    files = sorted(cassettes.rglob("*.json"))
    print(f"{name}: {len(files)} cassettes in {cassettes.relative_to(ROOT)}")
    return result.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", choices=[*EXAMPLES, []], help="examples to record (default: all)")
    args = parser.parse_args()
    codes = [record(name, EXAMPLES[name]) for name in (args.names or EXAMPLES)]
    return max(codes)


if __name__ == "__main__":
    raise SystemExit(main())
