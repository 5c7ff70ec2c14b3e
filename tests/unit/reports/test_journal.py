"""The ledger journal: rows that come fast are written together; none is lost when the journal closes."""

from __future__ import annotations

from pathlib import Path

from pytest_ora.reports import output
from pytest_ora.reports.output import OutputDir


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _journal(path: Path) -> list[str]:
    return (path / "ledger.jsonl").read_text(encoding="utf-8").splitlines()


def test_rows_seconds_apart_are_written_at_once_and_fast_ones_together(tmp_path: Path) -> None:
    out = OutputDir(tmp_path)
    out.claim()
    clock = _Clock()
    out._clock = clock

    out.append('{"row": 1}\n')  # the journal was never written: at once
    assert _journal(tmp_path) == ['{"row": 1}']

    clock.now += output.JOURNAL_SECONDS / 5
    out.append('{"row": 2}\n')
    clock.now += output.JOURNAL_SECONDS / 5
    out.append('{"row": 3}\n')
    assert _journal(tmp_path) == ['{"row": 1}']  # a replay's pace: they wait

    clock.now += output.JOURNAL_SECONDS
    out.append('{"row": 4}\n')  # the first row after the window takes the waiting ones with it
    assert _journal(tmp_path) == ['{"row": 1}', '{"row": 2}', '{"row": 3}', '{"row": 4}']

    clock.now += 2 * output.JOURNAL_SECONDS
    out.append('{"row": 5}\n')  # a live run's pace: each row at once
    assert _journal(tmp_path)[-1] == '{"row": 5}'


def test_rows_waiting_when_the_run_ends_or_stops_are_written(tmp_path: Path) -> None:
    out = OutputDir(tmp_path)
    out.claim()
    out._clock = _Clock()
    for index in range(3):
        out.append(f'{{"row": {index}}}\n')  # the same instant: two of them wait
    assert len(_journal(tmp_path)) == 1

    out.release()  # an interrupted or failed run releases the directory

    assert _journal(tmp_path) == ['{"row": 0}', '{"row": 1}', '{"row": 2}']
