"""A large run's statistics and page are made in a child process: the same bytes as in-process."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest
from test_statistics_sample import ROOT, judge, recorded_scores

from pytest_ora.bundle.intake import intake
from pytest_ora.core.record import CaptureRecord, RecordStore, base_record
from pytest_ora.reports import output
from pytest_ora.reports.aggregation import ledger_row
from pytest_ora.reports.methodology import RunFacts
from pytest_ora.reports.output import REPORT_FILES, STATS_FILES, OutputDir

pytestmark = pytest.mark.fresh_report  # it replaces how the session end runs in-process: no cached result


def sample_records() -> tuple[object, list[CaptureRecord]]:
    plan = intake(ROOT / "evals" / "bundle")
    records: list[CaptureRecord] = []
    for planned in plan.captures:
        if planned.status != "judge":
            records.append(base_record(planned, planned.status, planned.reason))
            continue
        scores = recorded_scores(planned.capture.capture_id)
        record = base_record(planned, "scored")
        record["judges"] = [judge("A", scores["A"]), judge("B", scores["B"])]
        records.append(record)
    return plan, records


def write(directory: Path, plan: object, records: object) -> None:
    out = OutputDir(directory)
    out.claim()
    try:
        out.write_report(plan, records, RunFacts(scoring_date="2026-06-20", record_mode="none", selected=1185))  # type: ignore[arg-type]
    finally:
        out.release()


def test_the_child_process_writes_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the sample's records, kept as the controller keeps them and in arrival order reversed
    plan, records = sample_records()
    store = RecordStore([planned.capture.capture_id for planned in plan.captures])  # type: ignore[attr-defined]
    for record in reversed(records):
        store.add(record)

    # When one report is made in-process from a plain list and one in a child process from the store
    write(tmp_path / "here", plan, records)
    children = []
    real = output._in_child
    monkeypatch.setattr(output, "CHILD_ROWS", 1)
    monkeypatch.setattr(output, "_in_child", lambda finish: (children.append(finish), real(finish)))
    write(tmp_path / "child", plan, store)

    # Then the child ran, and every report file is the same, byte for byte
    assert len(children) == 1
    names = [*REPORT_FILES, *STATS_FILES[:2], "run.json"]
    match, mismatch, errors = filecmp.cmpfiles(tmp_path / "here", tmp_path / "child", names, shallow=False)
    assert (mismatch, errors) == ([], [])
    assert sorted(match) == sorted(names)


KEPT_AS = pytest.mark.parametrize(
    "decoded_bytes", [RecordStore.DECODED_BYTES, 0, 400_000], ids=["decoded", "compressed", "switching"]
)
"""A store keeps a small run's records as they came and a large run's compressed; one that grows switches."""


@KEPT_AS
def test_a_record_store_reads_back_what_it_kept_in_plan_order(
    decoded_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RecordStore, "DECODED_BYTES", decoded_bytes)
    plan, records = sample_records()
    store = RecordStore([planned.capture.capture_id for planned in plan.captures])  # type: ignore[attr-defined]
    for record in reversed(records):
        store.add(record)
    assert len(store) == len(records)
    assert list(store) == records  # plan order, whatever the arrival order
    compressed = [isinstance(kept, bytes) for kept in store._kept.values()]  # these records' texts: 1.1 MB
    assert all(compressed) if decoded_bytes < 1_000_000 else not any(compressed)
    assert store[0] == records[0] and store[-2:] == records[-2:]
    store.add({**records[0], "capture_id": "extra/one"})
    assert store[-1]["capture_id"] == "extra/one"  # not in the plan: last


@KEPT_AS
def test_a_store_keeps_the_journaled_ledger_lines_and_the_ledger_is_those_lines(
    decoded_bytes: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the records kept with the lines the controller journaled for them, in reversed arrival order
    monkeypatch.setattr(RecordStore, "DECODED_BYTES", decoded_bytes)
    plan, records = sample_records()
    rubric = plan.rubric  # type: ignore[attr-defined]
    store = RecordStore([planned.capture.capture_id for planned in plan.captures])  # type: ignore[attr-defined]
    for record in reversed(records):
        store.add(record, ledger_row(record, rubric).model_dump_json() + "\n")
    lines = store.ledger_lines()
    assert lines is not None

    # When the report is written from the store and from a plain list
    write(tmp_path / "store", plan, store)
    write(tmp_path / "list", plan, records)

    # Then the ledger is the journaled lines in plan order, the bytes the rows built afresh make
    ledger = (tmp_path / "store" / "ledger.jsonl").read_text(encoding="utf-8")
    assert ledger == "".join(lines) == (tmp_path / "list" / "ledger.jsonl").read_text(encoding="utf-8")


def test_a_record_kept_without_its_line_makes_the_ledger_built_afresh() -> None:
    plan, records = sample_records()
    rubric = plan.rubric  # type: ignore[attr-defined]
    store = RecordStore()
    store.add(records[0], ledger_row(records[0], rubric).model_dump_json() + "\n")
    store.add(records[1])
    assert store.ledger_lines() is None
    store.add(records[1], "line\n")
    store.add(records[0])  # kept again without a line: its old line is not the ledger's any more
    assert store.ledger_lines() is None
