"""Hand histories in the Poker Hand History format (PHH: TOML; `.phhs` holds many hands).

The DESIGN.md contract: every hand, with `table`, `hand`, `seats`, `players`,
`starting_stacks`, `finishing_stacks` and every dealt card, so any PHH reader (pokerkit's
`HandHistory.loads_all` among them) can replay it. Written from the engine's event records
alone; no pokerkit here, it is only the tests' oracle.

Players are listed by position (p1 = first seat left of the button ... pN = the button), the
order pokerkit replays them in. Heads-up that makes p1 the big blind and p2 the button, and
pokerkit reads the blinds list of two players reversed, so it is written `[small, big]`.

>>> import random
>>> from table_worker.session import TableConfig, play_table
>>> played = next(play_table(TableConfig(players=3), 1, random.Random(1)))
>>> print(hand_to_phh(played))  # doctest: +ELLIPSIS
variant = "NT"
ante_trimming_status = true
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [10000, 10000, 10000]
actions = [
  "d dh p1 ...",
...
]
table = 1
hand = 1
seats = [...]
players = [...]
finishing_stacks = [...]
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from table_worker.cards import cards_text
from table_worker.engine import Betting, Hand
from table_worker.events import (
    BetOrRaised,
    BoardDealt,
    Called,
    Checked,
    Folded,
    HandEvent,
    Mucked,
    Showed,
)
from table_worker.session import PlayedHand

__all__ = [
    "antes_by_position",
    "blinds_by_position",
    "hand_actions",
    "hand_to_phh",
    "phhs_text",
    "toml_string",
    "write_phhs",
]

_PLAYER_ACTIONS = (Folded, Checked, Called, BetOrRaised)


def toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped (TOML allows
    none of them raw), everything else kept as UTF-8.

    >>> print(toml_string('Jo "the Rock" \\\\ O\\'Neil\\t'))
    "Jo \\"the Rock\\" \\\\ O'Neil\\u0009"
    """
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        elif 0xD800 <= code <= 0xDFFF:  # a lone surrogate is not a Unicode scalar value
            raise ValueError(f"not valid text for a hand history: {text!r}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _toml_ints(values: Iterable[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def antes_by_position(hand: Hand) -> list[int]:
    """PHH's `antes`: uniform antes as set (pokerkit trims an all-in ante itself, HE-2), or
    BBA-1's big blind ante as the big blind posted it. pokerkit posts antes before blinds,
    so a big blind short of both is written with the ante it had left after the blind.
    Reversed heads-up, as `blinds_by_position`."""
    setup, n = hand.setup, len(hand.seats)
    if not setup.big_blind_ante:
        return [setup.ante] * n
    antes = [0] * n
    antes[hand.seats.index(setup.big_blind_seat)] = hand.big_blind_ante_posted
    return antes[::-1] if n == 2 else antes


def blinds_by_position(hand: Hand) -> list[int]:
    """PHH's `blinds_or_straddles`: the blind each position posts (HE-2; 0 for none, HE-9).
    Heads-up pokerkit reads a two-player list reversed (the big blind is p1), so it is
    written reversed: `[small, big]`."""
    setup, n = hand.setup, len(hand.seats)
    blinds = [0] * n
    if setup.small_blind_seat is not None:
        blinds[hand.seats.index(setup.small_blind_seat)] = setup.small_blind
    blinds[hand.seats.index(setup.big_blind_seat)] = setup.big_blind
    return blinds[::-1] if n == 2 else blinds


def hand_actions(hand: Hand) -> list[str]:
    """Every dealt card and action in PHH notation, in the order a PHH reader replays them.

    The engine records show/muck decisions at the end of the hand; PHH (and pokerkit) take
    them where the showdown happens. That is after the last betting action: either the river
    betting closed, or at most one player with chips is left (an all-in, HE-6), when the hands
    are tabled before the rest of the board is dealt. So the showdown goes right after the
    last player action, ahead of any board still to come.
    """
    player = {seat: f"p{i + 1}" for i, seat in enumerate(hand.seats)}
    dealing = [
        f"d dh {player[seat]} {cards_text(hole)}"
        for seat, hole in zip(hand.seats, hand.hole, strict=True)
    ]
    betting: list[str] = []  # actions and boards, in event order
    showdown: list[str] = []
    last_action = 0  # index into `betting` after the last player action
    for event in hand.events:
        line = _action(event, player)
        if line is None:
            continue
        if isinstance(event, Showed | Mucked):
            showdown.append(line)
            continue
        betting.append(line)
        if isinstance(event, _PLAYER_ACTIONS):
            last_action = len(betting)
    return dealing + betting[:last_action] + showdown + betting[last_action:]


def _action(event: HandEvent, player: dict[int, str]) -> str | None:
    if isinstance(event, BoardDealt):
        return f"d db {cards_text(event.cards)}"
    if isinstance(event, Folded):
        return f"{player[event.seat]} f"
    if isinstance(event, Checked | Called):
        return f"{player[event.seat]} cc"
    if isinstance(event, BetOrRaised):
        return f"{player[event.seat]} cbr {event.to}"
    if isinstance(event, Showed):
        return f"{player[event.seat]} sm {cards_text(event.cards)}"
    if isinstance(event, Mucked):
        return f"{player[event.seat]} sm"  # no cards: mucked face down, as pokerkit writes it
    return None  # forced bets, uncalled bets and awards follow from the rules and the cards


def hand_to_phh(played: PlayedHand) -> str:
    """One hand as the body of a PHH document (no table header), fields one per line."""
    hand = played.hand
    setup = hand.setup
    fixed = setup.betting is Betting.FIXED_LIMIT
    finishing = hand.finishing_stacks()
    lines = [
        f"variant = {toml_string('FT' if fixed else 'NT')}",
        # Uniform antes: an all-in ante caps its claim (HE-2), pokerkit's trimming. A big blind
        # ante is dead money in the main pot (BBA-1): no trimming.
        f"ante_trimming_status = {'false' if setup.big_blind_ante else 'true'}",
        f"antes = {_toml_ints(antes_by_position(hand))}",
        f"blinds_or_straddles = {_toml_ints(blinds_by_position(hand))}",
    ]
    if fixed:  # HE-5: the small bet is the big blind, the big bet twice that
        lines += [f"small_bet = {setup.big_blind}", f"big_bet = {2 * setup.big_blind}"]
    else:  # HE-4: a bet is at least the big blind
        lines.append(f"min_bet = {setup.big_blind}")
    lines.append(f"starting_stacks = {_toml_ints(hand.starting_stacks)}")
    lines.append("actions = [")
    lines += [f"  {toml_string(action)}," for action in hand_actions(hand)]
    lines += [
        "]",
        f"table = {played.table}",
        f"hand = {played.number}",
        f"seats = {_toml_ints(hand.seats)}",
        "players = [" + ", ".join(toml_string(played.names[s]) for s in hand.seats) + "]",
        f"finishing_stacks = {_toml_ints(finishing[s] for s in hand.seats)}",
    ]
    if played.deck is not None:
        # Provably fair: the whole deck, its serial and the salt of the commitment the deck
        # service made before the deal, so anyone can check both (rng_service.commit).
        deck = played.deck
        lines += [
            f"_deck_serial = {deck.serial}",
            f"_deck = {toml_string(cards_text(deck.cards))}",
            f"_deck_commitment = {toml_string(deck.commitment.hex())}",
            f"_deck_salt = {toml_string(deck.salt.hex())}",
        ]
    return "\n".join(lines)


def write_phhs(path: str | Path, played_hands: Iterable[PlayedHand]) -> int:
    """Write hands to a `.phhs` file as they come (memory flat in their number), each under
    its own TOML table `[1]`, `[2]`, ... as pokerkit's `HandHistory.dump_all` does.
    Returns how many hands were written."""
    count = 0
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for count, played in enumerate(played_hands, start=1):
            out.write(_section(count, played))
    return count


def phhs_text(played_hands: Iterable[PlayedHand]) -> str:
    """Several hands as one `.phhs` document in memory (tests, small exports)."""
    return "".join(_section(k, played) for k, played in enumerate(played_hands, start=1))


def _section(number: int, played: PlayedHand) -> str:
    # A blank line ends each hand, so sections concatenate into a valid document.
    return f"[{number}]\n{hand_to_phh(played)}\n\n"


def phhs_section(played: PlayedHand) -> str:
    """One hand as a `.phhs` section numbered by its hand number, for appending to a table's
    file as the hand ends."""
    return _section(played.number, played)
