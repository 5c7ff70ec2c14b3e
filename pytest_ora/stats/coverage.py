"""The measured coverage of the t interval on skewed, lumpy 0-10 scores, as methodology.md prints it.

The figures are a seeded simulation (`tests/unit/stats/test_coverage.py` recomputes them and fails when they
differ): for each population and n, `TRIALS` samples of n scores, the 95% Student t interval of
each sample's mean, and the share of intervals that hold the population's mean. A sample whose n
scores are all equal gets no interval (none is shown then) and is counted apart.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SEED", "SKEWED", "SKEWED_COVERAGE", "TRIALS", "Coverage", "Population"]

SEED = 20_261_206
TRIALS = 100_000


@dataclass(frozen=True)
class Population:
    """Whole-point scores on 0-10 and their probabilities."""

    name: str
    scores: tuple[int, ...]
    weights: tuple[float, ...]


SKEWED = (
    Population(
        "lumpy, skewed toward the top (skewness -1.06)",
        (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
        (0.02, 0.01, 0.02, 0.03, 0.05, 0.07, 0.12, 0.18, 0.22, 0.18, 0.10),
    ),
    Population(
        "mostly 8-10 with a few failures (skewness -2.75)", (0, 1, 2, 8, 9, 10), (0.05, 0.02, 0.01, 0.12, 0.35, 0.45)
    ),
)
"""The skewed populations: the first is the one the coverage band is asserted on from 20 units;
the second, harder, shows where the t interval falls short even at 20 units."""


@dataclass(frozen=True)
class Coverage:
    """One cell: population, n, the share of shown intervals holding the mean, its Monte Carlo error."""

    population: str
    n: int
    coverage: float
    mc_error: float
    """One Monte Carlo standard error of `coverage`."""
    none: float
    """Share of samples with every score equal, where no interval is shown."""


SKEWED_COVERAGE = (
    Coverage("lumpy, skewed toward the top (skewness -1.06)", 3, 0.9570, 0.0006, 0.0259),
    Coverage("lumpy, skewed toward the top (skewness -1.06)", 5, 0.9234, 0.0008, 0.0010),
    Coverage("lumpy, skewed toward the top (skewness -1.06)", 10, 0.9302, 0.0008, 0.0000),
    Coverage("lumpy, skewed toward the top (skewness -1.06)", 15, 0.9335, 0.0008, 0.0000),
    Coverage("lumpy, skewed toward the top (skewness -1.06)", 20, 0.9370, 0.0008, 0.0000),
    Coverage("mostly 8-10 with a few failures (skewness -2.75)", 3, 0.9997, 0.0001, 0.1365),
    Coverage("mostly 8-10 with a few failures (skewness -2.75)", 5, 0.7257, 0.0014, 0.0230),
    Coverage("mostly 8-10 with a few failures (skewness -2.75)", 10, 0.6753, 0.0015, 0.0003),
    Coverage("mostly 8-10 with a few failures (skewness -2.75)", 15, 0.7331, 0.0014, 0.0000),
    Coverage("mostly 8-10 with a few failures (skewness -2.75)", 20, 0.8123, 0.0012, 0.0000),
)
"""The t interval's measured coverage below 20 units (and at 20) on SKEWED, as methodology.md prints it."""
