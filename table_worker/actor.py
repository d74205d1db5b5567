"""The table actor: one Ray actor per table, a thin shell around the hand engine.

It deals exactly the hand the orchestrator describes (seats, stacks, button, blinds), takes a
fresh deck from the deck service for every hand (validated by the client: a fouled deck is
never dealt), lets the seats' bots act, reports the hand with its history (PHH) and plays on
with the directive it gets back, until told to close. It writes no file: the hand's history
travels in the report, and the orchestrator stores it with the hand's events (DESIGN.md
"Stores: the store is the record"), so a node's disk holds nothing of the tournament.

While the deck service is away (restarting, unreachable), the table waits at its hand
boundary for its next deck for as long as it takes, and says so in its log every
`DECK_WAIT_SECONDS`: nothing is dealt, so nothing is voided, and the orchestrator has no
failed loop to restart it for.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import ray

from rng_service.client import BlockingDeckClient, DeckServiceUnavailable
from rng_service.deck import ServedDeck
from table_worker.bots import Bot, SittingOut, make_bot, policy_for
from table_worker.engine import Decision, Hand, HandSetup, LegalActions
from table_worker.errors import IllegalAction
from table_worker.phh import phhs_section
from table_worker.protocol import HandPlayer, HandReport, HandTiming, NextHand, TableDirective
from table_worker.session import PlayedHand

if TYPE_CHECKING:  # remote seats are imported by the tables that have them (the front door's)
    from table_worker.remote import GatewaySettings, RemoteSeats
DECK_WAIT_SECONDS = 30.0  # one wait for a deck; then the table says it waits, and waits on

log = logging.getLogger(__name__)


class Table:
    """The actor's body, kept free of Ray so it reads (and tests) as plain Python.

    Started with a `table`, it is that table's actor at once; started without one, it is a
    warm spare (a process started and waiting, `orchestrator.shell.tables.SparePool`) until
    `take` makes it a lost table's new actor, so that restart costs no process start."""

    def __init__(
        self,
        *,
        tournament_id: str,
        orchestrator: Any,
        deck_target: str,
        bots: tuple[str, ...],
        seed: int,
        gateway: GatewaySettings | None = None,
        table: int | None = None,
    ) -> None:
        self._tournament_id = tournament_id
        self._orchestrator = orchestrator
        self._deck_target = deck_target
        self._gateway = gateway
        self._bot_policies = bots
        self._seed = seed
        self._bots: dict[str, Bot] = {}
        self._fouled_reported = 0
        self.table = 0
        self._generation = 0
        self._decks: BlockingDeckClient | None = None
        self._remote: RemoteSeats | None = None
        self.hands_played = 0
        self._running = False
        self._closed = False
        if table is not None:
            self._seat(table, generation=0)

    def take(self, table: int, generation: int) -> str:
        """A spare becomes `table`'s actor (its `generation`-th), once; the node it runs on."""
        self._seat(table, generation)
        return self.node()

    def _seat(self, table: int, generation: int) -> None:
        """Be `table`'s actor: open its deck client, and its remote seats when the tournament
        came through the front door."""
        if self._decks is not None:
            raise RuntimeError(f"this actor is table {self.table}'s already")
        self.table, self._generation = table, generation
        self._decks = BlockingDeckClient(
            self._deck_target,
            tournament_id=self._tournament_id,
            table_id=str(table),
            wait=DECK_WAIT_SECONDS,
        )
        gateway = self._gateway
        if gateway is not None:  # every seat is a remote player then
            from table_worker.remote import RemoteSeats

            self._remote = RemoteSeats(
                gateway,
                tournament_id=self._tournament_id,
                table=table,
                lookup=gateway_lookup(gateway) if gateway.book else None,
            )

    def seated(self) -> tuple[int, int] | None:
        """The table and generation this actor plays (None: a spare not taken yet); a
        restarted orchestrator asks its spares."""
        return None if self._decks is None else (self.table, self._generation)

    def run(self, directive: TableDirective) -> int:
        """Play hands until the orchestrator closes the table; returns hands played."""
        self._running = True
        try:
            while not directive.close:
                if directive.next_hand is None:  # held until it may deal (a long poll)
                    directive = ray.get(self._orchestrator.poll.remote(self.table))
                    continue
                report = self.play(directive.next_hand)
                directive = ray.get(self._orchestrator.report_hand.remote(report))
        finally:
            self._running = False
            self.close()
        return self.hands_played

    def running(self) -> bool:
        """Whether `run` is playing (a restarted orchestrator asks before taking it over)."""
        return self._running

    def node(self) -> str:
        """The node this table runs on."""
        return str(ray.get_runtime_context().get_node_id())

    def play(self, spec: NextHand) -> HandReport:
        decks = self._dealing()
        started = time.perf_counter()
        served = self._next_deck(spec.hand)
        deck_wait = time.perf_counter() - started
        hand = Hand(HandSetup.of(spec), served.cards)
        names = {seat: player for seat, player, _ in spec.seats}
        bots = {
            # OUT-1: a seat sitting out checks when it can, otherwise folds
            seat: SittingOut() if seat in spec.sitting_out else self._bot(player)
            for seat, player in names.items()
        }
        remote = self._remote
        if remote is not None:
            remote.hand_started(spec.hand, hand, names, deck=served, level=spec.level)
        while (actor := hand.actor) is not None:
            legal = hand.legal_actions()
            if remote is None or actor in spec.sitting_out:
                hand.act(actor, bots[actor].decide(hand, legal))
            else:
                self._act_remote(remote, spec.hand, hand, legal, names)
        if remote is not None:
            remote.hand_ended(spec.hand, hand, names, deck=served)
        played = PlayedHand(self.table, spec.hand, names, hand, deck=served)
        self.hands_played += 1
        finishing = hand.finishing_stacks()
        fouled, self._fouled_reported = decks.fouled - self._fouled_reported, decks.fouled
        return HandReport(
            table=self.table,
            hand=spec.hand,
            button=spec.blinds.button,
            players=tuple(
                HandPlayer(player, seat, stack, finishing[seat])
                for seat, player, stack in spec.seats
            ),
            timing=HandTiming(
                seconds=time.perf_counter() - started,
                deck_wait_seconds=deck_wait,
                fouled_decks=fouled,
            ),
            history=phhs_section(played),
            pots=hand.pots(),
        )

    def _dealing(self) -> BlockingDeckClient:
        if self._decks is None:
            raise RuntimeError("a spare table actor deals nothing until it is taken")
        return self._decks

    def _next_deck(self, hand: int) -> ServedDeck:
        """The deck of the next hand, waiting for the deck service as long as it is away."""
        since, waited = time.monotonic(), False
        while True:
            try:
                deck = self._dealing().next_deck()
            except DeckServiceUnavailable as exc:
                waited = True
                log.warning(
                    "table %d waits at its boundary for the deck of hand %d (%.0fs so far): %s",
                    self.table,
                    hand,
                    time.monotonic() - since,
                    exc,
                )
                continue
            if waited:
                log.warning(
                    "table %d has its deck from %s again after %.0fs; hand %d is dealt",
                    self.table,
                    self._deck_target,
                    time.monotonic() - since,
                    hand,
                )
            return deck

    @staticmethod
    def _act_remote(
        remote: RemoteSeats, number: int, hand: Hand, legal: LegalActions, names: dict[int, str]
    ) -> None:
        """The player's decision; an Out player, an unreachable gateway or an action the engine
        refuses (never trusted) plays as Out (OUT-1: check, else fold)."""
        decision: Decision | None = remote.decide(number, hand, legal, names)
        if decision is not None:
            try:
                hand.act(legal.seat, decision)
                return
            except IllegalAction:
                pass
        hand.act(legal.seat, SittingOut().decide(hand, legal))

    def _bot(self, player: str) -> Bot:
        bot = self._bots.get(player)
        if bot is None:
            policy = policy_for(player, self._bot_policies, self._seed)
            bot = self._bots[player] = make_bot(policy, random.Random(f"{self._seed}:{player}"))
        return bot

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self._decks is not None:
                self._decks.close()
            if self._remote is not None:
                self._remote.close()


