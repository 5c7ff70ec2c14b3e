"""The capture bundle: reading it from disk and the intake protocol that plans what gets judged."""
