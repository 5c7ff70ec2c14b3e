"""Claiming an output directory: the last run's per-capture files leave packets/ and judges/ at once
and are deleted once this run has written its own (reports/output.py, PREVIOUS_DIR)."""

from __future__ import annotations

from pathlib import Path

from pytest_ora.reports.output import PREVIOUS_DIR, OutputDir


def _files(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())


def _last_run(out: Path) -> None:
    for name in ("packets/mode/five-whys/small.json", "judges/mode/five-whys/small.big-1.json"):
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text("{}\n", encoding="utf-8")


def test_the_last_runs_files_leave_at_the_claim_and_are_deleted_at_the_release(tmp_path: Path) -> None:
    _last_run(tmp_path)
    out = OutputDir(tmp_path)

    out.claim()

    # This run's packets/ and judges/ start empty: no file of the last run mixes with its own.
    assert not (tmp_path / "packets").exists() and not (tmp_path / "judges").exists()
    assert _files(tmp_path / PREVIOUS_DIR) == [
        "judges/mode/five-whys/small.big-1.json",
        "packets/mode/five-whys/small.json",
    ]
    (tmp_path / "packets" / "mode").mkdir(parents=True)
    (tmp_path / "packets" / "mode" / "new.json").write_text("{}\n", encoding="utf-8")

    out.release()

    assert not (tmp_path / PREVIOUS_DIR).exists()
    assert _files(tmp_path / "packets") == ["mode/new.json"]


def test_files_set_aside_by_a_run_that_was_killed_are_deleted_at_the_next_claim(tmp_path: Path) -> None:
    stale = tmp_path / PREVIOUS_DIR / "packets" / "lens" / "old.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}\n", encoding="utf-8")
    _last_run(tmp_path)

    OutputDir(tmp_path).claim()

    assert not stale.exists()
    assert _files(tmp_path / PREVIOUS_DIR) == [
        "judges/mode/five-whys/small.big-1.json",
        "packets/mode/five-whys/small.json",
    ]


def test_when_the_files_cannot_be_set_aside_they_are_deleted_at_the_claim(tmp_path: Path) -> None:
    (tmp_path / PREVIOUS_DIR).write_text("not a directory\n", encoding="utf-8")
    _last_run(tmp_path)

    OutputDir(tmp_path).claim()

    assert not (tmp_path / "packets").exists() and not (tmp_path / "judges").exists()


def test_a_symbolic_link_in_place_of_the_set_aside_directory_is_removed_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / PREVIOUS_DIR).symlink_to(outside, target_is_directory=True)
    _last_run(out_dir)
    out = OutputDir(out_dir)

    out.claim()
    out.release()

    assert list(outside.iterdir()) == []
    assert not (out_dir / PREVIOUS_DIR).exists() and not (out_dir / PREVIOUS_DIR).is_symlink()
    assert not (out_dir / "packets").exists()
