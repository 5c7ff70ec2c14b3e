"""The report's charts: matplotlib figures from the page data, as inline SVG.

matplotlib is the optional `report` extra: without it `render_charts` returns nothing and the
page says so. Figures are built on `matplotlib.figure.Figure` (no pyplot global state); SVG text
stays text (`svg.fonttype: none`), ids are salted with a constant and prefixed per chart, and the
date is left out, so the same data gives the same bytes.
"""

from __future__ import annotations

import importlib.util
import io
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core.numbers import whole_percent

__all__ = ["CHART_TITLES", "charts_available", "render_charts"]

CHART_TITLES: dict[str, str] = {
    "overall": "Mean overall by configuration",
    "heatmap": "Configurations x criteria (mean)",
    "failures": "Failure rate by configuration",
    "agreement": "Judge-vs-judge agreement per criterion",
    "families": "Mean overall by family",
    "paired": "Paired differences in mean overall",
    "compare": "Head-to-head win rate",
    "hypotheses": "Hypotheses: mean delta against margin",
}
"""Every chart the page can show, in page order; the optional ones appear when their data does."""

_STYLE: dict[str, Any] = {
    "svg.hashsalt": "pytest-ora",
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#9aa3ad",
    "axes.labelcolor": "#29323c",
    "xtick.color": "#4a5561",
    "ytick.color": "#4a5561",
    "axes.grid": True,
    "grid.color": "#e3e7ec",
    "grid.linewidth": 0.8,
    "axes.axisbelow": True,
}
_ACCENT = "#2f6db5"
_MUTED = "#9fb8d6"
_WARN = "#c8553d"
_PALETTE = ("#2f6db5", "#e08a2c", "#3a9a5b", "#c8553d", "#7b5ea7", "#8c6d4f", "#d16ba5", "#6b7b8c")


def charts_available() -> bool:
    """Whether the plotting library (the `report` extra) is installed (found, not imported: importing costs seconds)."""
    try:
        return importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        return False


def _figure(height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(6.4, height), layout="constrained")


def _threshold(axes: Any, data: Mapping[str, Any], axis: str) -> None:
    """The failure threshold as a dashed line, when the rubric fails captures by a threshold."""
    below = data["rubric"]["failure_below"]
    if below is not None:
        line = axes.axvline if axis == "x" else axes.axhline
        line(below, color=_WARN, linestyle="--", linewidth=1)


def _rows_height(rows: int) -> float:
    """Inches for a chart of `rows` rows: roomy for a few configurations, dense for a 10x bundle's 60."""
    return 0.45 * rows + 0.9 if rows <= 12 else 0.2 * rows + 1.5


def _label_size(rows: int) -> float:
    return 9 if rows <= 12 else 7


def _interval(stats: Mapping[str, Any], configuration: str, key: str) -> tuple[float, float] | None:
    entry = stats.get("configurations", {}).get(configuration, {})
    value = entry.get(key)
    return (float(value[0]), float(value[1])) if value else None


def _errors(values: Sequence[float], intervals: Sequence[tuple[float, float] | None]) -> Any:
    if not any(intervals):
        return None
    # A percentile interval need not hold its point estimate; draw what lies beyond it only.
    lows = [max(0.0, value - interval[0]) if interval else 0.0 for value, interval in zip(values, intervals)]
    highs = [max(0.0, interval[1] - value) if interval else 0.0 for value, interval in zip(values, intervals)]
    return [lows, highs]


def _bars(
    names: Sequence[str],
    values: Sequence[float],
    errors: Any,
    color: str,
    label: str,
    gap: float,
    texts: Sequence[str] | None = None,
) -> Any:
    """One horizontal bar per configuration, top to bottom in table order, each labelled with its value."""
    figure = _figure(_rows_height(len(names)))
    axes = figure.add_subplot()
    positions = list(range(len(names)))[::-1]
    axes.barh(positions, values, color=color, height=0.6, xerr=errors, error_kw={"ecolor": "#29323c", "capsize": 3})
    for k, (position, value) in enumerate(zip(positions, values)):
        text = texts[k] if texts is not None else label.format(value)
        axes.text(
            value + gap, position + 0.3 if errors else position, text, va="center", fontsize=_label_size(len(names)) - 1
        )
    axes.set_yticks(positions, names, fontsize=_label_size(len(names)))
    return figure, axes


