"""The intake protocol (the Ora judging method): what gets judged, what is excluded or unscorable, and by whom.

Nothing here calls a judge. Every problem in a bundle is collected and raised together, so one
run shows the whole list.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

from ..core.bundle import Bundle, CaptureLine
from ..core.errors import IntakeError, Problem, show_value
from ..core.models import REQUIRED_ENTRIES, Capture, RoleSpec, default_collisions, default_scored_set
from ..core.paths import BundlePathError, inside
from ..core.plan import DEFAULT_PANEL, JudgeSlot, Panel, Plan, PlannedCapture, Substitution
from ..core.rubric import Rubric, RubricError
from ..core.vocabulary import IMAGE_TYPES, key_env_allowed
from ..method.kinds import bundle_problems, calls_judges, item_shape, material_of
from ..method.rubric import DEFAULT_RUBRIC, get_rubric, resolve_rubric
from .design import check_design
from .hypotheses import check_hypotheses
from .read import read_bundle
from .secrets import file_secret, secret_reason

__all__ = [
    "IMAGE_LIMIT_BYTES",
    "RESERVED_NAMES",
    "intake",
    "parse_substitution",
]

IMAGE_LIMIT_BYTES = 5 * 1024 * 1024
"""The smallest per-image limit among the providers (Anthropic: 5 MB)."""
RESERVED_NAMES = frozenset({"skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings"})
"""Configuration names become pytest markers, so pytest's own markers are not available."""


def parse_substitution(text: str, roles: dict[str, RoleSpec]) -> Substitution:
    """SLOT=ROLE (another role of optimum.yaml) or SLOT=provider:model@route."""
    slot, sep, target = text.partition("=")
    if not sep or not slot or not target:
        raise ValueError(
            f"--ora-substitute takes SLOT=ROLE or SLOT=provider:model@route (SLOT a panel role), got {text!r}"
        )
    if "@" not in target:
        if target not in roles:
            raise ValueError(f"--ora-substitute names role {target!r}, which optimum.yaml does not define")
        return Substitution(slot, target, roles[target])
    head, _, route = target.partition("@")
    provider, _, model = head.partition(":")
    return Substitution(slot, None, RoleSpec(model=model, provider=provider, route=route))  # type: ignore[arg-type]


def intake(
    root: Path,
    substitutions: tuple[Substitution, ...] = (),
    panel_label: str | None = None,
    rubric_option: tuple[str, Path] | None = None,
    compare: tuple[tuple[str, str], ...] = (),
    key_envs: tuple[str, ...] = (),
) -> Plan:
    """Read and check a bundle; raise IntakeError with every problem found.

    `rubric_option` is --ora-rubric / ini ora_rubric and the directory its path is relative to.
    """
    problems: list[Problem] = []
    bundle = read_bundle(root, problems)
    if bundle is None:
        raise IntakeError(problems)
    rubric = _rubric(bundle, rubric_option, problems)
    if rubric is None:
        raise IntakeError(problems)
    before = len(problems)
    families = _families(bundle, rubric, problems)
    default_only = len(problems) > before  # problems that only the Ora judging method's rubric (the default) raises
    panel = _panel(bundle, rubric, substitutions, panel_label, problems)
    _check_key_envs(panel, key_envs, problems)
    _check_thinking(panel, problems)
    _check_configurations(bundle, families, problems)
    check_hypotheses(bundle.root, bundle.manifest, rubric, problems)
    check_design(bundle.root, bundle.manifest, [item.capture for item in bundle.captures], problems)
    _check_duplicates(bundle, problems)
    collisions = _collisions(bundle, rubric)
    losers = _collision_losers(bundle, collisions)
    entries = _scored_entries(bundle, losers, families)
    before = len(problems)
    _check_scored_set(bundle, rubric, entries, collisions, problems)
    _check_default_rubric_fields(bundle, rubric, problems)
    default_only = default_only or len(problems) > before
    files: dict[str, str | None] = {}  # spec and artifact texts, read once for the secret scan
    where = _Resolved(bundle.root)  # a technique's captures share its spec: resolved once
    planned = [_plan_capture(where, rubric, item, losers, collisions, problems, files) for item in bundle.captures]
    if default_only and bundle.manifest.rubric is None and rubric_option is None:
        problems.append(_default_rubric_hint())
    if problems or panel is None:
        raise IntakeError(problems)
    order = {name: index for index, name in enumerate(bundle.manifest.configurations)}
    planned.sort(key=lambda p: (families.index(p.capture.family), p.capture.technique, order[p.capture.configuration]))
    pairs = compare or tuple((a, b) for a, b in bundle.manifest.compare or ()) or rubric.compare
    planned = item_shape(rubric.kind).items(planned, pairs, bundle.manifest.configurations, problems)
    bundle_problems(
        rubric, bundle.root, problems
    )  # a kind that reads its own bundle file checks it here (kind advisory)
    if problems:
        raise IntakeError(problems)
    return Plan(
        bundle=bundle,
        rubric=rubric,
        panel=panel,
        captures=tuple(planned),
        entries=entries,
        collision_losers=tuple(sorted(losers)),
        lanes_missing=_lanes_missing(bundle, entries),
        lanes=item_shape(rubric.kind).lanes(bundle.manifest.configurations, pairs),
    )


