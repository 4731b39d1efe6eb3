"""The player's remembered names and tokens, per server, in a small per-user file.

The file is ``$XDG_CONFIG_HOME/rummyhall/console.json`` (``~/.config/...`` by default):
``{"last_server": "host:port", "servers": {"host:port": {"name": ..., "token": ...}},
"hall_keys": {"host:port": {"salt": ..., "iterations": ..., "client_key": ...,
"stored_key": ...}}}``. The token is a secret (it is the player's identity on that server),
and so is a hall's key (kept only when the player asks: ``--remember-password``; it is
derived from the hall's password for that hall's salt, never the password itself), so
the file is private to the user, and it is written atomically (a temporary file, then a
rename).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rummyhall.protocol import ClientKeys


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
    hall_keys: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)

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
        keys = data.get("hall_keys")
        halls = {str(k): v for k, v in (keys.items() if isinstance(keys, dict) else ())
                 if isinstance(v, dict)}
        return cls(path, last if isinstance(last, str) else None, clean, halls)

    def hall_keys_for(self, server: str) -> dict[tuple[str, int], ClientKeys]:
        """The hall keys kept for ``server``, as a HallCredential's ``saved`` (a damaged
        entry is no key)."""
        entry = self.hall_keys.get(server)
        try:
            assert entry is not None
            keys = ClientKeys(bytes.fromhex(entry["client_key"]),
                              bytes.fromhex(entry["stored_key"]))
            return {(str(entry["salt"]), int(entry["iterations"])): keys}
        except (AssertionError, KeyError, TypeError, ValueError):
            return {}

    def remember_hall_keys(self, server: str,
                           saved: dict[tuple[str, int], ClientKeys] | None) -> None:
        """Keep the hall keys of ``server`` (the last derived), or forget them (None)."""
        if not saved:
            if self.hall_keys.pop(server, None) is not None:
                self.save()
            return
        (salt, iterations), keys = list(saved.items())[-1]
        self.hall_keys[server] = {"salt": salt, "iterations": iterations,
                                  "client_key": keys.client_key.hex(),
                                  "stored_key": keys.stored_key.hex()}
        self.save()

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
        data: dict[str, Any] = {"last_server": self.last_server, "servers": self.servers}
        if self.hall_keys:
            data["hall_keys"] = self.hall_keys
        text = json.dumps(data, indent=2, sort_keys=True)
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
