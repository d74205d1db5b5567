"""Between the players' wallets (the `Accounts` port) and a tournament's ledger: the one place
the front door moves a player's money.

- REG-1 `pay_entry`: the core checks the terms first (`Registration.verify_terms`), then the
  entry's price is debited from the wallet, paid into the player's ledger account
  (`Ledger.deposit`) and taken by the registration (`register`). A refusal anywhere before the
  debit moves nothing; the wallet's own refusal (too little money, no account) moves nothing.
- REG-2, CRASH-1 `cash_out`: what a refund left in the player's ledger account goes back to his
  wallet (`Ledger.cash_out`, then a credit).
- `settle`: what the running tournament's ledger (the orchestrator's core) pays a player: each
  `ledger_posted` record into a player's account (prizes, bounties, deals, a CRASH-2 roll-
  forward) is credited to his wallet; SAT-3: each `ticket_awarded` of a satellite is a ticket
  to its target kept in his wallet (`Accounts.credit_ticket`).
- SAT-3 `pay_entry_by_ticket`: a ticket to this tournament held in the wallet pays the entry:
  debited there (spent), opened under the tournament's ledger (`Ledger.open_ticket`) and taken
  by the registration (`register(..., ticket=True)`). REG-2 gives the ticket back to the wallet
  (`cash_out`); CRASH-1 refunds its entry at face value, in cash, as any entry, and every ticket
  to the cancelled tournament not spent (`cash_tickets`). `handover`: the entries as the
  orchestrator is launched with them, the tickets apart.

Every wallet call carries a key made of what it is, so the desk replaying its log after a
restart, or following a run's log again, repeats each call with the same key and nothing moves
twice: `<tournament>/entry/<player>/<n>` (his n-th entry), `<tournament>/cash-out/<posting>`
(the desk ledger's posting) and `<tournament>/paid/<posting>` (the run ledger's posting); a
ticket's: `<satellite>/ticket/<player>` (won), `<tournament>/ticket-entry/<player>/<n>` (spent)
and `<tournament>/ticket-back/<posting>` (given back); `<tournament>/ticket-cashed/<player>`
(CRASH-1: a ticket not spent, paid in cash). A late
entry into a running tournament (`pay_late_entry`) is debited once per attempt under
`<tournament>/late-entry/<player>/<nonce>`, logged by the desk with the registration, and
credited back under that key plus `/refused` when the orchestrator refuses it. A re-entry
(`pay_reentry`, `orchestrator.frontdoor.reentry`) is debited under
`<tournament>/reentry/<player>/<entry>-<nonce>`, a key the desk logs before the debit, so a
restart repeats it and credits it back (`undo_reentry`) when the run never took the entry.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from orchestrator.core.events import Event
from orchestrator.core.ledger import Ledger
from orchestrator.core.ledger_records import EntryStatus, player_account, posting_event
from orchestrator.core.registration import Registration
from orchestrator.errors import InsufficientFundsError
from orchestrator.shell.store import Accounts

__all__ = ["Cashier"]

_PLAYER = f"{player_account('').kind}:"  # "player:<name>", how the log names his account


class Cashier:
    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts

    def pay_entry(
        self, tournament: str, registration: Registration, player: str, *, now: float
    ) -> tuple[Event, ...]:
        """REG-1: the player's entry from his wallet into the tournament; the registration's
        events. A player new to this tournament gets a ranking (SKILL-3) first."""
        if player not in registration.rankings:
            registration.rankings.add_player(player)
        registration.verify_terms(player)
        ledger = registration.ledger
        price = registration.rules.price
        number = 1 + ledger.entries_of(player)  # his n-th entry here: the key says which
        if price:
            self.accounts.debit(player, price, key=f"{tournament}/entry/{player}/{number}")
        ledger.deposit(player, price, now=now)
        return registration.register(player, now=now)

    def pay_entry_by_ticket(
        self, tournament: str, registration: Registration, player: str, *, now: float
    ) -> tuple[Event, ...]:
        """SAT-3: the player's ticket to this tournament, held in his wallet, pays his entry (no
        cash moves); the registration's events. The core checks the terms first; a player who
        holds no ticket to it (none, one to another tournament, or one spent) is refused by
        the wallet, and nothing moves. A repeat (the desk's replay) repeats the debit by key."""
        if player not in registration.rankings:
            registration.rankings.add_player(player)
        registration.verify_terms(player)
        ledger = registration.ledger
        price = registration.rules.price
        number = 1 + ledger.entries_of(player)
        key = f"{tournament}/ticket-entry/{player}/{number}"
        try:
            self.accounts.debit_ticket(player, tournament, price, key=key)
        except InsufficientFundsError as exc:
            raise InsufficientFundsError(
                _no_ticket(player, tournament, self.accounts.tickets(player))
            ) from exc
        if not ledger.has_account(player):
            ledger.open_account(player, 0, now=now)  # his cash stays in his wallet
        ledger.open_ticket(player, price, now=now)
        return registration.register(player, now=now, ticket=True)

    def cash_tickets(self, target: str, holders: Iterable[str]) -> int:
        """SAT-3, CRASH-1: `target` cancelled in registration: each holder's tickets to it not
        spent are paid at face value in cash to his wallet; the cents paid. The cash is
        credited before the ticket is debited, each by its key, so a repeat after a crash
        between the two finds the ticket still held and completes the pair, moving nothing
        twice."""
        paid = 0
        for player in dict.fromkeys(holders):
            held = self.accounts.tickets(player).get(target, 0)
            if not held:
                continue
            key = f"{target}/ticket-cashed/{player}"
            self.accounts.credit(player, held, key=key)
            self.accounts.debit_ticket(player, target, held, key=f"{key}/ticket")
            paid += held
        return paid

    @staticmethod
    def handover(ledger: Ledger) -> tuple[dict[str, int], dict[str, int]]:
        """What the tournament's orchestrator is launched with (`Desk._launch`): each player's
        deposit (his paid entry's price) and, SAT-3, each ticket that paid an entry (his
        deposit then 0): exactly the entries the desk took."""
        deposits = ledger.paid_entries()
        tickets = {
            e.player: deposits[e.player]
            for e in ledger.snapshot().entries
            if e.ticket and e.status is EntryStatus.PAID
        }
        deposits.update(dict.fromkeys(tickets, 0))
        return deposits, tickets

    def pay_late_entry(self, tournament: str, player: str, price: int) -> str:
        """REG-1 into a running tournament: the entry's price debited from the player's wallet
        (the orchestrator's core, not the desk's registration, takes the entry and checks its
        terms); the call's key, for `refund_late_entry`. Each attempt has a key of its own, so
        an attempt refused and refunded never makes a later one free."""
        key = f"{tournament}/late-entry/{player}/{uuid.uuid4().hex[:16]}"
        if price:
            self.accounts.debit(player, price, key=key)
        return key

    def refund_late_entry(self, key: str, player: str, price: int) -> None:
        """A late entry the orchestrator refused: its debit (`key`) credited back."""
        if price:
            self.accounts.credit(player, price, key=f"{key}/refused")

    def reentry_key(self, tournament: str, player: str, entry: int) -> str:
        """The key of one attempt at the player's `entry`-th entry (a re-entry): logged
        before its debit, so a restart finds it."""
        return f"{tournament}/reentry/{player}/{entry}-{uuid.uuid4().hex[:12]}"

    def pay_reentry(self, key: str, player: str, price: int) -> None:
        """LATE: a re-entry's price debited from the player's wallet (the orchestrator's core
        takes the entry once funded with it); `InsufficientFundsError` moves nothing."""
        if price:
            self.accounts.debit(player, price, key=key)

    def undo_reentry(self, key: str, player: str, price: int) -> None:
        """A re-entry the run never took: its debit made sure of (repeated under its key:
        nothing moves if it landed) and credited back. A wallet that refuses the repeat (too
        little money) never had it taken: nothing to give back."""
        if not price:
            return
        try:
            self.accounts.debit(player, price, key=key)
        except InsufficientFundsError:
            return
        self.accounts.credit(player, price, key=f"{key}/refused")

    def cash_out(
        self,
        tournament: str,
        registration: Registration,
        *,
        now: float,
        players: Iterable[str] | None = None,
    ) -> tuple[Event, ...]:
        """Each player's money left in the ledger (a refund) back to his wallet (`players`,
        default every one with an account); the `ledger_posted` events of the cash-outs."""
        ledger = registration.ledger
        if players is None:
            players = [a.player for a in ledger.balances() if a.kind == "player"]
        events: list[Event] = []
        for player in dict.fromkeys(players):
            if not ledger.has_account(player):
                continue
            events += self._give_back_ticket(tournament, ledger, player, now)
            posting = ledger.cash_out(player, ledger.balance_of(player), now=now)
            if posting is None:
                continue
            key = f"{tournament}/cash-out/{posting.number}"
            self.accounts.credit(player, posting.amount, key=key)
            events.append(posting_event(posting))
        return tuple(events)

    def _give_back_ticket(
        self, tournament: str, ledger: Ledger, player: str, now: float
    ) -> list[Event]:
        """SAT-3, REG-2: a ticket his unregistration gave back (in his ticket account here)
        back to his wallet, to be spent again."""
        posting = ledger.cash_out(player, ledger.ticket_of(player), now=now, ticket=True)
        if posting is None:
            return []
        key = f"{tournament}/ticket-back/{posting.number}"
        self.accounts.credit_ticket(player, tournament, posting.amount, key=key)
        return [posting_event(posting)]

    def settle(self, tournament: str, records: Sequence[dict[str, Any]]) -> int:
        """Credit every payment of the run's ledger into a player's account to his wallet;
        the cents credited (repeats included: a repeat moves nothing)."""
        paid = 0
        for record in records:
            if record.get("type") == "ticket_awarded":  # SAT-3: a seat won, to its target
                self._hold_ticket(tournament, record)
            if record.get("type") != "ledger_posted":
                continue
            target = str(record["target"])
            if not target.startswith(_PLAYER):
                continue
            player = target[len(_PLAYER) :]
            amount = int(record["amount"])
            self.accounts.credit(player, amount, key=f"{tournament}/paid/{record['posting']}")
            paid += amount
        return paid

    def _hold_ticket(self, satellite: str, won: dict[str, Any]) -> None:
        """SAT-3: a seat the satellite's ledger paid to his ticket account, kept in his wallet
        as a ticket to the target (one per player and satellite: the key says which)."""
        player, target, value = str(won["player"]), str(won["target"]), int(won["value"])
        self.accounts.credit_ticket(player, target, value, key=f"{satellite}/ticket/{player}")


def _no_ticket(player: str, tournament: str, held: dict[str, int]) -> str:
    """SAT-3: why `player`'s wallet cannot pay `tournament`'s entry by ticket."""
    if tournament in held:
        return f"SAT-3: {player}'s ticket to {tournament} is spent"
    others = ", ".join(t for t, value in held.items() if value) or "none"
    return f"SAT-3: {player} holds no ticket to {tournament} (his tickets are to: {others})"
