"""`python -m pytest_ora schema capture|reply`: the JSON Schemas bundle producers and judges use."""

from __future__ import annotations

import argparse
import json
import sys

from .judges.reply import reply_schema
from .method.rubric import get_rubric
from .models import capture_json_schema


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pytest_ora", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    schema = commands.add_parser("schema", help="print a JSON Schema")
    schema.add_argument("which", choices=("capture", "reply"), help="a captures.jsonl line, or a judge reply")
    schema.add_argument("--rubric", default="ora-1.0", help="rubric version of the reply schema")
    args = parser.parse_args(argv)
    document = capture_json_schema() if args.which == "capture" else reply_schema(get_rubric(args.rubric))
    json.dump(document, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
