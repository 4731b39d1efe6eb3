"""The sans-IO wire protocol (being written: issue 3)."""
