"""The reports: ledger and summary tables, the methodology note, the output directory."""
