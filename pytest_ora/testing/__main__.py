"""Run the loopback reference judge (a test double): python -m pytest_ora.testing --port 8765."""

from __future__ import annotations

from .server import main

raise SystemExit(main())