def _grid(
    data: Mapping[str, Any],
    rows: Sequence[str],
    columns: Sequence[str],
    grid: Sequence[Sequence[float | None]],
    annotate: bool,
    label: str | None = None,
) -> Any:
    """A heatmap on the rubric's scale, one row per configuration."""
    low, high = data["rubric"]["scale"]
    figure = _figure(_rows_height(len(rows)))
    axes = figure.add_subplot()
    axes.grid(False)
    image = axes.imshow(
        [[value if value is not None else float("nan") for value in row] for row in grid],
        cmap="RdYlGn",
        vmin=low,
        vmax=high,
        aspect="auto",
    )
    for y, row in enumerate(grid if annotate else ()):
        for x, value in enumerate(row):
            if value is not None:
                shade = (value - low) / (high - low)
                axes.text(
                    x,
                    y,
                    f"{value:.1f}",
                    ha="center",
                    va="center",
                    fontsize=_label_size(len(grid)) - 1,
                    color="#ffffff" if shade < 0.2 or shade > 0.85 else "#1d252c",
                )
    axes.set_xticks(range(len(columns)), columns)
    axes.set_yticks(range(len(rows)), rows, fontsize=_label_size(len(rows)))
    axes.tick_params(length=0)
    for spine in axes.spines.values():
        spine.set_visible(False)
    figure.colorbar(image, ax=axes, shrink=0.9, pad=0.02, label=label)
    return figure


def _overall(data: Mapping[str, Any]) -> Any:
    names = [n for n in data["configurations"] if data["means"][n]["overall"] is not None]
    if not names:
        return None
    values = [data["means"][n]["overall"] for n in names]
    stats = data.get("statistics", {})
    errors = _errors(values, [_interval(stats, n, "overall_interval") for n in names])
    low, high = data["rubric"]["scale"]
    # A rubric may put overall on a wider scale than its criteria (0-100 over 1-10 criteria).
    reach = max([high, *values, *(v + e for v, e in zip(values, errors[1]))] if errors else [high, *values])
    figure, axes = _bars(names, values, errors, _ACCENT, "{:.2f}", reach * 0.01)
    _threshold(axes, data, "x")
    axes.set_xlim(min(low, 0.0), reach * 1.08 if reach > high else high)
    axes.set_xlabel("mean overall" + (" (95% t interval)" if errors else ""))
    axes.grid(axis="y", visible=False)
    return figure


def _heatmap(data: Mapping[str, Any]) -> Any:
    names = [n for n in data["configurations"] if data["means"][n]["overall"] is not None]
    if not names:
        return None
    criteria = data["rubric"]["criteria"]
    columns = ["overall", *criteria]
    grid = [[data["means"][n]["overall"], *(data["means"][n]["criteria"][c] for c in criteria)] for n in names]
    return _grid(data, names, columns, grid, annotate=True)


def _failures(data: Mapping[str, Any]) -> Any:
    names = [n for n in data["configurations"] if data["means"][n]["failure_rate"] is not None]
    if not names:
        return None
    values = [100 * data["means"][n]["failure_rate"] for n in names]
    stats = data.get("statistics", {})
    intervals = [_interval(stats, n, "failure_interval") for n in names]
    scaled = [(100 * i[0], 100 * i[1]) if i else None for i in intervals]
    errors = _errors(values, scaled)
    # Labelled as the summary table rounds (half away from zero: 18 of 80 is 23%, never 22%).
    texts = [whole_percent(data["means"][n]["failure_rate"]) for n in names]
    figure, axes = _bars(names, values, errors, _WARN, "{:.0f}%", 1.0, texts)
    axes.set_xlim(0, 100)
    axes.set_xlabel(f"% of scored captures failing ({data['rubric']['failure']})" + (" (95% Wilson)" if errors else ""))
    axes.grid(axis="y", visible=False)
    return figure


def _agreement(data: Mapping[str, Any]) -> Any:
    stats = data.get("statistics", {}).get("agreement")
    if stats:
        keys = [k for k in (*data["rubric"]["criteria"], "overall") if k in stats]
        series = [
            (label, [stats[k].get(field) for k in keys])
            for field, label in (
                ("alpha", "Krippendorff's alpha"),
                ("kappa", "weighted kappa"),
                ("within_one", "within one step"),
            )
        ]
        ylabel, bottom = "agreement", min([0.0, *(v for _, vs in series for v in vs if v is not None)])
    else:
        agreement = data["agreement"]
        keys = [k for k in data["rubric"]["criteria"] if k in agreement]
        series = [
            ("exact", [agreement[k]["exact"] for k in keys]),
            ("within 1 point", [agreement[k]["within_one"] for k in keys]),
        ]
        ylabel, bottom = "share of scored captures", 0.0
    series = [(label, values) for label, values in series if any(v is not None for v in values)]
    if not keys or not series:
        return None
    figure = _figure(2.6)
    axes = figure.add_subplot()
    width = 0.8 / len(series)
    for index, (label, values) in enumerate(series):
        offsets = [x + (index - (len(series) - 1) / 2) * width for x in range(len(keys))]
        axes.bar(offsets, [v if v is not None else 0 for v in values], width=width, label=label, color=_PALETTE[index])
    axes.set_xticks(range(len(keys)), keys)
    axes.set_ylim(bottom, 1.0)
    axes.set_ylabel(ylabel)
    axes.legend(frameon=False, fontsize=8, ncols=len(series), loc="lower center", bbox_to_anchor=(0.5, 1.0))
    axes.grid(axis="x", visible=False)
    return figure


