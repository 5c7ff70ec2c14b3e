"""docs/reference/*.md are what scripts/gen_reference.py generates from the code now: an option, command or output
file added without regenerating (or without its help text) fails here."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import pytest_ora.__main__ as cli
from pytest_ora.harness import options
from pytest_ora.reports import renderers

ROOT = Path(__file__).resolve().parents[2]


def _change_commands(monkeypatch: pytest.MonkeyPatch, change: Callable[[Any], object]) -> None:
    """The CLI's parser as `python -m pytest_ora` builds it, with `change` applied to its subcommands."""
    real = cli.build_parser

    def changed() -> argparse.ArgumentParser:
        parser = real()
        change(next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)))
        return parser

    monkeypatch.setattr(cli, "build_parser", changed)


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_reference", ROOT / "scripts" / "gen_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_reference"] = module
    spec.loader.exec_module(module)
    return module


def test_when_the_pages_are_generated_now_then_the_committed_ones_are_the_same(generator: ModuleType) -> None:
    assert generator.stale() == [], "run: python scripts/gen_reference.py"


def test_when_an_option_is_added_without_regenerating_then_the_options_page_is_stale(
    generator: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(options, "_OPTIONS", (*options._OPTIONS, ("sparkle", "how much the report sparkles", "1")))
    assert generator.stale() == ["options.md"]
    assert "`--ora-sparkle`" in generator.pages()["options.md"]
    assert "`ora_sparkle`" in generator.pages()["options.md"]


def test_when_an_option_has_no_help_text_then_the_generator_refuses(
    generator: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(options, "_OPTIONS", (*options._OPTIONS, ("sparkle", "", "1")))
    with pytest.raises(generator.ReferenceError, match="--ora-sparkle has no help text"):
        generator.pages()


def test_when_a_flag_has_no_help_text_then_the_generator_refuses(generator: ModuleType) -> None:
    parser = pytest.Parser(_ispytest=True)
    options.add_options(parser)
    parser.getgroup("ora").addoption("--ora-glitter", action="store_true", default=False)
    with pytest.raises(generator.ReferenceError, match="--ora-glitter has no help text"):
        generator.options(parser)


def test_when_an_option_is_added_then_its_default_choices_and_ini_key_are_listed(generator: ModuleType) -> None:
    record = next(option for option in generator.options() if option.name == "--ora-record")
    assert (record.default, record.ini) == ("`none`", "`ora_record`")
    assert "`once`" in record.takes and "`all`" in record.takes
    disagreement = next(option for option in generator.options() if option.name == "--ora-disagreement")
    assert disagreement.default == "`30%`"  # argparse's doubled %% is shown as the user types it


def test_when_a_command_argument_has_no_help_text_then_the_generator_refuses(
    generator: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    _change_commands(monkeypatch, lambda sub: sub.choices["verify"].add_argument("--strict"))
    with pytest.raises(generator.ReferenceError, match="`verify` argument strict has no help text"):
        generator.pages()


def test_when_a_command_is_added_without_regenerating_then_the_cli_page_is_stale(
    generator: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    _change_commands(monkeypatch, lambda sub: sub.add_parser("polish", help="polish a report"))
    assert set(generator.stale()) == {"cli.md", "exit-codes.md"}


def test_when_an_output_file_has_no_description_then_the_generator_refuses(
    generator: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(renderers, "ALWAYS_WRITTEN", (*renderers.ALWAYS_WRITTEN, "sparkles.json"))
    with pytest.raises(generator.ReferenceError, match=r"output file sparkles.json has no description"):
        generator.pages()


def test_when_the_check_finds_a_stale_page_then_it_exits_1_naming_it(
    generator: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, text in generator.pages().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "cli.md").write_text("edited by hand\n", encoding="utf-8")
    monkeypatch.setattr(generator, "REFERENCE", tmp_path)
    assert generator.main(["--check"]) == 1
    assert capsys.readouterr().err == "stale: docs/reference/cli.md (run python scripts/gen_reference.py)\n"
    assert generator.main([]) == 0
    assert generator.main(["--check"]) == 0


def test_when_a_ledger_field_has_no_description_then_the_generator_refuses(
    generator: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(generator.FIELD_DOCS, "weighted")
    with pytest.raises(generator.ReferenceError, match="LedgerRow field weighted has no description"):
        generator.pages()
