"""The core every room speaks: plan, records, usage, numbers, vocabulary, errors. It imports no other room."""
