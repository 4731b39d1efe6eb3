"""The default data file's directory: platformdirs' per-user data directory."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from rummyhall.server.store import data_path, default_data_dir


def test_the_default_is_platformdirs_user_data_dir(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_data_dir() == platformdirs.user_data_path("rummyhall", appauthor=False,
                                                             roaming=False)
    if platformdirs.PlatformDirs is platformdirs.unix.Unix:  # the XDG rules, as documented
        assert default_data_dir() == tmp_path / "rummyhall"
        assert data_path("") == str(tmp_path / "rummyhall" / "rummyhall.sqlite3")


def test_a_relative_xdg_data_home_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    if platformdirs.PlatformDirs is not platformdirs.unix.Unix:
        pytest.skip("the XDG variables are the Unix convention")
    monkeypatch.setenv("XDG_DATA_HOME", "relative/dir")
    assert default_data_dir() == Path.home() / ".local" / "share" / "rummyhall"


def test_a_data_setting_names_its_own_file() -> None:
    assert data_path("/srv/hall.sqlite3") == "/srv/hall.sqlite3"
    assert data_path(":memory:") == ":memory:"
