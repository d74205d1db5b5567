"""A Swiss or top-cut match played as heads-up poker between two bots, in-process, on the
hold'em engine (`table_worker.engine`). Pure: the `random.Random` passed in drives the decks,
the bots and the coin flips, so the same seed replays the same match.

A game is hands between the two bots until one has all the chips. Blinds double every
`double_every` hands so that games end; to guarantee termination, at `hand_cap` hands the
player with more chips wins the game, and with equal stacks a coin flip from the RNG decides
(so no game is drawn). A match is best of three (SW-4): first to two games. The player who
starts (takes the button in game 1) is the better seed's choice in the top cut (SW-5:
`Pairing.chooser` chooses to start) and a coin flip in the Swiss rounds; the button of game 1
then alternates between games.

Not here: running these games inside the Ray table actors (the shell's business).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum

from orchestrator.competition.swiss.model import MatchResult, Pairing, PokerConfig
from table_worker.bots import Bot, make_bot
from table_worker.engine import Hand, HandSetup
from table_worker.protocol import DECK_SIZE

__all__ = ["GameRecord", "HowDecided", "PokerMatch", "play_heads_up_game", "play_match"]

_SEAT = (1, 2)


class HowDecided(StrEnum):
    ALL_CHIPS = "all chips"
    CHIP_LEAD_AT_CAP = "chip lead at the hand cap"
    COIN_FLIP_AT_CAP = "coin flip at the hand cap (equal stacks)"


@dataclass(frozen=True, slots=True)
class GameRecord:
    winner: str
    hands: int
    decided: HowDecided
    button_first: str


@dataclass(frozen=True, slots=True)
class PokerMatch:
    a: str
    b: str
    result: MatchResult
    games: tuple[GameRecord, ...]


def play_heads_up_game(
    players: tuple[str, str],
    bots: tuple[Bot, Bot],
    config: PokerConfig,
    rng: random.Random,
    *,
    first_button: str,
) -> GameRecord:
    """Play hands until one player has every chip (or the hand cap decides)."""
    stacks = {1: config.starting_stack, 2: config.starting_stack}
    button = _SEAT[players.index(first_button)]
    deck = list(range(DECK_SIZE))
    hands = 0
    while hands < config.hand_cap and min(stacks.values()) > 0:
        level = hands // config.double_every
        other = 3 - button
        rng.shuffle(deck)
        hand = Hand(
            HandSetup(
                seats=_SEAT,
                stacks=(stacks[1], stacks[2]),
                button=button,
                small_blind_seat=button,  # HE-2: heads-up, the button posts the small blind
                big_blind_seat=other,
                small_blind=config.small_blind << level,
                big_blind=config.big_blind << level,
            ),
            deck,
        )
        while (seat := hand.actor) is not None:
            hand.act(seat, bots[seat - 1].decide(hand, hand.legal_actions()))
        stacks.update(hand.finishing_stacks())
        hands += 1
        button = other  # HE-8: the button moves every hand
    if min(stacks.values()) == 0:
        seat, decided = max(stacks, key=stacks.__getitem__), HowDecided.ALL_CHIPS
    elif stacks[1] != stacks[2]:
        seat, decided = max(stacks, key=stacks.__getitem__), HowDecided.CHIP_LEAD_AT_CAP
    else:
        seat, decided = rng.choice(_SEAT), HowDecided.COIN_FLIP_AT_CAP
    return GameRecord(players[seat - 1], hands, decided, first_button)


def play_match(
    pairing: Pairing, policies: tuple[str, str], config: PokerConfig, rng: random.Random
) -> PokerMatch:
    """Best of three heads-up games between the pairing's two players (SW-4)."""
    if pairing.b is None:
        raise ValueError("a bye is not played")
    players = (pairing.a, pairing.b)
    bots = (
        make_bot(policies[0], random.Random(rng.getrandbits(64))),
        make_bot(policies[1], random.Random(rng.getrandbits(64))),
    )
    starter = pairing.chooser if pairing.chooser is not None else rng.choice(players)
    games: list[GameRecord] = []
    wins = dict.fromkeys(players, 0)
    while max(wins.values()) < 2:
        first = starter if len(games) % 2 == 0 else _other(players, starter)
        game = play_heads_up_game(players, bots, config, rng, first_button=first)
        games.append(game)
        wins[game.winner] += 1
    result = MatchResult(games_a=wins[pairing.a], games_b=wins[pairing.b])
    return PokerMatch(pairing.a, pairing.b, result, tuple(games))


def _other(players: tuple[str, str], name: str) -> str:
    return players[1] if name == players[0] else players[0]
