"""Statistics a decision can rest on (SPEC section 10): plain functions over arrays, one concept per module.

arrays        ledger rows -> captures x judges x criteria arrays and per-capture overall (the adapter)
agreement     Krippendorff's alpha, exact and within-one agreement, quadratic-weighted kappa
intervals     bootstrap interval of a mean, Wilson interval of a proportion
paired        paired bootstrap, sign-flip permutation p-value, Holm adjustment
hypotheses    seed 003's pre-registered hypotheses and the pilot verdict
disagreements captures and criteria where the judges' spread reaches a threshold
statistics    everything above for one run: the data of stats.json and hypotheses.json
"""
