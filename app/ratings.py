"""``rummyhall ratings``: every player's rating per game, best first."""

from __future__ import annotations

import argparse

from rummyhall.rules import GAMES
from rummyhall.server.ratings import Rating

from .datafile import add_data_flag, open_store


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("ratings", help="show the players' ratings",
                       description="Show each player's rating per game, best first, "
                                   "under the player's name now (a rating follows the "
                                   "player its token resumes, not a name: # is the "
                                   "player's id; house bots are rated by strategy). The "
                                   "rating is mu - 3 sigma of a Weng-Lin (Plackett-Luce) "
                                   "Bayesian rating, updated after every finished game.")
    add_data_flag(p)
    p.add_argument("--game", choices=list(GAMES), help="only this game")
    p.set_defaults(func=cmd_ratings)


def cmd_ratings(args: argparse.Namespace) -> int:
    store = open_store(args, "ratings")
    if store is None:
        return 1
    try:
        rows = store.ratings(args.game)
    finally:
        store.close()
    if not rows:
        print("no ratings yet")
        return 0
    game = None
    rank = 0
    for r in rows:
        if r["game"] != game:
            game, rank = r["game"], 0
            print(f"{game}:")
            print(f"  {'':>3}  {'name':<32} {'#':>6} {'rating':>6} {'mu':>6} {'sigma':>6} "
                  f"{'games':>5}")
        rank += 1
        shown = Rating(r["mu"], r["sigma"]).shown
        who = "house" if r["player"] is None else str(r["player"])
        print(f"  {rank:>3}  {r['name']:<32} {who:>6} {shown:>6} {r['mu']:>6.1f} "
              f"{r['sigma']:>6.2f} {r['games']:>5}")
    return 0
