"""`python -m pytest_ora schema capture|reply`, `rubric list|show ID|digest FILE` and `verify DIR`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from .core.models import capture_json_schema
from .core.rubric import RubricError
from .judges.reply import reply_schema
from .method.rubric import builtin_ids, builtin_text, get_rubric, resolve_rubric
from .method.rubric_file import digest_of
from .reports.verify import VerifyError, verify


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pytest_ora", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    schema = commands.add_parser("schema", help="print a JSON Schema")
    schema.add_argument("which", choices=("capture", "reply"), help="a captures.jsonl line, or a judge reply")
    schema.add_argument("--rubric", default="ora-1.0", help="rubric (built-in id or file) of the reply schema")
    rubric = commands.add_parser("rubric", help="list the built-in rubrics, print one, or a file's digest")
    actions = rubric.add_subparsers(dest="action", required=True)
    actions.add_parser("list", help="the built-in rubrics: id, kind, title, digest")
    show = actions.add_parser("show", help="print a built-in rubric as YAML")
    show.add_argument("id", help="a built-in rubric id")
    digest = actions.add_parser("digest", help="print a rubric file's content digest (for its history line)")
    digest.add_argument("file", type=Path)
    check = commands.add_parser("verify", help="re-render every report of an --ora-out directory; fail naming any edited by hand")
    check.add_argument("directory", type=Path)
    args = parser.parse_args(argv)
    if args.command == "verify":
        return _verify(args.directory)
    try:
        if args.command == "schema":
            document = capture_json_schema() if args.which == "capture" else reply_schema(resolve_rubric(args.rubric, Path.cwd()))
            json.dump(document, sys.stdout, indent=2)
            sys.stdout.write("\n")
        elif args.action == "list":
            for version in builtin_ids():
                found = get_rubric(version)
                sys.stdout.write(f"{version}\t{found.kind}\t{found.title}\t{found.digest}\n")
        elif args.action == "show":
            sys.stdout.write(builtin_text(args.id))
        else:
            sys.stdout.write(f"{_digest(args.file)}\n")
    except RubricError as error:
        sys.stderr.write(f"error: {error}\n")
        return 4
    return 0


def _verify(directory: Path) -> int:
    """0 when every report matches its rendering, 1 naming each that does not, 4 on unreadable data."""
    try:
        matched, edited, unchecked = verify(directory)
    except VerifyError as error:
        sys.stderr.write(f"error: {error}\n")
        return 4
    for line in matched:
        sys.stdout.write(f"verify: ok: {line}\n")
    for name in unchecked:
        sys.stdout.write(f"verify: not checked (no renderer): {name}\n")
    for line in edited:
        sys.stdout.write(f"verify: FAILED: {directory / line}\n")
    if not matched and not edited:
        sys.stderr.write(f"error: {directory}: no report to verify (is it an --ora-out directory?)\n")
        return 4
    return 1 if edited else 0


def _digest(path: Path) -> str:
    """The digest of a file's content, whether or not its history already records it."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise RubricError(str(path), f"cannot read the rubric file ({error})") from None
    if not isinstance(data, dict):
        raise RubricError(str(path), "a rubric file is a YAML mapping (rubric, title, scale, criteria, ...)")
    return digest_of(data)


if __name__ == "__main__":
    raise SystemExit(main())
