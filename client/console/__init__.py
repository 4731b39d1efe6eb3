"""The console client: a full-screen prompt_toolkit game on top of the client library."""

from .app import build_app
from .controller import Controller
from .model import ConsoleModel
from .profile import Profile
from .run import ConsoleHandle, ConsoleOptions, run_console

__all__ = ["ConsoleHandle", "ConsoleModel", "ConsoleOptions", "Controller", "Profile",
           "build_app", "run_console"]
