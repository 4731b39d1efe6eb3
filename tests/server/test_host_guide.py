"""docs/server.md documents every setting of the server."""

from pathlib import Path

from rummyhall.server.config import setting_fields

DOC = Path(__file__).resolve().parents[2] / "docs" / "server.md"


def test_every_setting_is_in_the_host_guide() -> None:
    text = DOC.read_text()
    for f in setting_fields():
        assert f"| `{f.name}` |" in text, f.name
        assert f"RUMMYHALL_{f.name.upper()}" in text, f.name
