"""Table options: every option of docs/rules.md, its defaults and its validation."""

import pytest

from rummyhall.rules import GAMES, OptionError, option_specs, options_to_dict, parse_options
from rummyhall.rules.options import ThirteenOptions

# The options of docs/rules.md, as a table: (game, option, type, default)
SECTION_6 = [
    ("basic", "forbid_discarding_taken_card", "bool", True),
    ("gin", "forbid_discarding_taken_card", "bool", True),
    ("chicago", "forbid_discarding_taken_card", "bool", True),
    ("three_thirteen", "forbid_discarding_taken_card", "bool", True),
    ("basic", "stock_rebuild", "enum", "shuffle"),
    ("chicago", "stock_rebuild", "enum", "shuffle"),
    ("three_thirteen", "stock_rebuild", "enum", "shuffle"),
    ("basic", "layoff_requires_own_meld", "bool", False),
    ("basic", "one_meld_per_turn", "bool", False),
    ("basic", "must_discard_to_go_out", "bool", False),
    ("basic", "rummy_bonus", "enum", "double"),
    ("basic", "ace_mode", "enum", "low"),
    ("basic", "ace_high_points", "int", 15),
    ("three_thirteen", "ace_high_points", "int", 15),
    ("basic", "stock_exhaustion_limit", "int", 0),
    ("basic", "scoring_mode", "enum", "winner_collects"),
    ("basic", "target_score", "int", 150),
    ("basic", "max_hands", "int", 0),
    ("basic", "dealer_rotation", "enum", "left"),
    ("gin", "knock_limit", "int", 10),
    ("gin", "gin_bonus", "int", 25),
    ("gin", "undercut_bonus", "int", 25),
    ("gin", "undercut_on_tie", "bool", True),
    ("gin", "big_gin_bonus", "int", 0),
    ("gin", "target_score", "int", 100),
    ("gin", "game_bonus", "int", 0),
    ("gin", "box_bonus", "int", 0),
    ("gin", "shutout_bonus", "int", 0),
    ("gin", "layoff_on_gin", "bool", False),
    ("gin", "dead_hand_stock_size", "int", 2),
    ("gin", "next_dealer", "enum", "loser"),
    ("chicago", "knock_base_limit", "int", 9),
    ("chicago", "elimination_score", "int", 100),
    ("chicago", "eliminate_at_equal", "bool", False),
    ("chicago", "knock_penalty", "int", 15),
    ("chicago", "knock_penalty_on_tie", "bool", True),
    ("chicago", "rummy_timing", "enum", "both"),
    ("chicago", "seven_twos_wins", "bool", True),
    ("three_thirteen", "ace_mode", "enum", "low"),
    ("three_thirteen", "face_points", "enum", "ten"),
    ("three_thirteen", "jokers_per_deck", "int", 0),
    ("three_thirteen", "joker_points", "int", 20),
    ("three_thirteen", "decks", "int_or_auto", "auto"),
    ("three_thirteen", "all_wild_sets", "bool", True),
    ("three_thirteen", "deuces_arent_wild", "bool", False),
]


def test_every_option_of_section_6_exists_with_its_default() -> None:
    specs = {(g, s.name): s for g in GAMES for s in option_specs(g)}
    for game, name, kind, default in SECTION_6:
        spec = specs.pop((game, name))
        assert (spec.type, spec.default) == (kind, default), (game, name)
    assert not specs, f"options not in docs/rules.md: {sorted(specs)}"


def test_enum_values() -> None:
    specs = {(g, s.name): s for g in GAMES for s in option_specs(g)}
    assert specs["basic", "ace_mode"].choices == ("low", "high_or_low", "round_the_corner")
    assert specs["three_thirteen", "ace_mode"].choices == ("low", "high_or_low")
    assert specs["chicago", "rummy_timing"].choices == ("start_of_turn", "after_discard", "both")
    assert specs["gin", "next_dealer"].choices == ("loser", "winner", "alternate")


def test_defaults_fill_in() -> None:
    for game in GAMES:
        parsed = options_to_dict(parse_options(game))
        assert parsed == {s.name: s.default for s in option_specs(game)}


@pytest.mark.parametrize(("game", "raw", "words"), [
    ("gin", {"knock_limt": 5}, ["unknown option 'knock_limt'", "knock_limit"]),
    ("gin", {"knock_limit": 11}, ["'knock_limit'", "out of range", "from 0 to 10"]),
    ("gin", {"knock_limit": "5"}, ["'knock_limit'", "not an integer"]),
    ("gin", {"knock_limit": True}, ["'knock_limit'", "not an integer"]),
    ("gin", {"layoff_on_gin": 1}, ["'layoff_on_gin'", "true or false"]),
    ("basic", {"ace_mode": "high"}, ["'ace_mode'", "low, high_or_low, round_the_corner"]),
    ("three_thirteen", {"ace_mode": "round_the_corner"}, ["'ace_mode'", "low, high_or_low"]),
    ("three_thirteen", {"jokers_per_deck": 1}, ["'jokers_per_deck'", "0 or 2"]),
    ("three_thirteen", {"decks": "many"}, ["'decks'", "'auto' or an integer from 1 to 8"]),
    ("basic", {"target_score": 0, "max_hands": 0}, ["target_score", "max_hands"]),
    ("poker", {}, ["unknown game 'poker'"]),
])
def test_bad_options_are_refused_with_names_and_allowed_values(
        game: str, raw: dict[str, object], words: list[str]) -> None:
    with pytest.raises(OptionError) as info:
        parse_options(game, raw)
    for word in words:
        assert word in str(info.value)


def test_good_values() -> None:
    o = parse_options("three_thirteen",
                      {"decks": 3, "jokers_per_deck": 2, "ace_mode": "high_or_low"})
    assert isinstance(o, ThirteenOptions)
    assert (o.decks, o.jokers_per_deck, o.ace_mode) == (3, 2, "high_or_low")
