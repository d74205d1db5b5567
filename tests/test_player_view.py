"""`mtt client`'s pure part (orchestrator/frontdoor/player_view.py): what a typed line means
or why it cannot be played now, what the screen shows from the Play stream's messages (his
cards, the board, the pot, the clock and then the time bank, TB-1), and the deck check after a
hand: the revealed deck must match the commitment shown before the deal (DESIGN.md "Decks")
and must have dealt the cards he saw (HE-3). No servers, no terminal."""

from __future__ import annotations

import pytest

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator.frontdoor.errors import InvalidRequest
from orchestrator.frontdoor.player_view import (
    Command,
    CommandKind,
    TableView,
    check_deck,
    parse_command,
)
from rng_service.commit import commitment
from table_worker._proto import gateway_pb2 as gw
from table_worker.cards import card_text
from table_worker.engine import Decision, DecisionKind, Hand, HandSetup
from table_worker.remote import public_actions, public_state

FACING_A_BET = gw.Legal(
    can_fold=True, call_amount=50, can_raise=True, min_raise_to=100, max_raise_to=990
)
NOTHING_TO_CALL = gw.Legal(can_check=True, can_raise=True, min_raise_to=50, max_raise_to=990)
SHORT = gw.Legal(can_fold=True, call_amount=400)  # calling is all he has left


# --- the keyboard ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "legal", "meant"),
    [
        ("f", FACING_A_BET, Command(CommandKind.ACT, gw.FOLD)),
        ("Fold", FACING_A_BET, Command(CommandKind.ACT, gw.FOLD)),
        ("c", FACING_A_BET, Command(CommandKind.ACT, gw.CHECK_CALL)),
        ("call", FACING_A_BET, Command(CommandKind.ACT, gw.CHECK_CALL)),
        ("k", NOTHING_TO_CALL, Command(CommandKind.ACT, gw.CHECK_CALL)),
        ("c", NOTHING_TO_CALL, Command(CommandKind.ACT, gw.CHECK_CALL)),
        ("r 300", FACING_A_BET, Command(CommandKind.ACT, gw.RAISE_TO, 300)),
        ("  raise   900 ", FACING_A_BET, Command(CommandKind.ACT, gw.RAISE_TO, 900)),
        ("b 50", NOTHING_TO_CALL, Command(CommandKind.ACT, gw.RAISE_TO, 50)),
        ("bet 990", NOTHING_TO_CALL, Command(CommandKind.ACT, gw.RAISE_TO, 990)),
        ("a", FACING_A_BET, Command(CommandKind.ACT, gw.RAISE_TO, 990)),
        ("all-in", SHORT, Command(CommandKind.ACT, gw.CHECK_CALL)),
        ("s", None, Command(CommandKind.SIT_OUT)),
        ("back", None, Command(CommandKind.BACK)),
        ("h", None, Command(CommandKind.HELP)),
        ("q", FACING_A_BET, Command(CommandKind.QUIT)),
    ],
)
def test_a_typed_line_is_the_command_it_says(
    line: str, legal: gw.Legal | None, meant: Command
) -> None:
    assert parse_command(line, legal) == meant


def test_amounts_may_carry_thousands_separators() -> None:
    legal = gw.Legal(can_raise=True, min_raise_to=100, max_raise_to=5000)
    assert parse_command("r 1,000", legal) == Command(CommandKind.ACT, gw.RAISE_TO, 1000)
    assert parse_command("r 2_500", legal).amount == 2500


@pytest.mark.parametrize(
    ("line", "legal", "why"),
    [
        ("", FACING_A_BET, "type a command"),
        ("dance", FACING_A_BET, "unknown command 'dance': type h for help"),
        ("f", None, "not your turn"),
        ("r 300", None, "not your turn"),
        ("f", NOTHING_TO_CALL, "nothing to fold against: check instead"),
        ("k", FACING_A_BET, "you cannot check: 50 to call (c) or fold (f)"),
        ("call", NOTHING_TO_CALL, "nothing to call: check (k) or bet"),
        ("r", FACING_A_BET, "say how much: r N, the total bet, 100..990"),
        ("r lots", FACING_A_BET, "'lots' is not a number of chips"),
        ("r -5", FACING_A_BET, "'-5' is not a number of chips"),
        ("r 99", FACING_A_BET, "raise to 99 is outside 100..990 (HE-4"),
        ("r 1,000", FACING_A_BET, "raise to 1,000 is outside 100..990"),
        ("r 300", SHORT, "no raise is possible now: call (c) or fold (f)"),
        ("f 100", FACING_A_BET, "'f' takes no amount"),
    ],
)
def test_a_line_that_cannot_be_played_now_says_why(
    line: str, legal: gw.Legal | None, why: str
) -> None:
    with pytest.raises(InvalidRequest) as refused:
        parse_command(line, legal)
    assert why in str(refused.value)


