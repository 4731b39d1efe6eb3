"""The player's remembered names and tokens, per server, in a small per-user file.

The file is ``$XDG_CONFIG_HOME/rummyhall/console.json`` (``~/.config/...`` by default):
``{"last_server": "host:port", "servers": {"host:port": {"name": ..., "token": ...}}}``.
The token is a secret (it is the player's identity on that server), so the file is
private to the user, and it is written atomically (a temporary file, then a rename).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def config_path(env: dict[str, str] | None = None) -> Path:
    """Where the profile lives."""
    env = dict(os.environ) if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser()
                                              / ".config")
    return Path(base) / "rummyhall" / "console.json"


@dataclass
class Profile:
    """Remembered servers: the name and the token used on each."""

    path: Path
    last_server: str | None = None
    servers: dict[str, dict[str, str]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None = None) -> Profile:
        """Read the profile; a missing or unreadable file is an empty profile."""
        path = path or config_path()
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls(path)
        if not isinstance(data, dict):
            return cls(path)
        servers = data.get("servers")
        clean = {str(k): {kk: str(vv) for kk, vv in v.items() if kk in ("name", "token")}
                 for k, v in (servers.items() if isinstance(servers, dict) else ())
                 if isinstance(v, dict)}
        last = data.get("last_server")
        return cls(path, last if isinstance(last, str) else None, clean)

    def name_for(self, server: str) -> str | None:
        return self.servers.get(server, {}).get("name")

    def token_for(self, server: str, name: str) -> str | None:
        """The token remembered for ``name`` on ``server`` (None for another name)."""
        entry = self.servers.get(server, {})
        return entry.get("token") if entry.get("name") == name else None

    def remember(self, server: str, name: str, token: str | None) -> None:
        """Keep ``name`` and ``token`` for ``server`` and write the file."""
        entry = {"name": name}
        if token:
            entry["token"] = token
        self.servers[server] = entry
        self.last_server = server
        self.save()

    def save(self) -> None:
        """Write atomically, readable by the user only."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"last_server": self.last_server, "servers": self.servers},
                          indent=2, sort_keys=True)
        fd, tmp = tempfile.mkstemp(prefix=".console-", suffix=".json", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
