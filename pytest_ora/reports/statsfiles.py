"""The statistics' report files: stats.json, disagreements.csv, hypotheses.json and the Markdown sections.

Floats are written with 12 significant digits: the last bits of a sum may differ between numpy
builds, and byte-identical reports must not depend on them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.csvtext import csv_line
from ..core.numbers import whole_percent
from ..method.markdowntable import tabulated
from .fewunits import SMALL_ROWS, TOO_FEW
from .hypothesesdata import HypothesesFile, HypothesisFigures, read_hypotheses_file
from .statsdata import (
    AgreementSection,
    ComparisonRow,
    ConfigurationRow,
    MethodSection,
    PairsSection,
    RecordedCalibrationSection,
    StatsFile,
    UnitsSection,
    read_stats_file,
)

if TYPE_CHECKING:  # the sections render from stats.json alone: verify needs no numpy
    from ..stats.disagreements import Disagreement

__all__ = [
    "INTERVAL_WORDS",
    "SMALL_ROWS",
    "TOO_FEW",
    "bootstrap_only",
    "disagreements_csv",
    "hypotheses_file",
    "hypotheses_markdown",
    "noise_words",
    "p_text",
    "ranking",
    "reading",
    "recorded_calibration_line",
    "shown_interval",
    "stable",
    "stable_json",
    "statistics_markdown",
    "statistics_method",
    "statistics_sections",
    "stats_file",
]

INTERVAL_WORDS = (
    "Each 95% interval of a mean or a mean paired difference is a Student t interval (cluster-robust, on clusters "
    "- 1 degrees of freedom, with clusters), at every number of units: in simulation it holds the truth 95% of the "
    "time on normal data at any n, and 93-95% from about 20 units on bounded, moderately skewed, lumpy scores, "
    "where the BCa bootstrap runs narrow on normal data (about 92% at 20 units); the BCa interval stays in "
    "stats.json as bootstrap_interval. A row "
    'with fewer than 20 units is marked "small n": there a t interval assumes scores that spread evenly, and on '
    "a few scores of a lumpy, skewed scale it holds the truth less often than 95%, so read a small-n row as a "
    "sketch. On scores mostly at the top with a few failures the t interval runs narrow even at 20 units (about "
    "81% in simulation; 94% at 200 units): with such scores an interval over a few dozen units is narrower than it "
    "should be. methodology.md gives the simulated figures. A figure "
    "with no closed-form standard error (Krippendorff's alpha) shows its bootstrap interval only from 20 units; "
    f'below that the table says "{TOO_FEW}". "< 0.0002" is a sign-flip p-value on the '
    "resampling floor 2/(R+1): the true p is smaller, not equal; a Holm value from it is an upper bound "
    '("<="). With every sign pattern enumerated (few units) p cannot go below p min. "Not significant" does '
    "not mean the two are alike: the MDE is the smallest true difference the pair could have detected with 80% "
    "power at the Holm-adjusted level."
)


def shown_interval(row: ConfigurationRow | ComparisonRow | HypothesisFigures) -> Sequence[float] | None:
    """The interval a table shows: the t interval (interval_method t), else, in older files, the BCa bootstrap interval."""
    if row.interval_method == "t":
        return row.t_interval
    if "bootstrap_interval" in row.model_fields_set:
        return row.bootstrap_interval
    return row.mean_overall_interval if isinstance(row, ConfigurationRow) else row.interval


def _method(row: ConfigurationRow | ComparisonRow | HypothesisFigures) -> str:
    name = "t" if row.interval_method == "t" else "BCa"
    return f"{name} (small n)" if row.small_n else name


def bootstrap_only(interval: Sequence[float] | None, units: int, places: int = 3) -> str:
    """A bootstrap-only interval as a table shows it: from SMALL_ROWS units, else TOO_FEW."""
    if units < SMALL_ROWS:
        return TOO_FEW
    return _range(interval, places)


def p_text(value: float | None, floor: bool = False, bound: bool = False, places: int = 4) -> str:
    """A p-value as shown: '< 0.0002' on the resampling floor, '<= x' for a bound, never a floor as a number."""
    if value is None:
        return ""
    if not floor and not bound and value < 10**-places:
        return f"< {10**-places:.{places}f}"  # an analytic p too small for the places shown: never "0.0000"
    if floor:
        return "< " + f"{value:.{places}f}".rstrip("0").rstrip(".") if value >= 10**-places else f"< {value:.1e}"
    return f"<= {value:.{places}f}" if bound else f"{value:.{places}f}"


def reading(row: ComparisonRow, alpha: float, family: int = 1) -> str:
    """A pair's result in words: significant after Holm, or what could not have been detected."""
    adjusted = row.p_holm
    if adjusted is None:
        return "not tested (fewer than two shared units)"
    if adjusted < alpha:
        return "significant (Holm)"
    interval = shown_interval(row)
    if interval is not None and (interval[0] > 0 or interval[1] < 0):
        # The row's interval excludes 0 while the Holm-adjusted sign-flip test does not reject: say both, decide neither.
        return (
            f"interval excludes 0 but the sign-flip test after Holm does not confirm it (p {p_text(adjusted)}): "
            "a likely difference, not established"
        )
    floor = row.p_min
    if floor is not None and floor * max(family, 1) >= alpha:
        # The sign-flip test cannot reach the Holm level at this n: power is nil whatever the t-test says.
        return (
            f"not significant; at {row.units} units the sign-flip p cannot go below {floor:.4g}, "
            "so no difference could have been detected"
        )
    mde = row.mde_80_adjusted
    if mde is None:
        return "not significant; too few units to say what could have been detected"
    return f"not significant; a difference below {mde:.2f} could not have been detected"


