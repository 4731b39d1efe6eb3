"""Ctrl-C in the middle of a solve is a KeyboardInterrupt, never the end of the process.

CPython checks for signals inside some integer operations (the multiplication of large
integers among them); in the compiled build (mypyc) a KeyboardInterrupt raised there was
taken for a failed allocation and aborted the process ("fatal: out of memory", SIGABRT),
so that Ctrl-C on ``rummyhall bot`` or ``arena`` during a bot's decision killed it
without its one line and status 130. CI runs this file on the pure modules and on a
compiled build (``--expect-compiled``).

The child process below interrupts itself with a repeating timer signal whose handler
raises KeyboardInterrupt, as Python's own Ctrl-C handler does, while it solves hands of
every path (Gin's sets, Chicago's and Three Thirteen's wild cards), until it has caught a
fixed number of interruptions: the signal lands at every kind of point in the solver.
"""

from __future__ import annotations

import os
import subprocess
import sys

CHILD = """
import random, signal, sys
from rummyhall.rules import best_arrangement, deadwood_points, discards_at_most, new_game
from rummyhall.rules.cards import make_deck

WANTED, MOST = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(1)
work = []
for name, players, sizes in (("gin", 2, (10, 11)), ("chicago", 4, (7, 8)),
                             ("three_thirteen", 3, (9, 12, 14))):
    rules = new_game(name, players=players).meld_rules
    deck = list(make_deck())
    for _ in range(300):
        work.append((tuple(rng.sample(deck, rng.choice(sizes))), rules))
# Gin's hands with a set of three or four: the fast path's set choices
gin = new_game("gin", players=2).meld_rules
for _ in range(300):
    rank = rng.randint(1, 13)
    trips = [c for c in make_deck() if c.rank == rank][:rng.choice((3, 4))]
    rest = rng.sample([c for c in make_deck() if c.rank != rank], 10 - len(trips))
    work.append((tuple(trips + rest), gin))

armed = False

def interrupt(signum, frame):  # (once per arming: never in the loop's own bookkeeping)
    global armed
    if armed:
        armed = False
        raise KeyboardInterrupt

signal.signal(signal.SIGALRM, interrupt)
signal.setitimer(signal.ITIMER_REAL, 0.0002, 0.0002)
caught = done = 0
while caught < WANTED and done < MOST:
    hand, rules = work[done % len(work)]
    done += 1  # (an interrupted hand is not tried again: the next one lands elsewhere)
    try:
        armed = True
        deadwood_points(hand, rules)
        discards_at_most(hand, rules, 9)
        best_arrangement(hand, rules)
        armed = False
    except KeyboardInterrupt:
        caught += 1
signal.setitimer(signal.ITIMER_REAL, 0, 0)
print(caught)
"""


def test_an_interrupted_solve_raises_keyboard_interrupt() -> None:
    wanted = 1500
    child = subprocess.run([sys.executable, "-c", CHILD, str(wanted), str(200 * wanted)],
                           env=dict(os.environ), capture_output=True, text=True,
                           timeout=120, check=False)
    assert child.returncode == 0, (child.returncode, child.stderr[-2000:])
    assert "out of memory" not in child.stderr
    assert int(child.stdout) == wanted  # (every interruption was a KeyboardInterrupt)