def _rubric(bundle: Bundle, option: tuple[str, Path] | None, problems: list[Problem]) -> Rubric | None:
    """--ora-rubric (ini ora_rubric), else bundle.yaml `rubric:`, else ora-1.0."""
    named = bundle.manifest.rubric
    try:
        if option is not None:
            return resolve_rubric(*option)
        if named is None:
            return get_rubric(DEFAULT_RUBRIC)
        try:
            inside(bundle.root, named)  # a rubric file is resolved like every path the bundle names
        except BundlePathError as error:
            problems.append(
                Problem(
                    "bundle.yaml",
                    str(error),
                    field="rubric",
                    value=show_value(named),
                    fix="name a built-in rubric or a file under the bundle directory",
                )
            )
            return None
        return resolve_rubric(named, bundle.root)
    except RubricError as error:
        where = "bundle.yaml" if error.where == "rubric" and option is None else error.where
        field = "rubric" if error.where == "rubric" else None
        problems.append(Problem(where, error.detail, field=field))
        return None


def _default_rubric_hint() -> Problem:
    """A bundle that names no rubric is held to the Ora judging method's: say so, since its checks may be why it failed."""
    return Problem(
        "bundle.yaml",
        f"names no rubric, so {DEFAULT_RUBRIC} (the Ora judging method: families mode, visual, lens, its scored_set, "
        "acceptance on every capture) was used by default",
        field="rubric",
        fix="choose another with `rubric: ID` in bundle.yaml or --ora-rubric ID|PATH (python -m pytest_ora rubric list)",
    )


def _check_default_rubric_fields(bundle: Bundle, rubric: Rubric, problems: list[Problem]) -> None:
    """ora-1.0 (the Ora judging method) needs every capture's acceptance gate and the Optimum snapshot's identity."""
    if rubric.version != DEFAULT_RUBRIC:
        return
    for name in ("snapshot", "frozen_at"):
        if getattr(bundle.optimum, name) is None:
            problems.append(
                Problem(
                    "optimum.yaml",
                    f"is required by rubric {DEFAULT_RUBRIC} (the frozen Optimum snapshot)",
                    field=name,
                    fix="add it, or choose another rubric in bundle.yaml",
                )
            )
    for item in bundle.captures:
        if "acceptance" not in item.capture.model_fields_set:
            problems.append(
                Problem(
                    "captures.jsonl",
                    f"is required by rubric {DEFAULT_RUBRIC} (the Ora judging method's acceptance gate)",
                    line=item.line,
                    capture_id=item.capture.capture_id,
                    field="acceptance",
                    fix='add "acceptance": {"passed": true, "reason": null, "notes": ""}, or choose another rubric',
                )
            )


def _families(bundle: Bundle, rubric: Rubric, problems: list[Problem]) -> list[str]:
    """The families in table order: the rubric's closed list, else as they first appear, sorted."""
    present = sorted({item.capture.family for item in bundle.captures})
    if rubric.families is None:
        return present
    allowed = (
        ", ".join(rubric.families[:-1]) + f" or {rubric.families[-1]}"
        if len(rubric.families) > 1
        else rubric.families[0]
    )
    for item in bundle.captures:
        if item.capture.family not in rubric.families:
            problems.append(
                Problem(
                    "captures.jsonl",
                    f"must be family:technique with family {allowed} (rubric {rubric.version})",
                    line=item.line,
                    capture_id=item.capture.capture_id,
                    field="entry_key",
                    value=show_value(item.capture.entry_key),
                )
            )
    return list(rubric.families) + [family for family in present if family not in rubric.families]