def ranking(row: ComparisonRow, alpha: float) -> str:
    """One plain sentence for a comparison: which configuration leads, by how much, and how surely."""
    first, second, difference, n = row.first, row.second, row.mean_difference, row.n
    interval = shown_interval(row)
    if difference is None or interval is None:
        return f"{first} vs {second}: too few shared scored entries ({n}) to rank them."
    where = f"{n} shared entries; 95% interval [{interval[0]:.2f}, {interval[1]:.2f}] for {first} - {second}"
    if difference == 0:
        return f"{first} and {second} tie ({where})."
    leader, other = (first, second) if difference > 0 else (second, first)
    adjusted = row.p_holm
    if adjusted is not None and adjusted < alpha:
        surely = f"a lead the sign-flip test confirms after Holm (p {p_text(adjusted, bound=bool(row.p_holm_bound))})"
    elif interval[0] > 0 or interval[1] < 0:
        surely = (
            "the interval excludes 0 but the sign-flip test after Holm does not confirm it: likely, not established"
        )
    else:
        surely = "the interval includes 0: neither leads surely"
    return f"{leader} leads {other} by {abs(difference):.2f} ({where}); {surely}."


def stable(value: Any) -> Any:
    """Floats to 12 significant digits, non-finite to None, recursively."""
    if isinstance(value, float):
        return float(f"{value:.12g}") if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: stable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [stable(item) for item in value]
    return value


def stable_json(data: dict[str, Any], rubric: str) -> str:
    """A report's JSON text: the rubric first, stable floats, two-space indent."""
    return json.dumps({"rubric": rubric, **stable(data)}, indent=2, ensure_ascii=False) + "\n"


def stats_file(data: Mapping[str, object], rubric: str) -> StatsFile:
    """stats.json's model from the statistics' data: the rubric first, stable floats."""
    return StatsFile.model_validate({"rubric": rubric, **stable(dict(data))})


def hypotheses_file(data: Mapping[str, object], rubric: str) -> HypothesesFile:
    """hypotheses.json's model from the statistics' data: the rubric first, stable floats."""
    return HypothesesFile.model_validate({"rubric": rubric, **stable(dict(data))})


def _number(value: float) -> str:
    return repr(float(f"{value:.12g}"))


def disagreements_csv(rows: Sequence[Disagreement], judges: Sequence[str], rubric: str) -> str:
    """disagreements.csv: capture_id, criterion, each judge's score, spread; widest first."""
    lines = [csv_line(["capture_id", "criterion", *(f"judge_{label.lower()}" for label in judges), "spread", "rubric"])]
    for row in rows:
        scores = ["" if math.isnan(score) else _number(score) for score in row.scores]
        lines.append(csv_line([row.capture_id, row.criterion, *scores, _number(float(row.spread)), rubric]))
    return "".join(lines)


def _fmt(value: float | None, places: int = 3) -> str:
    return "" if value is None else f"{value:.{places}f}"


def _pct(value: float | None) -> str:
    return "" if value is None else whole_percent(value)


def _range(pair: Sequence[float] | None, places: int = 2, scale: float = 1) -> str:
    return "" if pair is None else f"[{pair[0] * scale:.{places}f}, {pair[1] * scale:.{places}f}]"


