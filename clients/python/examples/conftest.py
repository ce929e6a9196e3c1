"""The example suite: the official a2a-sdk client is the client under test.
The a2amock fixtures come from the installed plugin (entry point a2amock)."""
