"""The pytest wiring's working parts: options, the session state, the capture runner, the fixture."""
