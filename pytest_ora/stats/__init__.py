"""Statistics a decision can rest on: plain functions over arrays, one concept per module.

arrays        ledger rows -> captures x judges x criteria arrays and per-capture overall (the adapter)
agreement     Krippendorff's alpha, exact and within-one agreement, quadratic-weighted kappa
intervals     bootstrap interval of a mean, Wilson interval of a proportion
paired        paired bootstrap, sign-flip permutation p-value, Holm adjustment
hypotheses    the pilot's pre-registered hypotheses and the pilot verdict
disagreements captures and criteria where the judges' spread reaches a threshold
statistics    everything above for one run: the data of stats.json and hypotheses.json
clusters      standard errors and t intervals of a mean, cluster-robust with clusters (statsmodels OLS)
resampling    shared seeded bootstrap resamples and sign flips; BCa bounds and p-values by scipy
power         minimum detectable differences (statsmodels TTestPower)
pairs         which configurations are compared (named pairs, a reference, the default rule)
judges        each judge's view of each configuration; self-preference
reliability   bootstrap interval of Krippendorff's alpha over captures
coverage      the t interval's measured coverage on skewed scores below 20 units (a seeded simulation's table)
"""

from __future__ import annotations

import os

# The statistics multiply matrices of a few thousand by a few hundred: OpenBLAS's threads only
# contend there (twice the CPU, on a loaded machine several times the wall time). One thread,
# unless the user chose otherwise or numpy was loaded before (then this has no effect).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
