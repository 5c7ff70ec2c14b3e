"""`python -m pytest_ora init DIR`: a runnable eval suite of one's own, optionally imported from JSONL or CSV.

DIR gets bundle/ (bundle.yaml naming its rubric and panel, optimum.yaml with the judges' roles,
captures.jsonl, a starter rubric.yaml unless --rubric names one), pytest.ini (every path relative
to it), a test module, reference.ini (the same suite judged by the loopback reference judge, with
cassettes and results of its own) and a README. Nothing is written when any input row is bad:
every bad row is listed with its file, line and column.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..core.models import MAX_CONFIGURATIONS
from ..core.rubric import RubricError
from ..core.safewrite import write_files
from ..method.kinds import calls_judges
from ..method.rubric import builtin_ids, get_rubric, load_rubric
from ..method.rubric_file import digest_of
from .importrows import _FAMILY_COLUMNS, InitError, Row, _slug, _slug_ok, import_rows, name_changes
from .initcandidates import candidates_yaml, parse_candidate

__all__ = [
    "DEFAULT_JUDGES",
    "InitError",
    "JudgeRole",
    "Row",
    "import_rows",
    "init_suite",
    "name_changes",
    "parse_judge",
]

REFERENCE_PORT = 8765
DEFAULT_JUDGES = ("judge-a=anthropic:claude-opus-4-7", "judge-b=openai:gpt-5.4")
_ROUTES = {
    "anthropic": "https://api.anthropic.com/v1/messages",
    "openai": "https://api.openai.com/v1/chat/completions",
    "google": "https://generativelanguage.googleapis.com/v1beta/models/{model}:generateContent",
}
_REFERENCE_PATHS = {
    "anthropic": "/v1/messages",
    "openai": "/v1/chat/completions",
    "openai-compatible": "/v1/chat/completions",
    "google": "/v1beta/models/{model}:generateContent",
}


@dataclass(frozen=True)
class JudgeRole:
    """One judge role of optimum.yaml from --judges ROLE=PROVIDER:MODEL[@ROUTE]."""

    role: str
    provider: str
    model: str
    route: str


def parse_judge(text: str) -> JudgeRole:
    """ROLE=PROVIDER:MODEL, or ROLE=openai-compatible:MODEL@ROUTE (any Chat Completions endpoint)."""
    role, sep, rest = text.partition("=")
    provider, colon, model = rest.partition(":")
    model, at, route = model.partition("@")
    if not sep or not colon or not role or not model or not _slug_ok(role):
        raise InitError(
            [
                f"--judges {text!r}: takes ROLE=PROVIDER:MODEL (ROLE a slug such as judge-a), "
                "e.g. judge-a=anthropic:claude-opus-4-7"
            ]
        )
    if provider not in (*_ROUTES, "openai-compatible"):
        raise InitError(
            [f"--judges {text!r}: unknown provider {provider!r}; known: anthropic, openai, google, openai-compatible"]
        )
    if not at:
        if provider == "openai-compatible":
            raise InitError(
                [f"--judges {text!r}: openai-compatible needs its endpoint: ROLE=openai-compatible:MODEL@URL"]
            )
        route = _ROUTES[provider].format(model=model)
    return JudgeRole(role, provider, model, route)


# --- the suite ------------------------------------------------------------------------------------

_STARTER_RUBRIC: dict[str, Any] = {
    "rubric": "my-eval-1.0",
    "title": "Starter rubric: accuracy, reasoning, completeness on 1-10",
    "kind": "scores",
    "scale": {"min": 1, "max": 10, "step": 1},
    "task": (
        "You are an impartial judge. Score the ANSWER to the PROMPT on each criterion below, using the "
        "REFERENCE answer (when the packet has one) as what a good answer covers."
    ),
    "criteria": [
        {
            "name": "accuracy",
            "title": "Accuracy",
            "weight": "0.4",
            "question": "Is every claim correct, and does the answer cover the points the reference (or the prompt) calls for?",
        },
        {
            "name": "reasoning",
            "title": "Reasoning",
            "weight": "0.3",
            "question": "Does the answer explain why, with its steps in order?",
        },
        {
            "name": "completeness",
            "title": "Completeness",
            "weight": "0.3",
            "question": "Does the answer address the whole prompt, leaving nothing needed out?",
        },
    ],
    "cap": None,
    "failure": {"below": 5.0},
    "panel_size": 2,
    "blind": True,
    "requires_spec": False,
}


def _starter_rubric_text(today: str) -> str:
    data = dict(_STARTER_RUBRIC)
    digest = digest_of(data)
    data["history"] = [{"version": data["rubric"], "date": today, "change": "initial definition", "digest": digest}]
    head = (
        "# Your rubric: edit the criteria, weights, scale and failure rule. Any change is a new version:\n"
        "# change `rubric:` (my-eval-1.1), add a history line, and put the new digest in it:\n"
        "#     python -m pytest_ora rubric digest bundle/rubric.yaml\n"
        "# A change the judges do not see (weights, cap, failure, verdicts, votes) rescores the recorded\n"
        "# replies offline, at no cost; a change they see (criteria, questions, scale) needs re-recording.\n"
        "# blind: true (the default here): the judges never see which configuration or model wrote an answer;\n"
        "# the answers go as written (one that names itself is reported). blind: strict also replaces such\n"
        "# names in the texts by [withheld]; blind: false shows the judges each answer's configuration.\n"
    )
    return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


_EXAMPLE = [
    (
        "capital-of-australia",
        "What is the capital of Australia, and why is it not Sydney?",
        "Canberra is the capital of Australia. It was chosen as a compromise between Sydney and Melbourne, because "
        "neither would accept the other as capital, and it was purpose-built for the role.",
        {
            "baseline": "Sydney.",
            "candidate": "The capital is Canberra, not Sydney. Because Sydney and Melbourne were rivals, the founders "
            "built Canberra between them as a compromise; Parliament moved there in 1927.",
        },
    ),
    (
        "boil-an-egg",
        "How long should I boil an egg for a runny yolk, and why does timing matter?",
        "About six minutes in boiling water gives a set white and a runny yolk; timing matters because the yolk sets "
        "at a higher temperature than the white, so a few extra minutes make it firm.",
        {
            "baseline": "Boil it for a while.",
            "candidate": "Lower the egg into boiling water for about six minutes, then cool it. Timing matters because "
            "the white sets before the yolk: past seven or eight minutes the yolk turns firm.",
        },
    ),
]


def _example_rows() -> list[Row]:
    rows = []
    for ident, prompt, reference, answers in _EXAMPLE:
        for configuration, answer in answers.items():
            rows.append(
                Row(
                    0,
                    {
                        "entry_key": f"eval:{ident}",
                        "configuration": configuration,
                        "prompt": prompt,
                        "answer": answer,
                        "reference": reference,
                    },
                )
            )
    return rows


# C901: every refusal comes before anything is written, in the order the user is told.
def init_suite(  # noqa: C901
    directory: Path,
    rubric: str | None = None,
    source: Path | None = None,
    judges: tuple[str, ...] = (),
    today: str | None = None,
    say: Callable[[str], None] | None = None,
    candidates: tuple[str, ...] = (),
) -> list[Path]:
    """Write the suite; the files written. InitError (nothing written) for any problem. `say` hears, a line
    each, every name that had to change at import (also written at the top of bundle.yaml)."""
    today = today or dt.date.today().isoformat()
    if os.path.lexists(directory) and not directory.is_dir():
        raise InitError([f"{directory}: is not a directory; give a new or existing directory for the suite"])
    if directory.is_dir():
        # lexists: a dangling symbolic link named README.md is taken too (exists() calls it absent)
        taken = [
            name
            for name in ("bundle", "pytest.ini", "test_eval.py", "README.md", "reference.ini")
            if os.path.lexists(directory / name)
        ]
        if taken:
            raise InitError(
                [f"{directory}: already holds {', '.join(taken)}; choose a new directory (init never overwrites)"]
            )
    roles = [parse_judge(text) for text in (judges or DEFAULT_JUDGES)]
    names = [role.role for role in roles]
    if len(set(names)) != len(names):
        raise InitError([f"--judges: role names must differ, got {', '.join(names)}"])
    answering = [parse_candidate(text, set(names)) for text in candidates]
    repeated = sorted({c.name for c in answering if [d.name for d in answering].count(c.name) > 1})
    if repeated:
        raise InitError([f"--candidates: {', '.join(repeated)} given twice; each candidate is one configuration"])
    pairwise = None
    if source is not None:  # pairwise rows (answer_1, answer_2): harness/pairwise_rows.py
        from .pairwise_rows import PAIRWISE_RUBRIC, is_pairwise, pairwise_import

        if is_pairwise(source):
            pairwise = pairwise_import(source)
            rubric = rubric or PAIRWISE_RUBRIC
            kind = _kind(rubric)
            if kind != "compare":
                raise InitError(
                    [
                        f"--rubric {rubric}: kind {kind}; pairwise rows need a kind: compare rubric "
                        f"(the built-in {PAIRWISE_RUBRIC} is the default)"
                    ]
                )
    rubric_ref, rubric_file, panel_size = _rubric_choice(rubric, today)
    if panel_size != len(roles):
        raise InitError([f"rubric {rubric_ref} needs {panel_size} judges (panel_size); --judges gave {len(roles)}"])
    rows = (
        pairwise.rows
        if pairwise is not None
        else import_rows(source, prompts=bool(answering))
        if source is not None
        else _example_rows()
    )
    prompts = _prompts(rows) if answering else []
    rows = [row for row in rows if not row.entry]
    configurations = list(dict.fromkeys(row.capture["configuration"] for row in rows))
    clash = [c.name for c in answering if c.name in configurations]
    if clash:
        raise InitError(
            [
                f"--candidates: {', '.join(clash)} already answer in {source}; a candidate configuration's "
                "answers are made in the run: name it otherwise"
            ]
        )
    configurations += [c.name for c in answering]
    if len(configurations) > MAX_CONFIGURATIONS:  # what intake would refuse, refused before anything is written
        raise InitError(
            [f"{source}: names {len(configurations)} configurations; a bundle lists at most {MAX_CONFIGURATIONS}"]
        )
    folded: dict[str, str] = {}
    for configuration in configurations:
        other = folded.setdefault(configuration.casefold(), configuration)
        if other != configuration:
            raise InitError(
                [
                    f"{source}: column configuration: {other!r} and {configuration!r} differ only in case; "
                    "give them names that differ in letters"
                ]
            )
    changes = name_changes(rows)
    families = [column for column in _FAMILY_COLUMNS if any(row.family_from == column for row in rows)]
    bundle_id = _slug(directory.resolve().name) or "my-eval"
    files: dict[str, str] = {
        "bundle/bundle.yaml": _bundle_yaml(bundle_id, today, configurations, rubric_ref, names, source, changes),
        "bundle/optimum.yaml": _optimum_yaml(roles + [parse_judge(c.judge_text) for c in answering if c.judge_text]),
        "bundle/captures.jsonl": "".join(json.dumps(row.capture, ensure_ascii=False) + "\n" for row in rows),
        "bundle/entries.jsonl": "".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in prompts),
        "pytest.ini": _PYTEST_INI,
        "reference.ini": _reference_ini(roles),
        "test_eval.py": _TEST_MODULE,
        "README.md": _readme(directory.name, bundle_id, len(rows), configurations, rubric_ref, roles),
        ".gitignore": _gitignore(directory / ".gitignore"),
    }
    if rubric_file is not None:
        if f"bundle/{rubric_ref}" in files:
            raise InitError(
                [
                    f"--rubric {rubric}: a rubric file named {rubric_ref} would replace the suite's own "
                    f"bundle/{rubric_ref}; copy it under another name (such as rubric.yaml) and name that"
                ]
            )
        files[f"bundle/{rubric_ref}"] = rubric_file
    if answering:
        files["bundle/bundle.yaml"] += candidates_yaml(answering)
    if not prompts:
        del files["bundle/entries.jsonl"]
    if not rows:
        del files["bundle/captures.jsonl"]  # every answer is made in the run
    if say is not None:
        for column in families:
            say(f"families: from column {column} (entry keys are <{column}>:<id>)")
        for change in changes:
            say(f"name changed to fit the bundle's format: {change}")
    if pairwise is None and rubric is not None and _kind(rubric) == "compare":
        # Answers of several configurations judged with a compare rubric: every pair compared, in table order.
        from .pairwise_rows import readme_gate

        if len(configurations) < 2:
            raise InitError(
                [
                    f"--rubric {rubric}: a compare rubric compares two configurations; "
                    f"{source or 'the rows'} names {len(configurations)}"
                ]
            )
        pairs = [[a, b] for i, a in enumerate(configurations) for b in configurations[i + 1 :]]
        files["bundle/bundle.yaml"] += (
            f"compare: {json.dumps(pairs)}   # first vs second, both orders "
            "(every pair of the configurations, in table order)\n"
        )
        files["README.md"] = re.sub(
            r"5\. CI gate:.*?\n\n(?=Results:)", lambda _: readme_gate(False) + "\n", files["README.md"], flags=re.S
        )
        if say is not None:
            say(
                f"compare: {len(pairs)} pair{'s' if len(pairs) != 1 else ''} of configurations, "
                + "; ".join(f"{a} vs {b}" for a, b in pairs[:3])
                + ("; ..." if len(pairs) > 3 else "")
            )
    if pairwise is not None:
        from .pairwise_rows import labels_text, readme_gate

        files["bundle/bundle.yaml"] += (
            f"compare: [{json.dumps(list(pairwise.pair))}]   # first vs second, both orders\n"
        )
        if pairwise.labels:
            files["bundle/bundle.yaml"] += "labels: labels.jsonl   # preference labels from the rows' winner column\n"
            files["bundle/labels.jsonl"] = labels_text(pairwise.labels)
        files["README.md"] = re.sub(
            r"5\. CI gate:.*?\n\n(?=Results:)",
            lambda _: readme_gate(bool(pairwise.labels)) + "\n",
            files["README.md"],
            flags=re.S,
        )
    try:
        return write_files(directory, files, replace={".gitignore"})
    except OSError as error:
        reason = str(error) if error.strerror is None else f"{error.filename or directory}: {error.strerror}"
        raise InitError([f"{reason}; nothing written"]) from None


def _prompts(rows: list[Row]) -> list[dict[str, Any]]:
    """entries.jsonl's lines: the prompt rows, and each answered row's prompt (once per entry) the candidates answer too."""
    entries: dict[str, dict[str, Any]] = {}
    for row in rows:
        key = row.capture["entry_key"]
        if key not in entries:
            entries[key] = {
                name: row.capture[name]
                for name in ("entry_key", "prompt", "context", "reference", "metadata")
                if name in row.capture and (row.entry or name != "metadata")
            }
    return list(entries.values())


GITIGNORE_LINES = ("ora-results/", "ora-results-reference/")
"""What init keeps out of version control; appended to a .gitignore already there, never over it."""


def _kind(rubric: str) -> str:
    """The kind of a built-in rubric id or a rubric file (already read once by _rubric_choice)."""
    return (get_rubric(rubric) if rubric in builtin_ids() else load_rubric(Path(rubric))).kind


def _gitignore(path: Path) -> str:
    """.gitignore's text: the user's own (kept as it is) with any missing line of GITIGNORE_LINES appended."""
    try:
        own = path.read_text(encoding="utf-8") if path.is_file() and not path.is_symlink() else ""
    except (OSError, UnicodeDecodeError) as error:
        raise InitError([f"{path}: cannot be read to append to it ({error})"]) from None
    missing = [line for line in GITIGNORE_LINES if line not in own.splitlines()]
    if own and not own.endswith("\n") and missing:
        own += "\n"
    return own + "".join(f"{line}\n" for line in missing)


def _rubric_choice(rubric: str | None, today: str) -> tuple[str, str | None, int]:
    """(what bundle.yaml's rubric: says, the file to write under bundle/ or None, the panel size)."""
    if rubric is None:
        return "rubric.yaml", _starter_rubric_text(today), int(_STARTER_RUBRIC["panel_size"])
    if rubric in builtin_ids():
        found = get_rubric(rubric)
        _judged(rubric, found.kind)
        return rubric, None, found.panel_size
    path = Path(rubric)
    try:
        found = load_rubric(path)
    except RubricError as error:
        raise InitError([str(error)]) from None
    _judged(rubric, found.kind)
    return path.name, path.read_text(encoding="utf-8"), found.panel_size


def _judged(rubric: str, kind: str) -> None:
    """init makes judged suites: a kind that grades without judges (scorecard, python, advisory) is refused."""
    if not calls_judges(kind):
        raise InitError(
            [f"--rubric {rubric}: kind {kind} grades captures' evidence without judges; init makes judged suites"]
        )


def _bundle_yaml(
    bundle: str,
    today: str,
    configurations: list[str],
    rubric: str,
    panel: list[str],
    source: Path | None,
    changes: list[str],
) -> str:
    origin = f"imported from {source.name}" if source is not None else "an example to replace with your own captures"
    renamed = "".join(f"#   {change}\n" for change in changes)
    if renamed:  # names are kept as given; these are the ones the format could not take
        renamed = "# Names changed at import to fit the bundle's format (column: as given -> as used):\n" + renamed
    return (
        f"# Made by python -m pytest_ora init ({origin}).\n"
        f"{renamed}"
        f"bundle: {bundle}\n"
        f"created: {today}\n"
        f"configurations: {json.dumps(configurations)}   # the table's rows, in this order\n"
        f"rubric: {json.dumps(rubric, ensure_ascii=False)}\n"
        f"panel: {json.dumps(panel)}   # roles of optimum.yaml: Judge A, Judge B, ...\n"
    )


def _optimum_yaml(roles: list[JudgeRole]) -> str:
    lines = [
        "# The judges. Keys come from the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY,",
        "# OPENROUTER_API_KEY by provider; api_key_env: NAME for another), never from this file.",
        "roles:",
    ]
    # JSON strings are YAML scalars: a model id holding ` #`, `: ` or a quote is read back as given.
    lines += [
        f"  {r.role}: {{model: {json.dumps(r.model)}, provider: {r.provider}, route: {json.dumps(r.route)}}}"
        for r in roles
    ]
    return "\n".join(lines) + "\n"


def _reference_ini(roles: list[JudgeRole]) -> str:
    base = f"http://127.0.0.1:{REFERENCE_PORT}"
    substitutes = " ".join(
        f"--ora-substitute {r.role}={r.provider}:{r.model}@{base}{_REFERENCE_PATHS[r.provider].format(model=r.model)}"
        for r in roles
    )
    return (
        "# The same suite judged by pytest-ora's reference judge (a deterministic test double on this machine):\n"
        f"#     python -m pytest_ora.testing --port {REFERENCE_PORT} &\n"
        "#     pytest -c reference.ini --ora-record once\n"
        "# Its recordings and results are kept apart from the real judges' (cassettes-reference/, ora-results-reference/).\n"
        "[pytest]\n"
        "ora_bundle = bundle\n"
        "ora_cassettes = cassettes-reference\n"
        "ora_out = ora-results-reference\n"
        f"addopts = {substitutes} --ora-panel-label reference-judge\n"
    )


_PYTEST_INI = """\
# A pytest-ora eval suite (python -m pytest_ora init). Paths are relative to this file, so the
# same command from any subdirectory reads and writes the same places.
[pytest]
ora_bundle = bundle
ora_cassettes = cassettes
ora_out = ora-results
"""

_TEST_MODULE = '''\
"""One test per capture of bundle/: both judges score it; the ledger and tables land in ora-results/."""

from __future__ import annotations

from typing import Any

from pytest_ora import PlannedCapture


def test_capture(ora_capture: PlannedCapture, ora: Any) -> None:
    ora.skip_unless_scorable(ora_capture)
    ora.record(ora.judge(ora_capture))
'''


def _readme(name: str, bundle: str, count: int, configurations: list[str], rubric: str, roles: list[JudgeRole]) -> str:
    keys = sorted({_key(r.provider) for r in roles})
    placeholders = " ".join(f"{key}=reference-judge-key" for key in keys)
    exports = " ".join(f"{key}=..." for key in keys)
    listed = ", ".join(configurations)
    judges = ", ".join(f"{r.role} ({r.provider} {r.model})" for r in roles)
    return f"""# {bundle}: an eval suite for pytest-ora

{count} captures, configurations {listed}, rubric `{rubric}`, judges {judges}.

Run every command from this directory (or name it: `pytest {name}/ ...` from its parent).

1. Dry run: every packet built, tokens and cost estimated, nothing sent:

       pytest --ora-dry-run

2. Try it without API keys, against pytest-ora's reference judge (a deterministic test double that
   scores from the answers' own text; its scores are not a model's, and every report says so; it
   takes any key of 12 characters or more, so never give it a real one):

       python -m pytest_ora.testing --port {REFERENCE_PORT} &
       {placeholders} pytest -c reference.ini --ora-record once

3. Live, with the real judges (pays for each judge call once; recorded into cassettes/):

       {exports} pytest --ora-record once -n 8

4. Replay: offline, free, byte-identical tables (commit cassettes/ so CI can do the same):

       pytest -n 8
       pytest -k candidate            # one configuration

5. CI gate: exit 1 (and a failed `ora-gate::--ora-fail-under` testcase in JUnit) when a configuration's
   mean overall is below 6:

       pytest --ora-fail-under 6 --junitxml=ora-junit.xml

Results: ora-results/summary.md, report.html, ledger.jsonl, methodology.md.

Edit bundle/captures.jsonl (one capture a line) and bundle/{rubric if rubric.endswith(".yaml") else "bundle.yaml"}; a rubric change is a
new version (see the comment at the top of the rubric file).
"""


def _key(provider: str) -> str:
    from ..judges.providers import DEFAULT_KEY_ENV

    return DEFAULT_KEY_ENV[provider]