# --- the deck -------------------------------------------------------------------------------

SALT = bytes(range(1, 33))
DECK = bytes((code * 7 + 3) % 52 for code in range(52))  # 7 and 52 coprime: a permutation


def played(deck: bytes = DECK) -> tuple[Hand, dict[int, str]]:
    """Three seats, the button on the last (dealing starts at seat 1, HE-3), checked down to
    the showdown: every board card dealt, every hand shown."""
    setup = HandSetup(
        seats=(5, 1, 3),
        stacks=(1000, 1000, 1000),
        button=5,
        small_blind_seat=1,
        big_blind_seat=3,
        small_blind=10,
        big_blind=20,
    )
    hand = Hand(setup, deck)
    while (actor := hand.actor) is not None:
        hand.act(actor, Decision(DecisionKind.CHECK_CALL))
    return hand, {1: "ann", 3: "bob", 5: "cat"}


def messages(
    hand: Hand, names: dict[int, str], *, seat: int, committed: bytes, cards: bytes, salt: bytes
) -> tuple[pb.HandView, pb.HandResult]:
    """What the front door sends the player at `seat` about this hand (as the hub builds it)."""
    view = pb.HandView(
        table=1,
        hand=1,
        button=hand.setup.button,
        small_blind=10,
        big_blind=20,
        seats=[gw.SeatInfo(seat=s, player=names[s], stack=1000) for s in hand.seats],
        your_seat=seat,
        hole_cards=hand.hole_cards(seat),
        deck_commitment=committed,
    )
    state = public_state(hand, names)
    result = pb.HandResult(
        table=1,
        hand=1,
        board=state.board,
        actions=public_actions(hand.events),
        stacks=[gw.SeatInfo(seat=s.seat, player=s.player, stack=s.stack) for s in state.seats],
        deck_cards=cards,
        deck_salt=salt,
    )
    return view, result


@pytest.mark.parametrize("seat", [1, 3, 5])
def test_the_revealed_deck_is_verified_against_its_commitment_and_the_cards_dealt(
    seat: int,
) -> None:
    hand, names = played()
    view, result = messages(
        hand, names, seat=seat, committed=commitment(DECK, SALT), cards=DECK, salt=SALT
    )
    check = check_deck(view, result)
    assert check.verified, check.reason


def swapped(deck: bytes, i: int, j: int) -> bytes:
    cards = bytearray(deck)
    cards[i], cards[j] = cards[j], cards[i]
    return bytes(cards)


def test_a_deck_that_is_not_the_committed_one_is_a_loud_failure() -> None:
    hand, names = played()
    other = swapped(DECK, 50, 51)  # two cards nobody saw: only the commitment tells
    view, result = messages(
        hand, names, seat=1, committed=commitment(DECK, SALT), cards=other, salt=SALT
    )
    check = check_deck(view, result)
    assert not check.verified
    assert check.reason == "the revealed deck does not match the commitment shown before"
    view, result = messages(
        hand, names, seat=1, committed=commitment(DECK, SALT), cards=DECK, salt=bytes(32)
    )
    assert not check_deck(view, result).verified  # the wrong salt


@pytest.mark.parametrize(
    ("i", "j", "why"),
    [
        (0, 1, "did not deal your hole cards"),  # ann's first card and bob's
        (7, 8, "did not deal this board"),  # the first flop card and the second
        (4, 6, "did not deal seat 3's hand"),  # bob's (shown) second card and a burn card
    ],
)
def test_a_committed_deck_that_did_not_deal_what_he_saw_is_a_loud_failure(
    i: int, j: int, why: str
) -> None:
    """A dishonest dealer could commit to one deck, deal another and reveal the first with its
    true salt: the commitment holds, but the revealed deck did not deal these cards."""
    hand, names = played()
    revealed = swapped(DECK, i, j)
    view, result = messages(
        hand, names, seat=1, committed=commitment(revealed, SALT), cards=revealed, salt=SALT
    )
    check = check_deck(view, result)
    assert not check.verified and why in check.reason, check.reason


