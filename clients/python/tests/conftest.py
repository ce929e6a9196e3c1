"""The plugin's own tests run against the real a2amock binary (A2AMOCK_BIN,
or a2amock on PATH, or A2AMOCK_URL)."""

pytest_plugins = ["pytester"]