def _check_key_envs(panel: Panel | None, allowed: tuple[str, ...], problems: list[Problem]) -> None:
    """Refuse, before any request (the reachability check included), a judge key read from a variable that is no key's."""
    for judge in panel.judges if panel is not None else ():
        for field, name in (("api_key_env", judge.spec.api_key_env), ("api_token_env", judge.spec.api_token_env)):
            if name is not None and not key_env_allowed(name, allowed):
                problems.append(
                    Problem(
                        "optimum.yaml",
                        "names an environment variable that is not an API key's: its value would be sent as "
                        f"{judge.label}'s key to the role's route",
                        field=f"roles.{judge.role}.{field}",
                        value=show_value(name),
                        fix="name a variable ending in _API_KEY, or allow this one with --ora-key-env NAME (ini ora_key_env)",
                    )
                )
        if judge.spec.api_token_env is not None and judge.spec.provider not in ("azure-openai", "vertex"):
            problems.append(
                Problem(
                    "optimum.yaml",
                    f"is for azure-openai and vertex roles only, not {judge.spec.provider}",
                    field=f"roles.{judge.role}.api_token_env",
                    value=show_value(judge.spec.api_token_env),
                    fix="remove it, or use api_key_env for this provider's key",
                )
            )


def _check_thinking(panel: Panel | None, problems: list[Problem]) -> None:
    """Extended thinking is Claude's: a thinking_budget on another model would be sent where it is refused."""
    for judge in panel.judges if panel is not None else ():
        spec = judge.spec
        if spec.thinking_budget is None:
            continue
        claude = "claude" in spec.model and spec.provider in ("anthropic", "vertex", "bedrock")
        if not claude:
            problems.append(
                Problem(
                    "optimum.yaml",
                    f"is Claude's extended thinking: not for {spec.provider} model {spec.model}",
                    field=f"roles.{judge.role}.thinking_budget",
                    value=show_value(str(spec.thinking_budget)),
                    fix="remove it, or give it to a Claude role (provider anthropic, or Claude on vertex or bedrock)",
                )
            )


def _collisions(bundle: Bundle, rubric: Rubric) -> dict[str, str]:
    """bundle.yaml collisions; the Ora judging method's defaults only with a rubric of closed families (ora-1.0)."""
    if bundle.manifest.collisions is not None:
        return dict(bundle.manifest.collisions)
    return dict(default_collisions()) if rubric.families is not None else {}


def _panel(
    bundle: Bundle, rubric: Rubric, substitutions: tuple[Substitution, ...], label: str | None, problems: list[Problem]
) -> Panel | None:
    if not calls_judges(rubric.kind):
        return Panel((), f"none (rubric kind {rubric.kind} calls no judge)")
    roles = bundle.optimum.roles
    panel = tuple(bundle.manifest.panel or DEFAULT_PANEL)
    if len(panel) != rubric.panel_size:
        problems.append(
            Problem(
                "bundle.yaml",
                f"names {len(panel)} judges but rubric {rubric.version} needs panel_size {rubric.panel_size}",
                field="panel",
                value=show_value(list(panel)),
                fix=f"list {rubric.panel_size} roles of optimum.yaml under panel",
            )
        )
        return None
    for sub in substitutions:
        if sub.slot not in panel:
            problems.append(
                Problem(
                    "--ora-substitute",
                    f"names slot {sub.slot!r}, which is not a panel role",
                    fix=f"use one of {', '.join(panel)}",
                )
            )
    by_slot = {sub.slot: sub for sub in substitutions}
    judges: list[JudgeSlot] = []
    for index, slot in enumerate(panel):
        title = f"Judge {chr(ord('A') + index)}"
        if slot in by_slot:
            sub = by_slot[slot]
            judges.append(JudgeSlot(title, slot, sub.role or f"substitute-{slot}", sub.spec, substituted=True))
        elif slot in roles:
            judges.append(JudgeSlot(title, slot, slot, roles[slot]))
        else:
            problems.append(
                Problem(
                    "optimum.yaml",
                    f"defines no role {slot!r}, so {title} cannot be selected",
                    field=f"roles.{slot}",
                    fix=f"roles defined: {', '.join(sorted(roles)) or 'none'}; name one of them in bundle.yaml's panel, "
                    "restore the frozen Optimum snapshot, or substitute explicitly with "
                    f"--ora-substitute {slot}=... and --ora-panel-label",
                )
            )
    if len(judges) != len(panel):
        return None
    locked = rubric.panel_models
    for judge in judges:
        if locked is not None and not judge.substituted and judge.spec.model not in locked:
            problems.append(
                Problem(
                    "optimum.yaml",
                    f"role {judge.slot!r} ({judge.label}) is model {judge.spec.model!r}, not one of rubric "
                    f"{rubric.version}'s locked panel ({', '.join(locked)}): another model is a judge substitution",
                    field=f"roles.{judge.slot}.model",
                    fix=f"restore the locked model, or substitute explicitly with --ora-substitute {judge.slot}=... and "
                    "--ora-panel-label (recorded as a different judging panel)",
                )
            )
    default = "Optimum Big 1 / Big 2" if panel == DEFAULT_PANEL else "Optimum " + " / ".join(panel)
    return Panel(tuple(judges), label or default)


