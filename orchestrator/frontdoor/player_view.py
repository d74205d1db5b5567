"""What `mtt client` shows a person and what it understands from his keyboard. Pure: no gRPC
calls, no terminal, no clock (the time comes in as `now`, seconds of any monotonic clock).

`TableView` folds the Play stream's messages (`on`) into what the screen shows (`lines`): the
seats and stacks, the board, the pot, his own cards, the hand so far, the action clock and his
time bank (OUT-1, TB-1). Each hand's deck commitment is shown from its start; when the hand is
over `check_deck` checks the revealed deck and salt against it with the deck service's own
functions (`rng_service.commit.verify_commitment`, `rng_service.deck.is_deck`) and checks that
this deck deals exactly the cards he saw (`table_worker.engine.dealt_cards`, HE-3): his hole
cards, the board, the hands shown. He sees for himself that the deck was fixed before play.

`parse_command` turns a typed line into a `Command`, or raises `InvalidRequest` saying why it
cannot be played now (the legal actions of his prompt decide), so the client asks again.
Besides the actions: `rb` asks for a rebuy (RB-3: the server says whether he may), `y` / `n`
accept or decline the deal put to him (DEAL-1, only while it waits for his answer), and `e`
takes the re-entry offered to him after a bust (LATE, only while it stands). The screen shows
the deal (his share) and the re-entry (its price) with their keys while they wait for him.

>>> legal = gw.Legal(can_fold=True, call_amount=50, can_raise=True, min_raise_to=100,
...                  max_raise_to=990)
>>> parse_command("r 300", legal)
Command(kind=<CommandKind.ACT: 'act'>, action=3, amount=300)
>>> parse_command("check", legal)
Traceback (most recent call last):
...
orchestrator.frontdoor.errors.InvalidRequest: you cannot check: 50 to call (c) or fold (f)
"""

from __future__ import annotations

import textwrap
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator.frontdoor.errors import InvalidRequest
from orchestrator.views.amounts import money
from rng_service.commit import verify_commitment
from rng_service.deck import is_deck
from table_worker._proto import gateway_pb2 as gw
from table_worker.cards import card_text
from table_worker.engine import dealing_order, dealt_cards

__all__ = [
    "HELP",
    "Command",
    "CommandKind",
    "DeckCheck",
    "TableView",
    "check_deck",
    "parse_command",
]

HELP = (
    "f fold | k check | c check/call | r N or b N raise/bet to N | a all-in | "
    "s sit out | back I'm back | rb rebuy | y/n deal | e re-enter | q quit"
)
NOTES = 8  # the last lines of news kept under the table
_STREETS = ("pre-flop", "flop", "turn", "river", "over")


# --- the keyboard ---------------------------------------------------------------------------


class CommandKind(StrEnum):
    ACT = "act"  # an Action for the pending prompt
    SIT_OUT = "sit_out"
    BACK = "back"  # "I'm back" (OUT-1)
    REBUY = "rebuy"  # RB-3: a rebuy, taken at his next hand boundary if he may
    ACCEPT = "accept"  # DEAL-1: his answer to the deal waiting for it
    DECLINE = "decline"
    REENTER = "reenter"  # LATE: the re-entry offered after his bust
    HELP = "help"
    QUIT = "quit"


@dataclass(frozen=True, slots=True)
class Command:
    kind: CommandKind
    action: gw.ActionKind.ValueType = gw.ACTION_KIND_UNSPECIFIED  # FOLD, CHECK_CALL, RAISE_TO
    amount: int = 0  # RAISE_TO: the total bet this street


_WORDS = {  # what he may type -> the one word the parser acts on
    "f": "fold",
    "fold": "fold",
    "k": "check",
    "check": "check",
    "x": "check",
    "c": "c",
    "call": "call",
    "r": "raise",
    "raise": "raise",
    "b": "raise",
    "bet": "raise",
    "back": "back",
    "a": "allin",
    "allin": "allin",
    "all-in": "allin",
    "s": "sit",
    "sit": "sit",
    "sitout": "sit",
    "h": "help",
    "help": "help",
    "?": "help",
    "q": "quit",
    "quit": "quit",
    "exit": "quit",
    "rb": "rebuy",
    "rebuy": "rebuy",
    "y": "accept",
    "yes": "accept",
    "accept": "accept",
    "n": "decline",
    "no": "decline",
    "decline": "decline",
    "e": "reenter",
    "reenter": "reenter",
    "re-enter": "reenter",
}