class GatewayBook:
    """Where the front door's table gateway is now (`GatewaySettings.book` names this actor):
    a front door publishes its gateway's address and secret at its start, so the tables of
    the tournaments it takes over, which outlived the one before it, find the new gateway."""

    def __init__(self) -> None:
        self._current: tuple[str, str] | None = None

    def publish(self, target: str, secret: str) -> None:
        self._current = (target, secret)

    def current(self) -> tuple[str, str] | None:
        return self._current


def gateway_lookup(settings: GatewaySettings) -> Callable[[], GatewaySettings | None]:
    """Ask the gateway book named in `settings` where the gateway is now (None: no book, or
    nothing published)."""

    def lookup() -> GatewaySettings | None:
        try:
            book = ray.get_actor(settings.book)
            found: Any = ray.get(book.current.remote(), timeout=BOOK_SECONDS)
        except ValueError:  # no such actor: no front door published one
            return None
        except ray.exceptions.RayError as exc:
            log.warning("the gateway book %s does not answer: %s", settings.book, exc)
            return None
        if found is None:
            return None
        target, secret = found
        return replace(settings, target=target, secret=secret)

    return lookup


BOOK_SECONDS = 5.0  # a lookup in the gateway book waits this long at most


# Typed as Any: Ray's decorator hides the class behind its own proxy type.
TableActor: Any = ray.remote(num_cpus=0, max_restarts=0)(Table)
GatewayBookActor: Any = ray.remote(num_cpus=0)(GatewayBook)
