"""A Ctrl-C the program handles never turns its exit into a death by SIGINT.

The protocol makes each message kind's check the first time one arrives, from generated
source. CPython marks a KeyboardInterrupt that escapes ``exec`` of a *string* as unhandled
at the interpreter's exit, however the program handles it afterwards: ``rummyhall bot``,
interrupted while the first message of a kind was decoded, said "interrupted" and then
died of SIGINT (status -2 instead of 130). The generated source is compiled first and run
as a code object, where a KeyboardInterrupt is an ordinary exception.

The child below lands the interruption exactly there: its profile hook raises
KeyboardInterrupt as the generated definitions start to run, as Python's Ctrl-C handler
does at the first instruction after the signal; the child handles it and exits 0.
"""

from __future__ import annotations

import os
import subprocess
import sys

CHILD = """
import sys
from rummyhall.protocol.payloads import EVENT_SPECS

spec = EVENT_SPECS["hand_scored"]
assert spec._check is None  # (not made yet: the next call makes it)
landed = []

def interrupt(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "<module>" and not landed:
        landed.append(frame.f_code.co_filename)
        raise KeyboardInterrupt

sys.setprofile(interrupt)
try:
    spec.check({}, "event", 1)
except KeyboardInterrupt:
    pass
sys.setprofile(None)
assert landed, "the generated source never ran"
print("handled in", landed[0])
"""


def test_an_interruption_while_a_check_is_made_leaves_the_exit_status_alone() -> None:
    child = subprocess.run([sys.executable, "-c", CHILD], env=dict(os.environ),
                           capture_output=True, text=True, timeout=60, check=False)
    assert child.returncode == 0, (child.returncode, child.stdout, child.stderr)
    assert "handled in <rummyhall.protocol" in child.stdout