def _table(rows: list[list[str]], headers: Sequence[str]) -> str:
    return tabulated(rows, headers=headers, tablefmt="github", disable_numparse=True)


def statistics_sections(directory: Path) -> tuple[str, str]:
    """summary.md's and methodology.md's Statistics sections, rendered from stats.json and hypotheses.json."""
    if not (directory / "stats.json").is_file():
        return "", ""
    data = read_stats_file(directory / "stats.json")
    if (directory / "compare.jsonl").is_file():  # a compare run: no score statistics, its calibration only
        from .calibration import calibration_markdown

        calibration = data.calibration
        if not calibration:
            return "", ""
        method = f"\n## Statistics\n\n- Calibration against human preferences ({calibration['source']}): {calibration['method']}\n"
        return calibration_markdown(calibration), method
    path = directory / "hypotheses.json"
    hypotheses = read_hypotheses_file(path) if path.is_file() else None
    return statistics_markdown(data, hypotheses), statistics_method(data, hypotheses)


def statistics_markdown(data: StatsFile, hypotheses: HypothesesFile | None) -> str:
    """summary.md's Statistics section: agreement, intervals, paired comparisons, hypotheses."""
    method = data.method
    agree = data.agreement
    lines = [
        "",
        "## Statistics",
        "",
        f"Seed {method.seed}, {method.resamples:,} resamples, {method.confidence_level:.0%} intervals; "
        "stats.json holds every figure at full precision.",
        "",
        f"### Judge agreement ({agree.captures} scored captures, judges {', '.join(agree.judges)})",
        "",
    ]
    if len(agree.judges) < 2:
        lines += ["Not applicable: agreement needs two or more judges per capture.", ""]
    else:
        lines += _agreement_lines(agree)
    if data.recorded_calibration:
        lines += [recorded_calibration_line(data.recorded_calibration), ""]
    threshold = data.disagreements
    lines += [
        f"Disagreements (spread >= {threshold.threshold:g} points): {threshold.count}, listed in disagreements.csv.",
        "",
    ]
    units = data.units
    clustered = units is not None and units.cluster is not None
    if units is not None:
        lines += [_units_sentence(units), "", INTERVAL_WORDS, ""]
    lines += ["### Mean overall and failure rate by configuration", ""]
    rows = [
        [
            row.configuration,
            str(row.n),
            *([str(row.clusters), _fmt(row.design_effect, 2)] if clustered else []),
            _fmt(row.mean_overall, 2),
            _range(shown_interval(row)),
            *([_method(row)] if data.extended else []),
            _pct(row.failure_rate),
            _range(row.failure_rate_interval, 0, 100),
        ]
        for row in data.configurations
    ]
    headers = [
        "Configuration",
        "n",
        *(["Clusters", "Design effect"] if clustered else []),
        "Mean overall",
        *(["95% interval", "Interval"] if data.extended else ["95% bootstrap"]),
        "Failure rate",
        "95% Wilson (%)",
    ]
    lines += [_table(rows, headers), ""]
    if data.noise:
        lines += [noise_words(data.noise), ""]
    lines += ["### Paired comparisons (first - second, shared scored entries)", ""]
    if data.pairs is not None:
        pairs = data.pairs
        lines += [f"Compared: {pairs.rule}; {pairs.compared} pairs, Holm over {pairs.holm_family}.", ""]
        alpha = float(pairs.alpha)
        rows = [
            [
                row.first,
                row.second,
                str(row.n),
                *([str(row.clusters), _fmt(row.design_effect, 2)] if clustered else []),
                _fmt(row.mean_difference, 2),
                _range(shown_interval(row)),
                _method(row),
                p_text(row.p_value, bool(row.p_floor)),
                _fmt(row.p_min, 4),
                p_text(row.p_holm, bound=bool(row.p_holm_bound)),
                p_text(row.p_t),
                p_text(row.mcnemar_p),
                _fmt(row.mde_80, 2),
                _fmt(row.mde_80_adjusted, 2),
                reading(row, alpha, pairs.holm_family),
            ]
            for row in data.comparisons
        ]
        lines += [
            _table(
                rows,
                [
                    "First",
                    "Second",
                    "n",
                    *(["Clusters", "Design effect"] if clustered else []),
                    "Mean difference",
                    "95% interval",
                    "Interval",
                    "p (sign-flip)",
                    "p min",
                    "p (Holm)",
                    "p (t)",
                    "McNemar p (failures)",
                    "MDE 80%",
                    "MDE 80% (Holm)",
                    "Reading",
                ],
            )
        ]
        lines += [
            "",
            "Ranking, one sentence a comparison:",
            "",
            *(f"- {ranking(row, alpha)}" for row in data.comparisons),
        ]
        lines += _judges_lines(data)
    else:
        rows = [
            [
                row.first,
                row.second,
                str(row.n),
                _fmt(row.mean_difference, 2),
                _range(row.interval),
                _fmt(row.p_value, 4),
                _fmt(row.p_holm, 4),
            ]
            for row in data.comparisons
        ]
        lines += [
            _table(
                rows, ["First", "Second", "n", "Mean difference", "95% paired bootstrap", "p (sign-flip)", "p (Holm)"]
            )
        ]
    if hypotheses is not None:
        lines += ["", hypotheses_markdown(hypotheses)]
    if data.calibration:  # human labels : reports/calibration.py
        from .calibration import calibration_markdown

        lines.append(calibration_markdown(data.calibration).rstrip("\n"))
    return "\n".join(lines) + "\n"


