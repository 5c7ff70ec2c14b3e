"""The method: rubrics as versioned definitions and the exact scoring they define."""