# The words that need no prompt: anything else is an action, played only when asked.
_NOT_ACTIONS = {
    "help": CommandKind.HELP,
    "quit": CommandKind.QUIT,
    "sit": CommandKind.SIT_OUT,
    "back": CommandKind.BACK,
    "rebuy": CommandKind.REBUY,  # the server checks RB-3's terms and says
}


def parse_command(
    text: str, legal: gw.Legal | None, *, deal: bool = False, reentry: bool = False
) -> Command:
    """The command a typed line means; `legal` is the pending prompt's (None: not his turn),
    `deal` whether a deal waits for his answer, `reentry` whether a re-entry is offered to
    him. InvalidRequest says why a line cannot be played now; nothing is sent then."""
    words = text.strip().lower().split()
    if not words:
        raise InvalidRequest(f"type a command: {HELP}")
    word = _WORDS.get(words[0])
    if word is None:
        raise InvalidRequest(f"unknown command {words[0]!r}: type h for help")
    if word in ("accept", "decline", "reenter") and len(words) > 1:
        raise InvalidRequest(f"{words[0]!r} takes nothing after it")
    if word in _NOT_ACTIONS:
        return Command(_NOT_ACTIONS[word])
    if word in ("accept", "decline"):
        if not deal:
            raise InvalidRequest("no deal is waiting for your answer")
        return Command(CommandKind.ACCEPT if word == "accept" else CommandKind.DECLINE)
    if word == "reenter":
        if not reentry:
            raise InvalidRequest("no re-entry is offered to you (one may follow a bust)")
        return Command(CommandKind.REENTER)
    if legal is None:
        raise InvalidRequest("not your turn: wait until you are asked to act")
    if word != "raise" and len(words) > 1:
        raise InvalidRequest(f"{words[0]!r} takes no amount")
    return _action(word, words[1:], legal)


def _action(word: str, rest: list[str], legal: gw.Legal) -> Command:
    to_call = legal.call_amount
    if word == "fold":
        if not legal.can_fold:
            raise InvalidRequest("nothing to fold against: check instead (k)")
        return Command(CommandKind.ACT, gw.FOLD)
    if word == "check" and not legal.can_check:
        raise InvalidRequest(f"you cannot check: {to_call:,} to call (c) or fold (f)")
    if word == "call" and legal.can_check:
        raise InvalidRequest("nothing to call: check (k) or bet (r N)")
    if word in ("check", "call", "c"):
        return Command(CommandKind.ACT, gw.CHECK_CALL)
    if word == "allin":
        if legal.can_raise:
            return Command(CommandKind.ACT, gw.RAISE_TO, legal.max_raise_to)
        return Command(CommandKind.ACT, gw.CHECK_CALL)  # calling is all he can put in
    if not legal.can_raise:
        raise InvalidRequest("no raise is possible now: call (c) or fold (f)")
    if len(rest) != 1:
        raise InvalidRequest(
            f"say how much: r N, the total bet, {legal.min_raise_to:,}..{legal.max_raise_to:,}"
        )
    amount = _chips(rest[0])
    if not legal.min_raise_to <= amount <= legal.max_raise_to:
        raise InvalidRequest(
            f"raise to {amount:,} is outside {legal.min_raise_to:,}..{legal.max_raise_to:,} "
            "(HE-4: at least the minimum raise, at most your stack)"
        )
    return Command(CommandKind.ACT, gw.RAISE_TO, amount)


def _chips(text: str) -> int:
    digits = text.replace(",", "").replace("_", "")
    if not digits.isdigit():
        raise InvalidRequest(f"{text!r} is not a number of chips (whole chips, e.g. r 300)")
    return int(digits)


# --- the deck -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeckCheck:
    verified: bool
    reason: str  # verified: what was checked; else what failed