def _check_configurations(bundle: Bundle, families: list[str], problems: list[Problem]) -> None:
    listed = bundle.manifest.configurations
    known = set(listed)  # a set: 100,000 configurations must not make this quadratic
    for name in listed:
        if name in RESERVED_NAMES or name in families:
            problems.append(
                Problem(
                    "bundle.yaml",
                    "clashes with a pytest marker or family name",
                    field="configurations",
                    value=show_value(name),
                    fix="rename the configuration",
                )
            )
    for item in bundle.captures:
        if item.capture.configuration not in known:
            problems.append(
                Problem(
                    "captures.jsonl",
                    "names a configuration that bundle.yaml does not list",
                    line=item.line,
                    capture_id=item.capture.capture_id,
                    field="configuration",
                    value=show_value(item.capture.configuration),
                    fix=f"use one of {_some(listed)} or add it to bundle.yaml configurations",
                )
            )


def _check_duplicates(bundle: Bundle, problems: list[Problem]) -> None:
    first: dict[str, int] = {}
    for item in bundle.captures:
        capture_id = item.capture.capture_id
        if capture_id in first:
            problems.append(
                Problem(
                    "captures.jsonl",
                    f"repeats the capture id first seen on line {first[capture_id]}",
                    line=item.line,
                    capture_id=capture_id,
                    field="entry_key",
                    fix="keep one capture per entry and configuration",
                )
            )
        else:
            first[capture_id] = item.line


def _collision_losers(bundle: Bundle, collisions: Mapping[str, str]) -> set[str]:
    families: dict[str, set[str]] = defaultdict(set)
    for item in bundle.captures:
        families[item.capture.technique].add(item.capture.family)
    losers: set[str] = set()
    for technique, winner in collisions.items():
        present = families.get(technique, set())
        if winner in present and len(present) > 1:
            losers.update(f"{family}:{technique}" for family in present if family != winner)
    return losers


def _scored_entries(bundle: Bundle, losers: set[str], families: list[str]) -> dict[str, tuple[str, ...]]:
    keys = {item.capture.entry_key for item in bundle.captures} - losers
    return {family: tuple(sorted(k for k in keys if k.startswith(f"{family}:"))) for family in families}


