"""What the tests share: bundle builders, end-to-end run helpers, SDK request checks, fake keys."""