def _pct_text(value: float) -> str:
    """A share as a whole percentage; a share that is not zero never reads 0%, nor one short of all 100%."""
    if 0 < value < 0.005:
        return "under 1%"
    return "over 99%" if 0.995 <= value < 1 else f"{100 * value:.0f}%"


def noise_words(noise: dict[str, Any] | None) -> str:
    """Judge noise in one or two plain sentences: where the variance of overall lies, and what it does to an interval."""
    if not noise:
        return ""
    overall = noise.get("overall") or {}
    shares = overall.get("shares") or {}
    if not overall.get("captures") or shares.get("between_capture") is None:
        return "Judge noise: not estimated (fewer than two captures scored by every judge)."
    samples = int(noise.get("samples") or 1)
    captures = f"{overall['captures']} captures every judge scored"
    if shares.get("within_judge") is not None and shares.get("between_judge") is not None:
        first = (
            f"Judge noise: of the variance of a judge's overall score ({captures}, {samples} samples per judge), "
            f"{_pct_text(shares['between_capture'])} lies between captures, {_pct_text(shares['between_judge'])} "
            "between judges (their leniency and their disagreement about a capture) and "
            f"{_pct_text(shares['within_judge'])} within a judge, from one sample to the next."
        )
    elif shares.get("between_judge") is not None:
        first = (
            f"Judge noise: of the variance of a judge's overall score ({captures}), "
            f"{_pct_text(shares['between_capture'])} lies between captures and {_pct_text(shares['between_judge'])} "
            "between judges; with one judgment per judge a judge's own sample-to-sample noise cannot be told apart "
            "from that (--ora-judge-samples 3 would separate it)."
        )
    else:
        first = (
            f"Judge noise: of the variance of the judge's overall score ({captures}, {samples} samples), "
            f"{_pct_text(shares['between_capture'])} lies between captures and "
            f"{_pct_text(shares.get('within_judge') or 0)} within the judge, from one sample to the next."
        )
    rows = [
        row
        for row in noise.get("configurations") or []
        if row.get("judge_noise_width") is not None and row.get("interval_width")
    ]
    unsplit = [row["configuration"] for row in noise.get("configurations") or [] if row.get("note")]
    if unsplit:
        first += (
            f" For {', '.join(unsplit)} the judges' noise is at least the spread of overall itself: too few "
            "captures to say how much of the interval it makes."
        )
    if not rows:
        return first
    most = max(rows, key=lambda row: row["judge_noise_width"] / row["interval_width"])
    share = most["judge_noise_width"] / most["interval_width"]
    second = (
        f" Judge noise accounts for {_pct_text(share)} of a configuration's interval width at most "
        f"({most['configuration']}: {most['judge_noise_width']:.2f} of {most['interval_width']:.2f} points)"
    )
    projected = most.get("width_with_samples") or {}
    if projected:
        most_k = max(projected, key=int)
        second += f"; with {most_k} samples per judge that interval would be {projected[most_k]:.2f} points wide."
    else:
        second += "."
    return first + second


def _units_sentence(units: UnitsSection) -> str:
    if units.cluster is None:
        return f"Units: the entry ({units.entries} entries); no cluster field named (bundle.yaml `cluster:` or --ora-cluster)."
    return (
        f"Units: clusters of related entries by `{units.cluster}` ({units.clusters} clusters over "
        f"{units.entries} entries); standard errors, intervals and tests are cluster-robust, and the design "
        "effect is the variance of a mean relative to independent entries."
    )