def _check_scored_set(
    bundle: Bundle,
    rubric: Rubric,
    entries: dict[str, tuple[str, ...]],
    collisions: Mapping[str, str],
    problems: list[Problem],
) -> None:
    given = bundle.manifest.scored_set
    if given is None and rubric.families is None:
        return  # other rubrics check the scored set only where the bundle gives one
    expected_set: dict[str, int | list[str]] = {
        str(k): v for k, v in (default_scored_set() if given is None else given).items()
    }
    default = default_scored_set()
    if (
        rubric.families is not None
        and REQUIRED_ENTRIES not in expected_set
        and all(expected_set.get(family) == default[family] for family in rubric.families)
    ):
        expected_set[REQUIRED_ENTRIES] = default[REQUIRED_ENTRIES]  # the Ora method's full set names its two modes
    required = expected_set.pop(REQUIRED_ENTRIES, [])
    absent = (
        [key for key in required if key not in entries.get(key.partition(":")[0], ())]
        if isinstance(required, list)
        else []
    )
    if absent:
        lacks = f"scored set lacks the required {'entry' if len(absent) == 1 else 'entries'} {', '.join(absent)}"
        if given is None or REQUIRED_ENTRIES not in given:
            problems.append(
                Problem(
                    "bundle.yaml",
                    f"{lacks} (the full campaign's scored set names them)",
                    fix="capture the required entries, or declare the scored_set this bundle holds",
                )
            )
        else:
            problems.append(
                Problem(
                    "bundle.yaml",
                    lacks,
                    field=f"scored_set.{REQUIRED_ENTRIES}",
                    fix="capture the required entries, or correct scored_set.required",
                )
            )
    if rubric.families is not None:
        expected_set = {family: expected_set.get(family, 0) for family in rubric.families}
    if given is None:
        _check_default_scored_set(expected_set, entries, problems)
        return
    for family in expected_set:
        expected = expected_set[family]
        found = [key.partition(":")[2] for key in entries.get(family, ())]
        if isinstance(expected, list):
            missing = sorted(set(expected) - set(found))
            extra = sorted(set(found) - set(expected))
            if missing or extra:
                problems.append(_set_problem(family, len(found), len(expected), missing, extra))
        elif len(found) != expected:
            specs = _specs_dir(bundle.root, family)
            losing = {t for t, winner in collisions.items() if winner != family}
            candidates = (p.stem for p in specs.glob("*.md")) if specs is not None else iter(())
            uncaptured = sorted(t for t in candidates if t not in found and t not in losing)
            missing = uncaptured if len(found) < expected else []
            extra = (
                [] if len(found) < expected else ["(name the expected techniques as a list in scored_set to see which)"]
            )
            problems.append(_set_problem(family, len(found), expected, missing, extra))


def _specs_dir(root: Path, family: str) -> Path | None:
    """specs/<family> when it is a directory inside the bundle (a symlink out is never listed)."""
    try:
        path = inside(root, f"specs/{family}")
    except BundlePathError:
        return None
    return path if path.is_dir() else None


def _some(names: list[str], limit: int = 10) -> str:
    """The first names of a list, for a message that must stay short."""
    shown = ", ".join(names[:limit])
    return shown if len(names) <= limit else f"{shown}, ... ({len(names)} in all)"


def _check_default_scored_set(
    expected: dict[str, int | list[str]], entries: dict[str, tuple[str, ...]], problems: list[Problem]
) -> None:
    """A bundle without scored_set is held to the full campaign's: say so, and how to score a smaller set."""
    found = {family: len(entries.get(family, ())) for family in expected}
    if all(found[family] == expected[family] for family in expected):
        return
    counts = ", ".join(f"{found[f]} {f}" for f in expected)
    defaults = ", ".join(f"{expected[f]} {f}" for f in expected)
    yours = ", ".join(f"{f}: {found[f]}" for f in expected)
    problems.append(
        Problem(
            "bundle.yaml",
            f"declares no scored_set, so the full campaign's default applies ({defaults} entries after "
            f"collision resolution); this bundle has {counts}",
            fix=f"to score this smaller set, add to bundle.yaml: scored_set: {{{yours}}}",
        )
    )


def _set_problem(family: str, found: int, expected: int, missing: list[str], extra: list[str]) -> Problem:
    detail = []
    if missing:
        detail.append(f"missing: {', '.join(missing)}")
    if extra:
        detail.append(f"extra: {', '.join(extra)}")
    text = f"scored set has {found} {family} entries after collision resolution, expected {expected}"
    if detail:
        text += f" ({'; '.join(detail)})"
    return Problem("bundle.yaml", text, field=f"scored_set.{family}", fix="complete the bundle or correct scored_set")