def check_deck(view: pb.HandView, result: pb.HandResult) -> DeckCheck:
    """Whether the deck revealed after the hand is the one committed before it and the one
    that dealt the cards this player saw (his own, the board, the hands shown)."""
    cards, salt, committed = result.deck_cards, result.deck_salt, view.deck_commitment
    if not committed:
        return DeckCheck(False, "no deck commitment was published before the deal")
    if not cards or not salt:
        return DeckCheck(False, "the deck and its salt were not revealed after the hand")
    if not is_deck(cards):
        return DeckCheck(False, "the revealed deck is not 52 distinct cards")
    if not verify_commitment(cards, salt, committed):
        return DeckCheck(False, "the revealed deck does not match the commitment shown before")
    seats = [s.seat for s in view.seats]
    if view.your_seat not in seats:
        return DeckCheck(False, f"seat {view.your_seat} is not among the hand's seats")
    order = [seats[k] for k in dealing_order(seats, view.button)]
    holes, board = dealt_cards(cards, len(order))
    hole_of = dict(zip(order, holes, strict=True))
    if list(hole_of[view.your_seat]) != list(view.hole_cards):
        return DeckCheck(False, "the revealed deck did not deal your hole cards")
    if list(board[: len(result.board)]) != list(result.board):
        return DeckCheck(False, "the revealed deck did not deal this board")
    for action in result.actions:
        if action.kind == "show" and sorted(action.cards) != sorted(hole_of.get(action.seat, ())):
            return DeckCheck(False, f"the revealed deck did not deal seat {action.seat}'s hand")
    return DeckCheck(True, "it matches its commitment and dealt every card you saw")


# --- the screen -----------------------------------------------------------------------------


def cards_shown(codes: Iterable[int]) -> str:
    """Card codes as text, space-separated ('--' for none)."""
    text = " ".join(card_text(code) for code in codes)
    return text or "--"


@dataclass
class _Prompt:
    request: pb.ActionPrompt
    received: float  # `now` when it arrived