def test_no_commitment_no_reveal_or_not_a_deck_are_failures() -> None:
    hand, names = played()
    good = commitment(DECK, SALT)
    for committed, cards, salt, why in (
        (b"", DECK, SALT, "no deck commitment was published"),
        (good, b"", b"", "were not revealed"),
        (commitment(DECK[:-1] + DECK[:1], SALT), DECK[:-1] + DECK[:1], SALT, "not 52 distinct"),
    ):
        view, result = messages(hand, names, seat=1, committed=committed, cards=cards, salt=salt)
        check = check_deck(view, result)
        assert not check.verified and why in check.reason, check.reason


# --- the screen -----------------------------------------------------------------------------


def seen(view: TableView, *messages: pb.ServerMessage, now: float = 0.0) -> TableView:
    for message in messages:
        view.on(message, now)
    return view


def prompt(hand: Hand, names: dict[int, str], seat: int, **timing: float) -> pb.ServerMessage:
    return pb.ServerMessage(
        action_request=pb.ActionPrompt(
            request_id=7,
            table=1,
            hand=1,
            seat=seat,
            state=public_state(hand, names),
            legal=FACING_A_BET,
            **timing,
        )
    )


def test_the_screen_shows_his_cards_the_table_and_the_clock_then_the_time_bank() -> None:
    setup = HandSetup(
        seats=(5, 1, 3),
        stacks=(1000, 1000, 1000),
        button=5,
        small_blind_seat=1,
        big_blind_seat=3,
        small_blind=10,
        big_blind=20,
    )
    hand, names = Hand(setup, DECK), {1: "ann", 3: "bob", 5: "cat"}
    start, _ = messages(hand, names, seat=5, committed=commitment(DECK, SALT), cards=b"", salt=b"")
    view = seen(
        TableView("t1", "cat"),
        pb.ServerMessage(welcome=pb.Welcome(tournament_id="t1", player="cat", state="running")),
        pb.ServerMessage(hand_started=start),
    )
    view.on(prompt(hand, names, 5, seconds=20.0, time_bank_seconds=30.0), 100.0)
    screen = "\n".join(view.lines(105.0))
    own = " ".join(card_text(c) for c in hand.hole_cards(5))
    assert f"your cards {own}" in screen
    assert f"commitment {commitment(DECK, SALT).hex()}" in screen
    assert "pot 30" in screen and "button seat 5" in screen
    assert "YOUR TURN: call 50 (c), fold (f), raise to 100..990 (r N)" in screen
    assert "clock 15s  time bank 30s" in screen  # the bank waits for the clock (TB-1)
    later = "\n".join(view.lines(125.0))
    assert "clock 0s  time bank 25s  (time bank running)" in later
    # Nobody else's cards: only his own two and (none yet) the board appear.
    shown = {card_text(c) for c in DECK} & set(screen.replace(",", " ").split())
    assert shown == set(own.split())


def test_after_the_hand_the_screen_says_deck_verified_or_warns_loudly() -> None:
    hand, names = played()
    start, result = messages(
        hand, names, seat=1, committed=commitment(DECK, SALT), cards=DECK, salt=SALT
    )
    good = seen(
        TableView("t1", "ann"),
        pb.ServerMessage(hand_started=start),
        pb.ServerMessage(hand_result=result),
    )
    assert "hand #1: deck verified: it matches its commitment" in "\n".join(good.lines(0.0))
    result.deck_salt = bytes(32)
    bad = seen(
        TableView("t1", "ann"),
        pb.ServerMessage(hand_started=start),
        pb.ServerMessage(hand_result=result),
    )
    assert "!!! hand #1: DECK NOT VERIFIED: the revealed deck does not match" in "\n".join(
        bad.lines(0.0, width=200)
    )


def test_the_screen_fits_the_terminal_keeping_the_table_and_the_newest_news() -> None:
    hand, names = played()
    start, _ = messages(
        hand, names, seat=1, committed=commitment(DECK, SALT), cards=DECK, salt=SALT
    )
    view = seen(TableView("t1", "ann"), pb.ServerMessage(hand_started=start))
    for k in range(20):
        view.on(pb.ServerMessage(error=pb.Problem(code="X", message=f"problem {k} " * 8)), 0.0)
    lines = view.lines(0.0, width=60, height=24)
    assert len(lines) == 24 and max(map(len, lines)) <= 60
    text = "\n".join(lines)
    assert "your cards" in text and "keys:" in text
    assert "problem 19" in lines[-1] or "problem 19" in lines[-2]  # the newest, at the bottom


