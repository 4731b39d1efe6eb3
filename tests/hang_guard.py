"""How long a test waits for something that must come, at most.

It is a guard against a hang (a bug that loses a message, a server that never answers),
never a measure of speed: the waits themselves are for events and conditions, and a
loaded machine (two cores shared by several runs) only makes them take longer. So it is
far above what anything takes, and the same everywhere. Under trio's MockClock it counts
virtual seconds.

``TESTS_HANG_GUARD`` (seconds) overrides it: the mutation pass (tools/mutate.py) sets
it low, so that a mutant which loses a message fails in seconds rather than minutes.
(Not a ``RUMMYHALL_`` name: the command line takes those for settings, and refuses an
unknown one, so the tests that run ``rummyhall`` commands failed in the pass.)
"""

import os

HANG_GUARD = float(os.environ.get("TESTS_HANG_GUARD", "120"))