class TableView:
    """The client's picture of his table, from the messages of his Play stream."""

    def __init__(self, tournament: str, player: str) -> None:
        self.tournament = tournament
        self.player = player
        self.state = "connecting"  # the tournament's, from Welcome
        self.out = ""  # why he is Out ("" in play)
        self.hand: pb.HandView | None = None
        self.public: gw.PublicState | None = None  # the hand as last seen
        self.prompt: _Prompt | None = None
        self.result: pb.HandResult | None = None  # the last hand's, until the next starts
        self.finished: pb.Finished | None = None
        self.deal: pb.DealStatus | None = None  # the latest deal put to him (DEAL-1)
        self.reentry: pb.ReentryOffer | None = None  # the re-entry offered him (LATE)
        self.notes: deque[str] = deque(maxlen=NOTES)

    @property
    def legal(self) -> gw.Legal | None:
        """The pending prompt's legal actions; None when it is not his turn."""
        return self.prompt.request.legal if self.prompt is not None else None

    @property
    def deal_waiting(self) -> bool:
        """Whether a deal waits for his answer (DEAL-1)."""
        deal = self.deal
        if deal is None or deal.state != "proposed":
            return False
        return any(s.player == self.player and not s.answer for s in deal.shares)

    def note(self, text: str) -> None:
        self.notes.append(text)

    # --- the stream ---------------------------------------------------------------------

    def on(self, message: pb.ServerMessage, now: float) -> None:
        kind = message.WhichOneof("kind")
        if kind == "welcome":
            self.state = message.welcome.state
            self.note(f"welcome, {message.welcome.player}: tournament {self.state}")
        elif kind == "resume":
            resume = message.resume
            if resume.HasField("hand"):
                self._start(resume.hand)
                if resume.HasField("state"):
                    self.public = resume.state
        elif kind == "hand_started":
            self._start(message.hand_started)
        elif kind == "action_request":
            self.prompt = _Prompt(message.action_request, now)
            self.public = message.action_request.state
        elif kind == "action_accepted":
            self.prompt = None
        elif kind == "hand_result":
            self._result(message.hand_result)
        elif kind == "moved":
            moved = message.moved
            self.note(f"moved from table {moved.from_table} to table {moved.to_table}")
        elif kind == "status":
            status = message.status
            self.out = status.reason if status.out else ""
            if status.out:
                self.prompt = None
                self.note(f"you are Out ({status.reason}): type back when you are back")
        elif kind == "error":
            self.note(f"refused: {message.error.message}")
        elif kind in ("deal", "reentry_offer", "rebuy_accepted", "chips_added", "bounty_won"):
            self._structure(message, kind)
        elif kind == "finished":
            self.finished = message.finished
            self.prompt, self.state, self.reentry = None, "over", None
            place = message.finished.place
            self.note(f"tournament over: place {place}" if place else "tournament over")

    def _structure(self, message: pb.ServerMessage, kind: str) -> None:
        """What the structures tell him: a deal, a re-entry offered, rebuys and chips added,
        a bounty won."""
        if kind == "deal":
            self.deal = message.deal
            self.note(_deal_text(message.deal, self.player))
        elif kind == "reentry_offer":
            offer = self.reentry = message.reentry_offer
            self.note(
                f"you busted: re-enter for {money(offer.price)} (e) until level "
                f"{offer.until_level} ends"
            )
        elif kind == "rebuy_accepted":
            self.note("rebuy taken: its chips come at your next hand")
        elif kind == "chips_added":
            added = message.chips_added
            if added.kind == "reentry":
                self.reentry = None
            self.note(f"{added.kind}: {added.chips:,} chips added to your stack")
        else:
            won = message.bounty_won
            self.note(f"you knocked out {won.eliminated}: bounty {money(won.cash)} paid to you")

    def _start(self, view: pb.HandView) -> None:
        self.hand, self.public, self.result, self.prompt = view, None, None, None
        self.state = "running"  # a hand is dealt (Welcome said how it stood at the connection)
        self.note(f"hand #{view.hand}: deck committed before the deal")

    def _result(self, result: pb.HandResult) -> None:
        self.result, self.prompt = result, None
        names = {s.seat: s.player for s in result.stacks}
        told = [_action_text(a, names) for a in result.actions if a.kind in ("show", "award")]
        mine = [s.stack for s in result.stacks if s.player == self.player]
        self.note(
            f"hand #{result.hand} over: board {cards_shown(result.board)}; {', '.join(told)}"
            + (f"; your stack {mine[0]:,}" if mine else "")
        )
        view = self.hand
        if view is None or (view.table, view.hand) != (result.table, result.hand):
            self.note(f"hand #{result.hand} over (joined late: its deck cannot be checked)")
            return
        check = check_deck(view, result)
        if check.verified:
            self.note(f"hand #{result.hand}: deck verified: {check.reason}")
        else:
            self.note(f"!!! hand #{result.hand}: DECK NOT VERIFIED: {check.reason} !!!")

    # --- what the screen shows ----------------------------------------------------------

    def lines(self, now: float, width: int = 80, height: int = 24) -> list[str]:
        """The screen's lines, at most `height`, none wider than `width` (a longer one wraps,
        indented): the table, his turn and the keys first, then as much of the news as fits,
        the newest last."""
        head = [f"mtt client - tournament {self.tournament} - {self.player} - {self.state}"]
        if self.out:
            head[0] += f" - OUT ({self.out})"
        head += ["", "waiting for a hand..."] if self.hand is None else self._table(self.hand)
        head += ["", *self._turn(now), "keys: " + HELP, ""]
        top = _wrapped(head, width)
        news = _wrapped(list(self.notes), width)
        room = max(0, height - len(top))
        return (top + news[len(news) - room :] if room else top)[:height]

    def _table(self, view: pb.HandView) -> list[str]:
        result, public = self.result, self.public
        blinds = f"blinds {view.small_blind:,}/{view.big_blind:,}"
        if view.ante:
            blinds += f" ante {view.ante:,}"
        street = _STREETS[public.street] if public is not None else "pre-flop"
        if result is not None:
            street = "over"
        out = [
            f"table {view.table}  hand #{view.hand}  {blinds}  button seat {view.button}  {street}",
            f"commitment {view.deck_commitment.hex() or '(none published for this deck)'}",
        ]
        board = result.board if result is not None else (public.board if public else [])
        pot = public.pot if public is not None and result is None else 0
        out.append(f"board {cards_shown(board)}" + (f"   pot {pot:,}" if pot else ""))
        out.append("")
        out += self._seats(view)
        out.append("")
        out.append(f"your cards {cards_shown(view.hole_cards)}")
        actions = result.actions if result is not None else (public.actions if public else [])
        if actions:
            names = {s.seat: s.player for s in view.seats}
            out.append("hand so far: " + ", ".join(_action_text(a, names) for a in actions[-12:]))
        return out

    def _seats(self, view: pb.HandView) -> list[str]:
        start = {s.seat: s.stack for s in view.seats}
        now: dict[int, gw.SeatState] = {}
        if self.public is not None:
            now = {s.seat: s for s in self.public.seats}
        final = {s.seat: s.stack for s in self.result.stacks} if self.result is not None else {}
        acting = self.prompt.request.seat if self.prompt is not None else None
        rows = []
        for seat in sorted(start):
            name = next(s.player for s in view.seats if s.seat == seat)
            state = now.get(seat)
            stack = final.get(seat, state.stack if state is not None else start[seat])
            marks = []
            if seat == view.button:
                marks.append("button")
            if seat == view.your_seat:
                marks.append("you")
            if state is not None and state.street_bet and self.result is None:
                marks.append(f"bet {state.street_bet:,}")
            if state is not None and state.folded:
                marks.append("folded")
            pointer = ">" if seat == acting else " "
            rows.append(f"{pointer} seat {seat:>2}  {name:<16} {stack:>12,}  {' '.join(marks)}")
        return rows

    def _turn(self, now: float) -> list[str]:
        if self.finished is not None:
            return ["the tournament is over for you: q to quit"]
        asked = []
        if self.deal_waiting and self.deal is not None:
            share = next(s for s in self.deal.shares if s.player == self.player)
            asked.append(
                f"DEAL ({self.deal.kind}): {money(share.amount)} for you: accept (y) or decline (n)"
            )
        if self.reentry is not None:
            asked.append(
                f"RE-ENTRY: entry {self.reentry.entry} for {money(self.reentry.price)} from "
                f"your wallet (e), until level {self.reentry.until_level} ends"
            )
        return asked + self._prompt(now)

    def _prompt(self, now: float) -> list[str]:
        prompt = self.prompt
        if prompt is None:
            return ["waiting for the others..." if self.hand is not None else ""]
        request, legal = prompt.request, prompt.request.legal
        options = []
        if legal.can_check:
            options.append("check (k)")
        else:
            options.append(f"call {legal.call_amount:,} (c)")
        if legal.can_fold:
            options.append("fold (f)")
        if legal.can_raise:
            options.append(f"raise to {legal.min_raise_to:,}..{legal.max_raise_to:,} (r N)")
        return [f"YOUR TURN: {', '.join(options)}", clock_text(request, now - prompt.received)]


