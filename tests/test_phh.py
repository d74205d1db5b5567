"""The PHH writer: what pokerkit's own loader reads back from our text."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import pytest
from pokerkit import BlindOrStraddlePosting, HandHistory

from table_worker.cards import parse_cards
from table_worker.engine import Betting, Hand, HandSetup
from table_worker.oracle import replay_phhs
from table_worker.phh import hand_actions, hand_to_phh, phhs_text, toml_string, write_phhs
from table_worker.session import PlayedHand, TableConfig, play_table


def deck(*cards: str) -> list[int]:
    """A deck starting with these cards (hole cards by position, first round then second;
    then burn, flop, burn, turn, burn, river), the rest in code order."""
    top = parse_cards("".join(cards))
    return top + [c for c in range(52) if c not in top]


def stacks_by_position(hand: Hand) -> list[int]:
    finishing = hand.finishing_stacks()
    return [finishing[seat] for seat in hand.seats]


def three_handed(
    stacks: tuple[int, int, int] = (1000, 1000, 1000),
    *,
    ante: int = 0,
    betting: Betting = Betting.NO_LIMIT,
) -> Hand:
    setup = HandSetup(
        seats=(1, 2, 3),
        stacks=stacks,
        button=3,
        small_blind_seat=1,
        big_blind_seat=2,
        small_blind=10,
        big_blind=20,
        ante=ante,
        betting=betting,
    )
    # Seat 1: AsAd, seat 2: KsKd, seat 3: 7c2h; board 9c 8d 4s / Th / 3c.
    return Hand(
        setup, deck("As", "Ks", "7c", "Ad", "Kd", "2h", "5h", "9c8d4s", "6h", "Th", "6d", "3c")
    )


def load_one(played: PlayedHand) -> HandHistory:
    return HandHistory.loads(hand_to_phh(played))


def test_a_hand_round_trips_through_pokerkit() -> None:
    hand = three_handed(ante=5)
    hand.bet_or_raise(3, 60)
    hand.check_or_call(1)
    hand.fold(2)
    hand.check_or_call(1)  # flop
    hand.bet_or_raise(3, 100)
    hand.check_or_call(1)
    hand.check_or_call(1)  # turn
    hand.check_or_call(3)
    hand.check_or_call(1)  # river
    hand.check_or_call(3)
    assert hand.is_over
    played = PlayedHand(table=7, number=42, names={1: "ann", 2: "bob", 3: "cy"}, hand=hand)

    history = load_one(played)
    assert history.variant == "NT"
    assert history.ante_trimming_status is True
    assert history.antes == [5, 5, 5]
    assert history.blinds_or_straddles == [10, 20, 0]
    assert history.min_bet == 20
    assert history.starting_stacks == [1000, 1000, 1000]
    assert (history.table, history.hand) == (7, 42)
    assert history.seats == [1, 2, 3]
    assert history.players == ["ann", "bob", "cy"]
    assert history.finishing_stacks == stacks_by_position(hand)
    assert history.actions == [
        "d dh p1 AsAd",
        "d dh p2 KsKd",
        "d dh p3 7c2h",
        "p3 cbr 60",
        "p1 cc",
        "p2 f",
        "d db 9c8d4s",
        "p1 cc",
        "p3 cbr 100",
        "p1 cc",
        "d db Th",
        "p1 cc",
        "p3 cc",
        "d db 3c",
        "p1 cc",
        "p3 cc",
        # HE-6: no bet on the river, so the first player left of the button shows first;
        # 7-2 does not beat the aces shown and is mucked.
        "p1 sm AsAd",
        "p3 sm",
    ]
    states = list(history)
    assert list(states[-1].stacks) == stacks_by_position(hand) == [1190, 975, 835]


def test_he6_showdown_is_written_in_order_and_a_loser_mucks() -> None:
    hand = three_handed()
    hand.check_or_call(3)
    hand.check_or_call(1)
    hand.check_or_call(2)
    for _ in range(3):  # flop, turn, river checked around: seat 1 shows first (HE-6)
        hand.check_or_call(1)
        hand.check_or_call(2)
        hand.check_or_call(3)
    actions = hand_actions(hand)
    assert actions[-3:] == ["p1 sm AsAd", "p2 sm", "p3 sm"]  # aces shown; kings, 7-2 muck
    (replayed,) = replay_phhs(phhs_text([PlayedHand(1, 1, {1: "a", 2: "b", 3: "c"}, hand)]))
    assert list(replayed.he7_stacks) == stacks_by_position(hand) == [1040, 980, 980]


def test_all_in_showdown_comes_before_the_rest_of_the_board() -> None:
    """pokerkit (and the table) turn the hands up as soon as betting is over with an all-in;
    the remaining board is dealt after."""
    hand = three_handed(stacks=(300, 1000, 1000))
    hand.fold(3)
    hand.bet_or_raise(1, 300)  # all-in
    hand.check_or_call(2)
    assert hand.is_over
    assert hand_actions(hand)[3:] == [
        "p3 f",
        "p1 cbr 300",
        "p2 cc",
        "p1 sm AsAd",
        "p2 sm KsKd",
        "d db 9c8d4s",
        "d db Th",
        "d db 3c",
    ]
    played = PlayedHand(1, 1, {1: "a", 2: "b", 3: "c"}, hand)
    (replayed,) = replay_phhs(phhs_text([played]))
    assert list(replayed.he7_stacks) == stacks_by_position(hand) == [600, 700, 1000]


@pytest.mark.parametrize(
    "name",
    ['Jo "the Rock"', "O'Neil", "back\\slash", "tab\tand\nnewline", "Zoë 🂡", "'''", '"""', ""],
)
def test_player_names_are_escaped_toml_strings(name: str) -> None:
    hand = three_handed()
    hand.fold(3)
    hand.fold(1)
    names = {1: name, 2: "x", 3: name + "!"}
    history = load_one(PlayedHand(1, 1, names, hand))
    assert history.players == [name, "x", name + "!"]
    assert tomllib.loads(f"n = {toml_string(name)}")["n"] == name


