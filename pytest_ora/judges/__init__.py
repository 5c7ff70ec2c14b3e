"""The judges: packets, provider clients, transport, cassettes, replies, the panel that judges a capture."""