def _families(data: Mapping[str, Any]) -> Any:
    families = list(data["by_family"])
    if not families:
        return None
    names = data["configurations"]
    if len(names) > len(_PALETTE):
        return _families_grid(data, families, names)
    figure = _figure(2.8)
    axes = figure.add_subplot()
    width = 0.8 / max(1, len(names))
    for index, name in enumerate(names):
        values = [data["by_family"][f].get(name, {}).get("overall", 0.0) for f in families]
        offsets = [x + (index - (len(names) - 1) / 2) * width for x in range(len(families))]
        axes.bar(offsets, values, width=width, label=name, color=_PALETTE[index % len(_PALETTE)])
    axes.set_xticks(range(len(families)), families)
    low, high = data["rubric"]["scale"]
    reach = max(high, *(cell["overall"] for f in families for cell in data["by_family"][f].values()))
    axes.set_ylim(min(low, 0.0), reach * 1.08 if reach > high else high)
    _threshold(axes, data, "y")
    axes.set_ylabel("mean overall")
    axes.legend(frameon=False, fontsize=8, ncols=min(6, len(names)), loc="lower center", bbox_to_anchor=(0.5, 1.0))
    axes.grid(axis="x", visible=False)
    return figure


def _families_grid(data: Mapping[str, Any], families: Sequence[str], names: Sequence[str]) -> Any:
    """Too many configurations for grouped bars: configurations x families as a heatmap."""
    grid = [[data["by_family"][f].get(n, {}).get("overall") for f in families] for n in names]
    return _grid(data, names, families, grid, annotate=False, label="mean overall")


def _forest(
    labels: Sequence[str],
    values: Sequence[float],
    intervals: Sequence[Sequence[float] | None],
    reference: float,
    xlabel: str,
    marks: Sequence[float] | None = None,
) -> Any:
    figure = _figure(0.32 * len(labels) + 0.9)
    axes = figure.add_subplot()
    positions = list(range(len(labels)))[::-1]
    for position, value, interval in zip(positions, values, intervals):
        if interval:
            axes.plot(
                [interval[0], interval[1]], [position, position], color=_MUTED, linewidth=3, solid_capstyle="round"
            )
        axes.plot([value], [position], "o", color=_ACCENT, markersize=5)
    if marks:
        axes.plot(marks, positions, "|", color=_WARN, markersize=12, markeredgewidth=2)
    axes.axvline(reference, color="#29323c", linewidth=0.8)
    axes.set_yticks(positions, labels)
    axes.set_xlabel(xlabel)
    axes.grid(axis="y", visible=False)
    return figure


def _paired(data: Mapping[str, Any]) -> Any:
    pairs = data.get("statistics", {}).get("paired")
    if not pairs:
        return None
    return _forest(
        [f"{p['a']} - {p['b']}" for p in pairs],
        [p["mean_difference"] for p in pairs],
        [p.get("interval") for p in pairs],
        0.0,
        "mean difference of overall (95% paired t interval)",
    )


def _compare(data: Mapping[str, Any]) -> Any:
    pairs = data.get("compare")
    if not pairs:
        return None
    return _forest(
        [f"{p['a']} vs {p['b']}" for p in pairs],
        [p["win_rate"] for p in pairs],
        [p.get("interval") for p in pairs],
        0.5,
        "win rate of the first (tie = half; 95% Wilson)",
    )


def _hypotheses(data: Mapping[str, Any]) -> Any:
    rows = data.get("statistics", {}).get("hypotheses", {}).get("rows")
    if not rows:
        return None
    return _forest(
        [f"{r['id']}: {r['better']} > {r['worse']}" for r in rows],
        [r["mean_delta"] for r in rows],
        [r.get("interval") for r in rows],
        0.0,
        "mean delta of overall (| margin)",
        [r["margin"] for r in rows],
    )


_BUILDERS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "overall": _overall,
    "heatmap": _heatmap,
    "failures": _failures,
    "agreement": _agreement,
    "families": _families,
    "paired": _paired,
    "compare": _compare,
    "hypotheses": _hypotheses,
}


def _svg(figure: Any, name: str) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)  # RDF boilerplate, not the chart
    # Several SVGs share one document: give each its own id namespace.
    text = re.sub(r'(id="|url\(#|href="#)', rf"\g<1>ora-{name}-", text)
    return re.sub(
        r'<svg ([^>]*?)width="[^"]*" height="[^"]*"',
        rf'<svg \1role="img" aria-label="{CHART_TITLES[name]}"',
        text,
        count=1,
    )


def render_charts(data: Mapping[str, Any]) -> dict[str, str]:
    """Chart name -> inline SVG, for each chart the data supports; empty without matplotlib."""
    if not charts_available():
        return {}
    import matplotlib

    charts = {}
    with matplotlib.rc_context(_STYLE):  # type: ignore[arg-type]  # keys checked by matplotlib at runtime
        for name, build in _BUILDERS.items():
            figure = build(data)
            if figure is not None:
                charts[name] = _svg(figure, name)
    return charts