def _judges_lines(data: StatsFile) -> list[str]:
    judges = data.judges or []
    if not judges:
        return []
    lines = ["", "### Judges: each judge's mean overall by configuration (95% t interval)", ""]
    names = [row.configuration for row in judges[0].configurations]
    rows = [
        [
            name,
            *(f"{_fmt(j.configurations[i].mean, 2)} {_range(j.configurations[i].t_interval)}".strip() for j in judges),
        ]
        for i, name in enumerate(names)
    ]
    lines += [_table(rows, ["Configuration", *(f"Judge {j.judge} ({j.model})" for j in judges)])]
    preference = [(j, row) for j in judges for row in j.self_preference]
    lines += [
        "",
        "Self-preference: a judge's overall on a configuration that runs the judge's own model, minus the "
        "other judges' mean on the same captures (95% t interval); flagged when the interval excludes 0.",
        "",
    ]
    if not preference:
        lines += [
            "No judge's model is in a configuration's model_snapshot (or a judge judges alone): nothing to check."
        ]
    else:
        rows = [
            [
                f"{j.judge} ({j.model})",
                row.configuration,
                str(row.n),
                _fmt(row.difference, 2),
                _range(row.t_interval),
                "FLAGGED" if row.flagged else "no",
            ]
            for j, row in preference
        ]
        lines += [_table(rows, ["Judge", "Configuration", "n", "Own - others", "95% t interval", "Self-preference"])]
    return lines


def recorded_calibration_line(recorded: RecordedCalibrationSection) -> str:
    """The run's own agreement beside the rubric's recorded value, n and interval said, and the reading."""
    run, kept = recorded.run, recorded.recorded
    name = {"fleiss_kappa": "Fleiss' kappa"}.get(recorded.statistic, recorded.statistic)
    own = "not computed" if run.value is None else f"{run.value:.3f}"
    interval = run.interval
    within = "no interval" if interval is None else f"95% interval {interval[0]:.3f} to {interval[1]:.3f}"
    return (
        f"Recorded calibration: {name} {kept.value:g} ({kept.date}; {kept.scope}). This run: {own} "
        f"({within}; {run.captures} captures, {run.ratings} ratings of {run.judges} judges). "
        f"{recorded.verdict.capitalize()}: {recorded.reading}."
    )


def _agreement_lines(agree: AgreementSection) -> list[str]:
    every = [*agree.criteria, agree.overall]
    extras = "alpha_interval" in agree.overall.model_fields_set
    rows = [
        [
            row.criterion,
            _fmt(row.krippendorff_alpha),
            *([bootstrap_only(row.alpha_interval, agree.captures)] if extras else []),
            _pct(row.exact),
            _pct(row.within_one),
            _fmt(row.quadratic_kappa),
            *([_fmt(row.alpha_ordinal), _fmt(row.fleiss_kappa), _fmt(row.icc_2k)] if extras else []),
        ]
        for row in every
    ]
    headers = [
        "Criterion",
        "Krippendorff alpha",
        *(["95% bootstrap (captures)"] if extras else []),
        "Exact",
        "Within one step",
        "Quadratic kappa",
        *(["Ordinal alpha", "Fleiss kappa", "ICC(2,k)"] if extras else []),
    ]
    lines = [_table(rows, headers), ""]
    notes: dict[str, list[str]] = {}
    for row in every:
        for note in (row.note or "").split("; "):
            if note:
                notes.setdefault(note, []).append(row.criterion)
    how = {note: names for note, names in notes.items() if note.startswith("alpha in closed form")}  # computed
    missing = {note: names for note, names in notes.items() if note not in how}
    if how:
        lines += ["How computed:", *(f"- {', '.join(names)}: {note}" for note, names in how.items()), ""]
    if missing:
        lines += ["Not computed:", *(f"- {', '.join(names)}: {note}" for note, names in missing.items()), ""]
    return lines