def test_out_sit_out_and_the_end_are_shown() -> None:
    view = seen(
        TableView("t1", "ann"),
        pb.ServerMessage(status=pb.OutStatus(out=True, reason="timeout")),
    )
    assert "OUT (timeout)" in view.lines(0.0)[0]
    assert view.legal is None
    view.on(pb.ServerMessage(status=pb.OutStatus(out=False, reason="back")), 0.0)
    assert "OUT" not in view.lines(0.0)[0]
    view.on(pb.ServerMessage(finished=pb.Finished(place=2, reason="eliminated")), 0.0)
    text = "\n".join(view.lines(0.0))
    assert "tournament over: place 2" in text and "q to quit" in text


# --- rebuys, deals, re-entries ---------------------------------------------------------------


def _deal(state: str, *answers: str) -> pb.ServerMessage:
    shares = [
        pb.DealShare(player=p, chips=c, amount=a, answer=answer)
        for (p, c, a), answer in zip(
            [("ann", 3000, 70_000), ("bob", 1000, 30_000)], answers or ("", ""), strict=True
        )
    ]
    return pb.ServerMessage(deal=pb.DealStatus(kind="icm", left=0, shares=shares, state=state))


@pytest.mark.parametrize(
    ("line", "deal", "reentry", "meant"),
    [
        ("rb", False, False, Command(CommandKind.REBUY)),  # RB-3: the server decides
        ("rebuy", False, False, Command(CommandKind.REBUY)),
        ("y", True, False, Command(CommandKind.ACCEPT)),
        ("accept", True, False, Command(CommandKind.ACCEPT)),
        ("n", True, False, Command(CommandKind.DECLINE)),
        ("No", True, False, Command(CommandKind.DECLINE)),
        ("e", False, True, Command(CommandKind.REENTER)),
        ("re-enter", False, True, Command(CommandKind.REENTER)),
    ],
)
def test_rb3_deal1_late_the_keys_for_a_rebuy_a_deal_s_answer_and_a_re_entry(
    line: str, deal: bool, reentry: bool, meant: Command
) -> None:
    assert parse_command(line, None, deal=deal, reentry=reentry) == meant


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("y", "no deal is waiting for your answer"),
        ("n", "no deal is waiting for your answer"),
        ("e", "no re-entry is offered to you"),
        ("y now", "takes nothing after it"),
    ],
)
def test_deal1_late_an_answer_with_nothing_to_answer_is_refused_saying_why(
    line: str, why: str
) -> None:
    with pytest.raises(InvalidRequest, match=why):
        parse_command(line, FACING_A_BET)


def test_deal1_the_deal_waits_on_screen_for_his_answer_until_he_gives_it() -> None:
    view = seen(TableView("t1", "ann"), _deal("proposed"))
    assert view.deal_waiting
    text = "\n".join(view.lines(0.0, width=120))
    assert "DEAL (icm): 700.00 for you: accept (y) or decline (n)" in text
    assert "y/n deal" in text  # the keys line
    view.on(_deal("proposed", "accepted", ""), 0.0)  # his answer came back: asked no more
    assert not view.deal_waiting and "DEAL (icm)" not in "\n".join(view.lines(0.0, width=120))
    view.on(_deal("declined", "accepted", "declined"), 0.0)
    assert "deal declined (icm): 700.00 for you; ann accepted, bob declined" in view.notes


def test_late_a_re_entry_offered_is_shown_with_its_key_until_taken() -> None:
    offer = pb.ReentryOffer(entry=2, price=1100, reentries_left=0, until_level=3)
    view = seen(TableView("t1", "ann"), pb.ServerMessage(reentry_offer=offer))
    assert view.reentry == offer
    text = "\n".join(view.lines(0.0, width=120))
    assert "RE-ENTRY: entry 2 for 11.00 from your wallet (e), until level 3 ends" in text
    assert parse_command("e", None, reentry=view.reentry is not None).kind is CommandKind.REENTER
    added = pb.ChipsAdded(kind="reentry", chips=1000)
    view.on(pb.ServerMessage(chips_added=added), 0.0)
    assert view.reentry is None and "RE-ENTRY" not in "\n".join(view.lines(0.0, width=120))
    assert "reentry: 1,000 chips added to your stack" in view.notes


def test_rb3_a_rebuy_taken_and_its_chips_are_told() -> None:
    view = seen(
        TableView("t1", "ann"),
        pb.ServerMessage(rebuy_accepted=pb.RebuyAccepted()),
        pb.ServerMessage(chips_added=pb.ChipsAdded(kind="rebuy", chips=1500)),
    )
    assert list(view.notes)[-2:] == [
        "rebuy taken: its chips come at your next hand",
        "rebuy: 1,500 chips added to your stack",
    ]
