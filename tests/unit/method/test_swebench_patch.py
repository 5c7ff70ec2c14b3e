"""What the SWE-bench scorers read from a gold patch: locations from definitions only, fix logic from code lines."""

from __future__ import annotations

from pytest_ora.method.swebench.patch import parse_patch
from pytest_ora.method.swebench.scenario import Scenario
from pytest_ora.method.swebench.scorers import ground_truth

# An invented fix: a mixin given empty slots, with a comment that speaks of "this class".
GOLD = "\n".join(
    [
        "diff --git a/kettle/mixins.py b/kettle/mixins.py",
        "--- a/kettle/mixins.py",
        "+++ b/kettle/mixins.py",
        "@@ -8,6 +8,10 @@ class Describable:",
        '     """Adds a readable description to any kettle part."""',
        " ",
        "+    # Since this class is used as a mixin it declares no attribute; without",
        "+    # empty slots every part would carry a __dict__.",
        "+    __slots__ = ()",
        "+",
        "     def describe(self):",
        "         return type(self).__name__",
        "",
    ]
)


def _scenario() -> Scenario:
    return Scenario(
        instance_id="kettle__kettle-7",
        repo="kettle/kettle",
        base_commit="0" * 40,
        patch=GOLD,
        problem_statement="Parts of a kettle have a `__dict__` although `Part` defines `__slots__`.",
        FAIL_TO_PASS=["tests/test_parts.py::test_no_dict"],
    )


def test_when_a_comment_says_this_class_is_then_no_location_named_is_is_read() -> None:
    assert parse_patch(GOLD).locations == ["Describable"]


def test_a_definition_on_a_changed_line_is_a_location() -> None:
    patch = parse_patch(
        "--- a/kettle/boil.py\n+++ b/kettle/boil.py\n@@ -1,2 +1,4 @@\n import time\n+async def boil(water):\n+    return water\n"
    )
    assert patch.locations == ["boil"]


def test_when_a_response_names_no_changed_location_then_a_common_word_earns_no_location_points() -> None:
    response = "The bug is in kettle/mixins.py: it is a missing declaration, which is why parts have a dict."
    scored = ground_truth(_scenario(), response)
    assert scored.component("location_identification") == 0
    assert scored.component("file_identification") == 20


def test_when_the_fix_is_proposed_without_the_gold_comment_then_the_fix_logic_is_whole() -> None:
    response = (
        "The root cause is Describable in kettle/mixins.py: a mixin without slots gives every part a dict.\n\n"
        "```diff\n--- a/kettle/mixins.py\n+++ b/kettle/mixins.py\n@@ -8,3 +8,4 @@ class Describable:\n"
        "+    __slots__ = ()\n```\n"
    )
    scored = ground_truth(_scenario(), response)
    assert scored.component("fix_logic_match") == 40
    assert scored.checks["fix_logic_match"]["gold_lines"].seen.startswith("1 of 1 gold added lines proposed exactly")


def test_a_patch_that_adds_only_comments_is_matched_on_its_comments() -> None:
    only = "--- a/kettle/a.py\n+++ b/kettle/a.py\n@@ -1,1 +1,2 @@\n x = 1\n+# kept for old readers\n"
    assert parse_patch(only).added_code == ["# kept for old readers"]


def test_when_a_diff_changes_another_file_then_its_lines_earn_no_fix_logic_however_alike() -> None:
    response = (
        "The root cause is in kettle/parts.py.\n\n"
        "```diff\n--- a/kettle/parts.py\n+++ b/kettle/parts.py\n@@ -3,3 +3,3 @@ class Part:\n"
        "-    __slots__ = ('name',)\n+    __slots__ = ('name', 'size')\n```\n"
    )
    scored = ground_truth(_scenario(), response)
    assert scored.component("fix_logic_match") == 0
    assert scored.checks["fix_logic_match"]["gold_lines"].seen == "no proposed code in a file the gold patch changes"
    assert scored.component("completeness") == 15  # a code change was proposed, and a causal statement made


def test_a_diff_of_the_same_file_name_under_another_root_counts() -> None:
    response = (
        "```diff\n--- a/src/kettle/mixins.py\n+++ b/src/kettle/mixins.py\n@@ -8,3 +8,4 @@\n+    __slots__ = ()\n```\n"
    )
    assert ground_truth(_scenario(), response).component("fix_logic_match") == 40