def _wrapped(lines: list[str], width: int) -> list[str]:
    return [
        piece
        for line in lines
        for piece in (textwrap.wrap(line, width, subsequent_indent="    ") or [""])
    ]


def clock_text(request: pb.ActionPrompt, elapsed: float) -> str:
    """The action clock and the time bank as they stand `elapsed` seconds after the prompt
    came: the bank runs only once the clock has (TB-1)."""
    clock = max(0.0, request.seconds - elapsed)
    bank = max(0.0, request.time_bank_seconds - max(0.0, elapsed - request.seconds))
    text = f"clock {clock:.0f}s  time bank {bank:.0f}s"
    return text + ("  (time bank running)" if clock == 0.0 and bank > 0.0 else "")


def _deal_text(deal: pb.DealStatus, player: str) -> str:
    mine = next((s for s in deal.shares if s.player == player), None)
    share = f": {money(mine.amount)} for you" if mine is not None else ""
    if deal.state == "proposed" and mine is not None and not mine.answer:
        return f"deal proposed ({deal.kind}){share}: accept (y) or decline (n)"
    answers = ", ".join(f"{s.player} {s.answer}" for s in deal.shares if s.answer)
    return f"deal {deal.state} ({deal.kind}){share}" + (f"; {answers}" if answers else "")


def _action_text(action: gw.PublicAction, names: dict[int, str]) -> str:
    if action.kind == "board":
        return f"board {cards_shown(action.cards)}"
    who = names.get(action.seat, f"seat {action.seat}")
    if action.kind == "show":
        return f"{who} shows {cards_shown(action.cards)}"
    if action.kind == "award":
        return f"{who} wins {action.amount:,}"
    if action.kind == "raise":
        return f"{who} raises to {action.amount:,}"
    return f"{who} {action.kind}" + (f" {action.amount:,}" if action.amount else "")
