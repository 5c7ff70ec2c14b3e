"""`python -m pytest_ora init DIR`, `judge --mode MODE --data JSON`, `schema capture|reply`,
`rubric list|show ID|digest FILE`, `verify DIR` and `label DIR`."""

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


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser: every command, its arguments and their help (the CLI reference is generated from it)."""
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
    digest.add_argument("file", type=Path, help="a rubric YAML file")
    check = commands.add_parser(
        "verify", help="re-render every report of an --ora-out directory; fail naming any edited by hand"
    )
    check.add_argument("directory", type=Path, help="an --ora-out directory")
    label = commands.add_parser(
        "label", help="write DIR/label.html: a page on which a person scores a sample of the bundle"
    )
    label.add_argument("directory", type=Path, help="a capture bundle (or a suite holding bundle/)")
    label.add_argument(
        "--sample",
        type=int,
        default=50,
        metavar="N",
        help="captures to sample, stratified by configuration (default 50)",
    )
    label.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the sample and its order (default 0)")
    label.add_argument("--rubric", default=None, help="rubric (built-in id or file) instead of the bundle's")
    label.add_argument(
        "--unblind",
        action="store_true",
        help="show each capture's configuration (and, with --results, the judges' scores)",
    )
    label.add_argument(
        "--results", type=Path, default=None, help="an --ora-out directory whose judge scores an --unblind page shows"
    )
    init = commands.add_parser(
        "init", help="write a runnable eval suite of your own (bundle, pytest.ini, test module, README)"
    )
    init.add_argument("directory", type=Path, help="the suite's directory (new, or empty)")
    init.add_argument(
        "--rubric",
        default=None,
        metavar="ID|PATH",
        help="a built-in rubric id or a rubric file (default: a starter rubric.yaml to edit)",
    )
    init.add_argument(
        "--from",
        dest="source",
        type=Path,
        default=None,
        metavar="FILE",
        help="import captures from JSONL or CSV: id (or entry_key), configuration, prompt, answer; "
        "optional context, reference, cost_usd, wall_clock_minutes; other columns kept under metadata; "
        "with --candidates, rows without configuration and answer are prompts the candidates answer",
    )
    init.add_argument(
        "--candidates",
        nargs="+",
        default=(),
        metavar="NAME=PROVIDER:MODEL|NAME=python:module:function",
        help="configurations that answer the prompts inside the run: a model (a role of optimum.yaml) "
        "or a Python function importable from the suite's directory",
    )
    init.add_argument(
        "--judges",
        nargs="+",
        default=(),
        metavar="ROLE=PROVIDER:MODEL",
        help="the judges' roles, panel order (default: judge-a=anthropic:claude-opus-4-7 "
        "judge-b=openai:gpt-5.4); openai-compatible takes ROLE=openai-compatible:MODEL@URL",
    )
    judge = commands.add_parser(
        "judge", help="judge one response (or pair, teams, chain) in a mode of the judge skill; print one JSON result"
    )
    judge.add_argument(
        "--mode",
        required=True,
        help="solo, compare, phase-sm, phase-tea, phase-dev, phase-reviewer, coherence, swebench or ground-truth",
    )
    judge.add_argument(
        "--data",
        required=True,
        metavar="JSON|@FILE",
        help="the mode's data fields as a JSON object, or @FILE holding it",
    )
    judge.add_argument(
        "--judge",
        dest="judges",
        action="append",
        default=[],
        metavar="LABEL=PROVIDER:MODEL",
        help="a judge of the panel (repeatable; default: the rubric's panel_size, one per provider key set); @URL after the model "
        "names its endpoint",
    )
    judge.add_argument(
        "--cassette",
        type=Path,
        default=None,
        metavar="FILE",
        help="record every judge exchange in FILE, replay from it",
    )
    judge.add_argument(
        "--record",
        default="once",
        choices=("none", "once", "all"),
        help="none: replay only; once: record when FILE does not exist (default); all: record again",
    )
    judge.add_argument(
        "--scenarios",
        type=Path,
        default=None,
        metavar="FILE",
        help="swebench and ground-truth: a JSONL file of SWE-bench instances",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "judge":
        return _judge(args)
    if args.command == "init":
        return _init(args)
    if args.command == "verify":
        return _verify(args.directory)
    if args.command == "label":
        return _label(args)
    try:
        if args.command == "schema":
            document = (
                capture_json_schema()
                if args.which == "capture"
                else reply_schema(resolve_rubric(args.rubric, Path.cwd()))
            )
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


def _judge(args: argparse.Namespace) -> int:
    """0 with the result printed; 1 with `success: false` and the reason; 4 on data that cannot be judged."""
    from .core.errors import OraError
    from .harness.judgment.api import DataError, JudgmentFailed, judge, result_json

    try:
        data = _data(args.data)
        result = judge(
            args.mode, data, judges=args.judges, cassette=args.cassette, record=args.record, scenarios=args.scenarios
        )
    except DataError as error:
        sys.stderr.write(f"error: {error}\n")
        return 4
    except JudgmentFailed as failed:
        sys.stdout.write(result_json(failed.failure) + "\n")
        return 1
    except OraError as error:
        sys.stderr.write(f"error: {error}\n")
        return 4
    sys.stdout.write(result_json(result) + "\n")
    return 0


def _data(text: str) -> dict[str, object]:
    """--data as JSON: the text itself, or the file after @."""
    from .harness.judgment.api import DataError

    source = "--data"
    if text.startswith("@"):
        source = text[1:]
        try:
            text = Path(source).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise DataError(f"--data @{source}: {source} does not exist") from None
        except (OSError, UnicodeDecodeError) as error:
            raise DataError(f"--data @{source}: cannot be read ({error})") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise DataError(f"{source}: not JSON ({error})") from None
    if not isinstance(data, dict):
        raise DataError(f"{source}: a JSON object of the mode's data fields, got {type(data).__name__}")
    return data


def _init(args: argparse.Namespace) -> int:
    """0 with the files written and what to run next; 4 with every problem and nothing written."""
    from .harness.scaffold import InitError, init_suite

    own_gitignore = (args.directory / ".gitignore").is_file()
    try:
        written = init_suite(
            args.directory,
            args.rubric,
            args.source,
            tuple(args.judges),
            say=lambda line: print(line),
            candidates=tuple(args.candidates),
        )
    except InitError as error:
        sys.stderr.write(f"error: {error}\n")
        return 4
    for path in written:
        kept = path.name == ".gitignore" and own_gitignore
        sys.stdout.write(f"{'appended to (your lines kept)' if kept else 'wrote'} {path}\n")
    sys.stdout.write(f"next: pytest {args.directory} --ora-dry-run   (then see {args.directory / 'README.md'})\n")
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


def _label(args: argparse.Namespace) -> int:
    """0 with the page written; 4 when the bundle or the options cannot give one."""
    from .core.errors import IntakeError
    from .reports.labelpage import LabelPageError, write_label_page

    if args.sample < 1:
        sys.stderr.write(f"error: --sample takes a positive number of captures, got {args.sample}\n")
        return 4
    try:
        path, count, unit = write_label_page(
            args.directory,
            args.sample,
            args.seed,
            rubric_option=(args.rubric, Path.cwd()) if args.rubric else None,
            blind=not args.unblind,
            results=args.results,
        )
    except (LabelPageError, IntakeError, RubricError) as error:
        sys.stderr.write(f"error: {error}\n")
        return 4
    except OSError as error:
        sys.stderr.write(f"error: {args.directory}: cannot write the page ({error.strerror or error})\n")
        return 4
    sys.stdout.write(
        f"label: {count} {unit} on {path}; open it in a browser, score, download labels.jsonl, "
        "then run with --ora-labels labels.jsonl\n"
    )
    return 0


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