def test_a_name_that_is_not_text_is_refused() -> None:
    with pytest.raises(ValueError, match="not valid text"):
        toml_string("bad \udc80 surrogate")


def test_he5_fixed_limit_writes_small_and_big_bets() -> None:
    hand = three_handed(betting=Betting.FIXED_LIMIT)
    hand.bet_or_raise(3, 40)
    hand.fold(1)
    hand.check_or_call(2)
    hand.check_or_call(2)  # flop
    hand.bet_or_raise(3, 20)
    hand.check_or_call(2)
    hand.check_or_call(2)  # turn: the big bet
    hand.bet_or_raise(3, 40)
    hand.fold(2)
    text = hand_to_phh(PlayedHand(1, 1, {1: "a", 2: "b", 3: "c"}, hand))
    history = HandHistory.loads(text)
    assert history.variant == "FT"
    assert (history.small_bet, history.big_bet, history.min_bet) == (20, 40, None)
    assert "min_bet" not in text
    assert list(list(history)[-1].stacks) == stacks_by_position(hand) == [990, 940, 1070]


def test_he2_heads_up_the_button_posts_the_small_blind() -> None:
    """Heads-up p1 is the big blind (left of the button), p2 the button and small blind;
    pokerkit reads a two-player blinds list reversed, so it is written [small, big]."""
    setup = HandSetup(
        seats=(4, 9),
        stacks=(500, 700),
        button=9,
        small_blind_seat=9,
        big_blind_seat=4,
        small_blind=25,
        big_blind=50,
    )
    hand = Hand(setup, deck("As", "Ks", "Ad", "Kd"))
    hand.check_or_call(9)  # the button acts first pre-flop
    hand.bet_or_raise(4, 150)
    hand.fold(9)
    played = PlayedHand(3, 8, {4: "bb", 9: "button"}, hand)
    history = load_one(played)
    assert history.seats == [4, 9]
    assert history.players == ["bb", "button"]
    assert history.blinds_or_straddles == [25, 50]
    assert history.actions[2:] == ["p2 cc", "p1 cbr 150", "p2 f"]
    state = list(history)[-1]
    posted = {
        op.player_index: op.amount
        for op in state.operations
        if isinstance(op, BlindOrStraddlePosting)
    }
    assert posted == {0: 50, 1: 25}
    assert list(state.stacks) == stacks_by_position(hand) == [550, 650]


def test_a_phhs_file_of_several_hands_loads_as_many_hands(tmp_path: Path) -> None:
    config = TableConfig(players=4, starting_stack=600, policies=("random", "station"), table=5)
    played = list(play_table(config, 25, random.Random(3)))
    path = tmp_path / "t.phhs"
    assert write_phhs(path, iter(played)) == 25  # any iterable, consumed as it goes
    with path.open("rb") as fp:
        histories = list(HandHistory.load_all(fp))
    assert [h.hand for h in histories] == list(range(1, 26))
    assert all(h.table == 5 for h in histories)
    assert [h.finishing_stacks for h in histories] == [stacks_by_position(p.hand) for p in played]
    assert path.read_text(encoding="utf-8") == phhs_text(played)


def test_an_empty_phhs_is_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "none.phhs"
    assert write_phhs(path, []) == 0
    assert list(HandHistory.loads_all(path.read_text())) == []


@pytest.mark.parametrize(
    ("seats", "stacks", "written_antes"),
    [
        ((1, 2, 3), (1000, 1000, 1000), [0, 100, 0]),  # p2 is the big blind
        ((1, 2, 3), (1000, 130, 1000), [0, 30, 0]),  # short: the blind first, then 30 of ante
        ((1, 2), (1000, 1000), [0, 100]),  # heads-up p1 is the big blind, written reversed
    ],
)
def test_bba1_big_blind_ante_is_written_at_the_big_blind_untrimmed(
    seats: tuple[int, ...], stacks: tuple[int, ...], written_antes: list[int]
) -> None:
    button = seats[-1]
    small, big = (2, 1) if len(seats) == 2 else (1, 2)
    setup = HandSetup(
        seats=seats,
        stacks=stacks,
        button=button,
        small_blind_seat=small,
        big_blind_seat=big,
        small_blind=50,
        big_blind=100,
        ante=100,
        big_blind_ante=True,
    )
    hand = Hand(setup, range(52))
    while (seat := hand.actor) is not None:
        hand.check_or_call(seat)
    played = PlayedHand(1, 1, {s: f"p{s}" for s in seats}, hand)
    fields = tomllib.loads(hand_to_phh(played))
    assert fields["antes"] == written_antes
    assert fields["ante_trimming_status"] is False  # dead money in the main pot (BBA-1)
    (replayed,) = replay_phhs(phhs_text([played]))
    assert replayed.he7_stacks == tuple(hand.finishing_stacks()[s] for s in hand.seats)