class _Resolved:
    """paths.inside(root, relative) for the paths one intake reads, each resolved once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._found: dict[str, Path | str] = {}  # the resolved path, or why it is refused

    def inside(self, relative: str) -> Path:
        found = self._found.get(relative)
        if found is None:
            try:
                found = inside(self.root, relative)
            except BundlePathError as error:
                found = str(error)
            self._found[relative] = found
        if isinstance(found, str):
            raise BundlePathError(found)
        return found


def _plan_capture(
    where: _Resolved,
    rubric: Rubric,
    item: CaptureLine,
    losers: set[str],
    collisions: Mapping[str, str],
    problems: list[Problem],
    files: dict[str, str | None] | None = None,
) -> PlannedCapture:
    capture = item.capture
    root = where.root
    for field, path in (
        ("spec", capture.spec_path),
        ("target", capture.host_spec_path),
        ("visual_artifact", capture.visual_artifact),
    ):
        if path is None:
            continue
        try:
            where.inside(path)
        except BundlePathError as error:
            problems.append(
                Problem(
                    "captures.jsonl",
                    str(error),
                    line=item.line,
                    capture_id=capture.capture_id,
                    field=field,
                    value=show_value(path),
                    fix="use a path to a file inside the bundle directory",
                )
            )
    if capture.entry_key in losers:
        winner = collisions[capture.technique]
        return PlannedCapture(capture, item.line, "excluded", f"collision: {capture.technique} is scored as {winner}")
    if not capture.acceptance.passed:
        reason = capture.acceptance.reason or "unspecified"
        return PlannedCapture(capture, item.line, "excluded", f"invalid capture ({reason}): returned to capture audit")
    material = material_of(rubric.kind)
    lacking = None if material is None else material.capture_problem(capture)
    if lacking is not None:
        field, message = lacking
        problems.append(
            Problem(
                "captures.jsonl",
                message,
                line=item.line,
                capture_id=capture.capture_id,
                field=field,
                fix=f"give every capture the {field} that rubric {rubric.version} (kind {rubric.kind}) judges",
            )
        )
    secret = item.secret or file_secret(capture, root, files)  # the capture's own texts: scanned when read
    if secret is not None:
        return PlannedCapture(capture, item.line, "excluded", secret_reason(*secret))
    unscorable = _unscorable(where, capture, rubric.requires_spec or capture.spec is not None)
    if unscorable:
        return PlannedCapture(capture, item.line, "unscorable", unscorable)
    return PlannedCapture(capture, item.line, "judge")


def _blank(path: Path) -> bool:
    """A file holding only whitespace (one over 1 MiB is never read for this)."""
    return path.stat().st_size <= 1 << 20 and not path.read_bytes().strip()


# C901: a capture's files checked in the order their problems are named (spec, host spec, artifact); split, another could be named first.
def _unscorable(where: _Resolved, capture: Capture, needs_spec: bool) -> str | None:  # noqa: C901
    try:
        spec = where.inside(capture.spec_path)
    except BundlePathError as error:
        return f"specification {capture.spec_path} {error}"
    if needs_spec and not spec.is_file():
        return f"no technique specification at {capture.spec_path}"
    if needs_spec and _blank(spec):
        return f"the technique specification at {capture.spec_path} is empty (a blank specification is a missing one)"
    host = capture.host_spec_path
    if needs_spec and host is not None:  # a lens is judged inside its host mode: both specifications are needed
        try:
            host_file = where.inside(host)
        except BundlePathError as error:
            return f"host mode specification {host} {error}"
        if not host_file.is_file():
            return f"no host mode specification at {host} (the lens's target {capture.target!r})"
        if _blank(host_file):
            return f"the host mode specification at {host} is empty (a blank specification is a missing one)"
    if capture.visual_artifact is None:
        return None
    try:
        artifact = where.inside(capture.visual_artifact)
    except BundlePathError as error:
        return f"visual artifact {capture.visual_artifact} {error}"
    if not artifact.is_file():
        return f"visual artifact {capture.visual_artifact} is missing"
    suffix = artifact.suffix.lower()
    size = artifact.stat().st_size
    if suffix in IMAGE_TYPES:
        if size > IMAGE_LIMIT_BYTES:
            return f"visual artifact {capture.visual_artifact} is {size} bytes, over the 5 MB image limit judges accept"
        try:
            artifact.open("rb").close()  # the packet reads it at judging time: refuse it here, like text
        except OSError as error:
            return f"visual artifact {capture.visual_artifact} cannot be read ({error.strerror})"
        return None
    try:
        artifact.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        return f"visual artifact {capture.visual_artifact} is neither an image nor UTF-8 text (byte {error.start})"
    except OSError as error:
        return f"visual artifact {capture.visual_artifact} cannot be read ({error.strerror})"
    return None


def _lanes_missing(bundle: Bundle, entries: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    lanes: dict[str, set[str]] = defaultdict(set)
    for item in bundle.captures:
        lanes[item.capture.entry_key].add(item.capture.configuration)
    missing: dict[str, tuple[str, ...]] = {}
    for keys in entries.values():
        for key in keys:
            absent = tuple(c for c in bundle.manifest.configurations if c not in lanes[key])
            if absent:
                missing[key] = absent
    return missing