def hypotheses_markdown(data: HypothesesFile) -> str:
    """The hypothesis table and the verdict."""
    extended = any("interval_method" in row.model_fields_set for row in data.hypotheses)
    rows = [
        [
            row.id,
            f"{row.better} {'>=' if row.margin == 0 else '>'} {row.worse}",
            f"{row.margin:g}",
            str(row.n),
            _fmt(row.mean_delta, 2),
            _range(shown_interval(row) if extended else row.interval),
            *([_method(row)] if extended else []),
            f"{row.directional}/{row.n}",
            f"{row.meets_margin}/{row.n}",
        ]
        for row in data.hypotheses
    ]
    lines = [
        "### Hypotheses",
        "",
        _table(
            rows,
            [
                "Id",
                "Claim",
                "Margin",
                "Entries",
                "Mean delta",
                *(["95% interval", "Interval"] if extended else ["95% bootstrap"]),
                "Directional",
                "Meets margin",
            ],
        ),
    ]
    verdict = data.verdict
    if verdict is not None:
        lines += ["", f"Verdict: **{verdict.result}** ({'; '.join(verdict.reasons)})."]
        chance = verdict.null_pass_probability
        if chance is not None:
            lines += [
                "",
                f"By chance: with the configurations' labels shuffled within each entry (nothing differs), "
                f"the rule's count condition passes {chance:.1%} of the time "
                f"({data.method.permutations if data.method is not None else 0:,} seeded permutations; the "
                "critical-vote condition does not depend on the labels).",
            ]
    return "\n".join(lines)


def _coverage_lines(method: MethodSection) -> list[str]:
    """The t interval's simulated coverage on skewed scores below 20 units, as a small table."""
    measured = method.t_coverage_skewed
    if not measured:
        return []
    rows = [
        [
            cell.population,
            str(cell.n),
            f"{100 * cell.coverage:.2f}%",
            f"{100 * cell.mc_error:.2f}",
            f"{100 * cell.none:.1f}%",
        ]
        for cell in measured.cells
    ]
    return [
        "- Coverage of the 95% t interval on skewed 0-10 scores, few units (a seeded simulation of "
        f"{measured.trials:,} samples a cell; the test suite recomputes it): the share of shown intervals holding "
        "the true mean, its Monte Carlo standard error in points, and the share of samples whose scores were all "
        "equal, where no interval is shown. On normal data the t interval holds 95% at every n.",
        "",
        _table(rows, ["Scores", "n", "Coverage", "MC s.e.", "No interval"]),
        "",
    ]


def _extended_method(units: UnitsSection, pairs: PairsSection | None, method: MethodSection) -> list[str]:
    """The extended figures' methods (units, t intervals, pairs, power, judges), in files that hold them."""
    return [
        f"- {_units_sentence(units)}",
        f"- t intervals: {method.t_interval}",
        f"- Small samples: {method.small_n}",
        f"- Pairs compared: {None if pairs is None else pairs.rule}",
        f"- Power: {method.power}",
        f"- Failure flags of a pair: {method.mcnemar}",
        f"- Judges: {method.judges}",
        f"- Agreement extras: {method.agreement_extras}",
        f"- In words: {INTERVAL_WORDS}",
        *_coverage_lines(method),
    ]


def statistics_method(data: StatsFile, hypotheses: HypothesesFile | None) -> str:
    """methodology.md's Statistics section: methods, seed, resamples, libraries."""
    method = data.method
    libraries = ", ".join(f"{name} {ver}" for name, ver in method.libraries.items())
    lines = [
        "",
        "## Statistics",
        f"- Seed: {method.seed} (--ora-seed); resamples: {method.resamples:,}; confidence level: {method.confidence_level:.0%}",
        f"- Agreement: {method.agreement}",
        f"- Mean overall: {method.mean_interval}",
        f"- Failure rate: {method.failure_interval}",
        f"- Paired comparisons: {method.paired}",
        *(_extended_method(data.units, data.pairs, method) if data.units is not None else []),
        *([f"- Judge noise: {method.noise}"] if "noise" in method.model_fields_set else []),
        f"- Disagreements: judges' spread on a criterion >= {data.disagreements.threshold:g} points "
        f"(--ora-disagreement {data.disagreements.given_as})",
    ]
    if hypotheses is not None:
        lines.append(
            "- Hypotheses: per entry delta = overall(better) - overall(worse), compared with the margin exactly; "
            "mean delta with a Student t interval (shown) and a BCa bootstrap interval resampling entries "
            "(bootstrap_interval); null_pass_probability: the share of seeded permutations of the configuration labels "
            "within each entry under which the verdict's count condition passes"
        )
    if data.recorded_calibration:
        recorded = data.recorded_calibration
        lines.append(f"- {recorded_calibration_line(recorded)} Method: {recorded.method}.")
    if data.calibration:
        lines.append(f"- Calibration against human labels ({data.calibration['source']}): {data.calibration['method']}")
    lines += [f"- Libraries: {libraries}", "- Computed in the controller from the ledger rows in bundle order.", ""]
    return "\n".join(lines)
