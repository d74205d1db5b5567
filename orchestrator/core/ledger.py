"""The money ledger: every movement of money in a tournament, double entry, integer cents.

Accounts: one per player (what the player's wallet set aside for this tournament, opened with
`open_account`), the prize pool (`POOL`), the operator's commission (`OPERATOR`) and the
bounties of a knockout tournament (`BOUNTIES`, KO-5: never part of the prize pool). Every
posting moves a positive amount from one account to another, so the total of all accounts is
always the total opened: `check()` verifies it, and no account is ever below zero (a player
cannot pay with money they do not have, the pool cannot pay more than it holds, the operator
cannot give back commission it never took). Every posting is kept: who, from which account to
which, how much, why (with the rule ID), when (the records: `orchestrator.core.ledger_records`).

The movements and their rules:

- REG-1 `entry`: the player pays the entry, the buy-in to the pool and the fee (commission) to
  the operator. A re-entry is another `entry`. RB-2: the three pre-paid rebuys of a rebuy
  tournament are included in the entry and add nothing to the pool, so a rebuy moves no money
  and is not a ledger operation at all.
- REG-2 `refund_entry`: the pool gives the buy-in back and the operator the fee; then the
  player pays the cancellation charge, `floor(entry * basis_points / 10_000)` (the rounding
  cent stays with the player), to the **operator**: it is an administrative charge for the
  cancellation, and the prize pool must only ever hold the buy-ins of entries still in play.
- CRASH-1 `refund_all`: a tournament cancelled in registration gives every paid entry back in
  full, buy-in and fee.
- `award_prize`, DEAL-3 `pay_deal`: the pool pays a prize, or an accepted deal's amount.
- GTD-1 `pay_overlay`: when registration closes under the guarantee, the operator pays the
  overlay into the pool from his own money (an opening of his account first, so the commission
  account still shows what was taken).
- `deposit` and `cash_out`: a player's money in from his wallet (the Accounts port: an opening)
  and back to it (a posting to `WALLET`, which only fills: `check()` still counts it).
- KO-1..KO-5: an entry's `bounty` part goes to `BOUNTIES` (refunded with the entry by REG-2
  and CRASH-1); `pay_bounty` pays one from there: `won` by an eliminator (KO-3), or returned to
  its holder (the winner's own, KO-2; everyone still in at a CRASH-2 cancellation, KO-5).
- SAT-3 `award_ticket`: a satellite's pool pays a seat into the player's ticket account (apart
  from his cash); `open_ticket` brings one won elsewhere under the target's ledger, `entry(...,
  ticket=True)` spends it (buy-in to the pool, fee to the operator). REG-2 gives it back;
  CRASH-1 refunds it at face value, in cash.
- FL-3 `carry_to_day2`: a bagged flight's whole pool goes to the `event` account (Day 2's);
  `receive_flights_pool`: Day 2's pool opens with it (an opening of `event`, then the pool).
- CRASH-2 `roll_forward`: a running tournament cancelled. Each player still in gets the fee of
  their live (latest) entry back from the operator, and the pool not yet awarded is split among
  them, half equally and half by chips, posted as `equal_share` and `chip_share` (the split and
  its remainder rule: `orchestrator.core.ledger_split`). Players already eliminated get nothing
  more; prizes already paid stay paid.

Every operation checks everything, then builds all its postings, then applies them at once: a
refused operation raises a `LedgerError` and changes nothing.

>>> ledger = Ledger()
>>> ledger.open_account("ann", 11_000, now=0.0)
>>> [p.amount for p in ledger.entry("ann", buy_in=10_000, fee=1_000, now=1.0)]
[10000, 1000]
>>> ledger.pool, ledger.operator, ledger.balance_of("ann")
(10000, 1000, 0)
>>> ledger.check()
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from orchestrator.core.ledger_amounts import basis_points as _basis_points
from orchestrator.core.ledger_amounts import cancellation_charge
from orchestrator.core.ledger_amounts import cents as _cents
from orchestrator.core.ledger_records import (
    BOUNTIES,
    EVENT,
    OPERATOR,
    POOL,
    WALLET,
    Account,
    EntryPaid,
    EntryRefund,
    EntryStatus,
    LedgerSnapshot,
    Opening,
    Posting,
    Reason,
    RollForward,
    RollForwardShare,
    player_account,
    ticket_account,
)
from orchestrator.core.ledger_split import roll_forward_split
from orchestrator.errors import (
    AccountExistsError,
    InsufficientFundsError,
    InvalidAmountError,
    LedgerInvariantError,
    NoEntryError,
    UnknownAccountError,
)

__all__ = ["Ledger"]

# (player concerned, from, to, cents, why): one posting before it is numbered
_Move = tuple[str, Account, Account, int, Reason]


class Ledger:
    """The books of one tournament. Mutable, but every operation is all or nothing."""

    def __init__(self) -> None:
        self._balances: dict[Account, int] = {POOL: 0, OPERATOR: 0, BOUNTIES: 0}
        self._openings: list[Opening] = []
        self._entries: list[EntryPaid] = []
        self._entries_of: dict[str, int] = {}  # entries paid (a scan made starts quadratic)
        self._postings: list[Posting] = []

    # --- reading -------------------------------------------------------------------------

    @property
    def pool(self) -> int:
        return self._balances[POOL]

    @property
    def operator(self) -> int:
        return self._balances[OPERATOR]

    @property
    def bounties(self) -> int:
        return self._balances[BOUNTIES]

    @property
    def postings(self) -> tuple[Posting, ...]:
        return tuple(self._postings)

    @property
    def entries(self) -> tuple[EntryPaid, ...]:
        return tuple(self._entries)

    def has_account(self, player: str) -> bool:
        return player_account(player) in self._balances

    def balance_of(self, player: str) -> int:
        return self._balances[self._account(player)]

    def entries_of(self, player: str) -> int:
        """How many entries the player has paid here, refunded ones included."""
        return self._entries_of.get(player, 0)

    def paid_entries(self) -> dict[str, int]:
        """Each player holding a paid entry not yet settled, and what it cost him (REG-1)."""
        return {
            e.player: e.buy_in + e.bounty + e.fee
            for e in self._entries
            if e.status is EntryStatus.PAID
        }

    def balances(self) -> dict[Account, int]:
        return dict(self._balances)

    def total(self) -> int:
        return sum(self._balances.values())

    def snapshot(self) -> LedgerSnapshot:
        return LedgerSnapshot(
            balances=tuple(sorted(self._balances.items())),
            openings=tuple(self._openings),
            entries=tuple(self._entries),
            postings=tuple(self._postings),
        )

    def check(self) -> None:
        """The books balance: postings are numbered 1, 2, ... with positive amounts, replaying
        the openings and every posting gives the balances, their total is the total opened, and
        no account is below zero. Raises `LedgerInvariantError` otherwise."""
        replay: dict[Account, int] = {POOL: 0, OPERATOR: 0, BOUNTIES: 0}
        for opening in self._openings:
            replay[opening.account] = replay.get(opening.account, 0) + opening.balance
        for number, posting in enumerate(self._postings, start=1):
            if posting.number != number or posting.amount <= 0:
                raise LedgerInvariantError(f"posting {number} is malformed: {posting}")
            replay[posting.source] = replay.get(posting.source, 0) - posting.amount
            replay[posting.target] = replay.get(posting.target, 0) + posting.amount
        if replay != self._balances:
            raise LedgerInvariantError("the balances differ from the replayed postings")
        opened = sum(o.balance for o in self._openings)
        if self.total() != opened:
            raise LedgerInvariantError(f"the accounts hold {self.total()}, {opened} was opened")
        negative = [str(a) for a, b in self._balances.items() if b < 0]
        if negative:
            raise LedgerInvariantError(f"accounts below zero: {', '.join(negative)}")

    # --- operations ----------------------------------------------------------------------

    def open_account(self, player: str, balance: int, *, now: float) -> None:
        """Bring a player's money under the ledger (the wallet's funds for this tournament)."""
        _cents(balance, "an opening balance")
        if not player:
            raise UnknownAccountError("a player account needs a name")
        if self.has_account(player):
            raise AccountExistsError(f"{player} already has an account in this ledger")
        self._balances[player_account(player)] = balance
        self._openings.append(Opening(player_account(player), balance, now))

    def deposit(self, player: str, amount: int, *, now: float) -> None:
        """Money from the player's wallet into his account here, opening it the first time."""
        _cents(amount, "a deposit")
        if not self.has_account(player):
            self.open_account(player, amount, now=now)
            return
        self._balances[player_account(player)] += amount
        self._openings.append(Opening(player_account(player), amount, now))

    def cash_out(
        self, player: str, amount: int, *, now: float, ticket: bool = False
    ) -> Posting | None:
        """`amount` of the player's account (SAT-3 `ticket`: a ticket REG-2 gave back, from his
        ticket account) back to his wallet (None for 0: nothing moves)."""
        account = self._account(player)
        account = ticket_account(player) if ticket else account
        if _cents(amount, "a cash-out") == 0:
            return None
        self._balances.setdefault(WALLET, 0)  # opened by the first cash-out, as check() expects
        postings = self._commit([(player, account, WALLET, amount, Reason.CASH_OUT)], now)
        return postings[0] if postings else None

    def entry(
        self,
        player: str,
        *,
        buy_in: int,
        fee: int,
        now: float,
        bounty: int = 0,
        ticket: bool = False,
    ) -> tuple[Posting, ...]:
        """REG-1: the player pays `buy_in` to the pool, `bounty` to the bounties (KO-1) and
        `fee` to the operator (a re-entry is one more entry; RB-2 rebuys are inside the entry
        and move no money). SAT-3: with `ticket`, a ticket of exactly that value pays it."""
        account = self._account(player)
        _cents(buy_in, "the buy-in")
        _cents(fee, "the fee")
        _cents(bounty, "the bounty")
        reasons = (Reason.BUY_IN, Reason.BOUNTY, Reason.FEE)
        if ticket:
            account = ticket_account(player)
            held, price = self._balances.get(account, 0), buy_in + bounty + fee
            if held != price:
                raise InsufficientFundsError(
                    f"SAT-3: {player}'s ticket is worth {held}, the entry is {price}"
                )
            reasons = (Reason.TICKET_ENTRY, Reason.TICKET_ENTRY, Reason.TICKET_FEE)
        postings = self._commit(
            [
                (player, account, POOL, buy_in, reasons[0]),
                (player, account, BOUNTIES, bounty, reasons[1]),
                (player, account, OPERATOR, fee, reasons[2]),
            ],
            now,
        )
        number = self._entries_of[player] = self._entries_of.get(player, 0) + 1
        self._entries.append(
            EntryPaid(
                player=player, number=number, buy_in=buy_in, fee=fee, bounty=bounty, ticket=ticket
            )
        )
        return postings

    def open_ticket(self, player: str, value: int, *, now: float) -> None:
        """SAT-3: bring a ticket `player` won in a satellite under this ledger (his account,
        opened first, holds his cash; the ticket is held apart)."""
        _cents(value, "a ticket")
        account = ticket_account(player)
        self._account(player)
        if self._balances.get(account):  # one given back and cashed out may come again
            raise AccountExistsError(f"{player} already holds a ticket in this ledger")
        self._balances[account] = value
        self._openings.append(Opening(account, value, now))

    def ticket_of(self, player: str) -> int:
        """SAT-3: the value of the ticket(s) `player` holds in this ledger."""
        return self._balances.get(ticket_account(player), 0)

    @property
    def tickets(self) -> int:
        """SAT-3: what the ticket accounts hold (seats won, or tickets not spent yet)."""
        return sum(b for a, b in self._balances.items() if a.kind == "ticket")

    def award_ticket(self, player: str, value: int, *, now: float) -> Posting:
        """SAT-3: the pool pays a satellite's seat into `player`'s ticket account."""
        self._account(player)
        if type(value) is not int or value <= 0:
            raise InvalidAmountError(f"a ticket must be worth whole cents > 0, not {value!r}")
        if self.pool < value:
            raise InsufficientFundsError(f"SAT-3: the pool holds {self.pool}, a seat is {value}")
        self._balances.setdefault(ticket_account(player), 0)
        (posting,) = self._commit(
            [(player, POOL, ticket_account(player), value, Reason.TICKET)], now
        )
        return posting

    def refund_entry(self, player: str, *, charge_bp: int = 0, now: float) -> EntryRefund:
        """REG-2: the live entry back, less the cancellation charge (to the operator)."""
        account = self._account(player)
        _basis_points(charge_bp)
        index, entry = self._live(player)
        charge = cancellation_charge(entry.buy_in + entry.bounty + entry.fee, charge_bp)
        back = (Reason.REFUND_BUY_IN, Reason.REFUND_BOUNTY, Reason.REFUND_FEE)
        if entry.ticket:  # SAT-3: the ticket comes back whole, to be spent again
            account, charge, back = ticket_account(player), 0, (Reason.REFUND_TICKET,) * 3
        postings = self._commit(
            [
                (player, POOL, account, entry.buy_in, back[0]),
                (player, BOUNTIES, account, entry.bounty, back[1]),
                (player, OPERATOR, account, entry.fee, back[2]),
                (player, account, OPERATOR, charge, Reason.CANCELLATION_CHARGE),
            ],
            now,
        )
        self._settle({index: EntryStatus.REFUNDED})
        return EntryRefund(
            player=player,
            refund=entry.buy_in + entry.bounty + entry.fee - charge,
            charge=charge,
            postings=postings,
        )

    def refund_all(self, *, now: float) -> tuple[Posting, ...]:
        """CRASH-1: every paid entry back in full, buy-in and fee, in the order paid (SAT-3: a
        ticket's entry at its face value, in cash to the player's account)."""
        moves: list[_Move] = []
        settled: dict[int, EntryStatus] = {}
        for index, entry in enumerate(self._entries):
            if entry.status is EntryStatus.PAID:
                account = player_account(entry.player)
                moves.append((entry.player, POOL, account, entry.buy_in, Reason.CANCEL_BUY_IN))
                moves.append((entry.player, BOUNTIES, account, entry.bounty, Reason.CANCEL_BOUNTY))
                moves.append((entry.player, OPERATOR, account, entry.fee, Reason.CANCEL_FEE))
                settled[index] = EntryStatus.REFUNDED
        postings = self._commit(moves, now)
        self._settle(settled)
        return postings

    def award_prize(self, player: str, amount: int, *, now: float) -> Posting | None:
        """The pool pays `amount` to the player (None for a prize of 0: nothing moves)."""
        account = self._account(player)
        _cents(amount, "a prize")
        postings = self._commit([(player, POOL, account, amount, Reason.PRIZE)], now)
        return postings[0] if postings else None

    def pay_deal(self, player: str, amount: int, *, now: float) -> Posting | None:
        """DEAL-3: the pool pays `player` his amount of the deal (None for 0: nothing moves)."""
        account = self._account(player)
        _cents(amount, "a deal's amount")
        postings = self._commit([(player, POOL, account, amount, Reason.DEAL)], now)
        return postings[0] if postings else None

    @property
    def overlay(self) -> int:
        """GTD-1: what the operator paid into the pool to make up the guarantee."""
        return sum(p.amount for p in self._postings if p.reason is Reason.OVERLAY)

    def pay_overlay(self, guarantee: int, *, now: float) -> Posting | None:
        """GTD-1: the operator tops the pool up to `guarantee` (None when the entries reached
        it: nothing moves). Once per tournament, before any prize is paid."""
        _cents(guarantee, "the guarantee")
        overlay = guarantee - self.pool
        if overlay <= 0:
            return None
        if self.overlay:
            raise LedgerInvariantError("GTD-1: the overlay was already paid")
        if any(p.reason in (Reason.PRIZE, Reason.DEAL) for p in self._postings):
            raise LedgerInvariantError("GTD-1: the overlay is paid before any prize")
        opening = Opening(OPERATOR, overlay, now)
        self._balances[OPERATOR] += overlay
        self._openings.append(opening)
        (posting,) = self._commit([("", OPERATOR, POOL, overlay, Reason.OVERLAY)], now)
        return posting

    def carry_to_day2(self, *, now: float) -> Posting | None:
        """FL-3: a Day 1 flight bagged: its whole pool goes to the event's Day 2 (the `event`
        account; None for an empty pool: nothing moves)."""
        postings = self._commit([("", POOL, EVENT, self.pool, Reason.POOL_TO_DAY2)], now)
        return postings[0] if postings else None

    def receive_flights_pool(self, amount: int, *, now: float) -> Posting | None:
        """FL-3: Day 2's pool is every flight's: brought under this ledger as the `event`
        account's opening (as the operator's money for an overlay is), then into the pool."""
        _cents(amount, "the flights' pool")
        if any(o.account == EVENT for o in self._openings):
            raise LedgerInvariantError("FL-3: the flights' pool was already received")
        if not amount:
            return None
        self._balances[EVENT] = amount
        self._openings.append(Opening(EVENT, amount, now))
        (posting,) = self._commit([("", EVENT, POOL, amount, Reason.POOL_FROM_FLIGHTS)], now)
        return posting

    def pay_bounty(self, player: str, amount: int, *, won: bool, now: float) -> Posting | None:
        """KO-5: the bounties pay `amount` to the player, `won` by eliminating (KO-3) or
        returned to him as its holder (None for 0: nothing moves)."""
        account = self._account(player)
        _cents(amount, "a bounty")
        reason = Reason.BOUNTY_WON if won else Reason.BOUNTY_RETURNED
        postings = self._commit([(player, BOUNTIES, account, amount, reason)], now)
        return postings[0] if postings else None

    def roll_forward(
        self,
        chips: Mapping[str, int],
        *,
        now: float,
        button_distance: Mapping[str, int] | None = None,
    ) -> RollForward:
        """CRASH-2 for the players still in, `chips` = each one's stack at the cancellation;
        `button_distance` = each one's seats clockwise from his table's button (the button 0),
        the last tie-break of the remainder rule (missing: by name). The split and the
        remainder rule are in the module docstring."""
        if not chips:
            raise NoEntryError("CRASH-2: a roll-forward needs the players still in")
        lives: dict[int, EntryPaid] = {}
        for player, stack in chips.items():
            self._account(player)
            _cents(stack, f"{player}'s chips")
            index, entry = self._live(player)
            lives[index] = entry
        distance = button_distance or {}
        order = sorted(chips, key=lambda p: (-chips[p], distance.get(p, 0), p))
        chip_half = self.pool // 2
        equal_half = self.pool - chip_half
        # all stacks at zero (possible with pre-paid rebuys left): the chip half goes equally
        weights = dict(chips) if sum(chips.values()) else {p: 1 for p in order}
        equal, by_chips = roll_forward_split(equal_half, chip_half, weights, order)
        fee = {entry.player: entry.fee for entry in lives.values()}
        moves: list[_Move] = []
        for player in order:
            account = player_account(player)
            moves.append((player, OPERATOR, account, fee[player], Reason.ROLL_FORWARD_FEE))
            moves.append((player, POOL, account, equal[player], Reason.ROLL_FORWARD_EQUAL))
            moves.append((player, POOL, account, by_chips[player], Reason.ROLL_FORWARD_CHIPS))
        postings = self._commit(moves, now)
        self._settle({index: EntryStatus.ROLLED_FORWARD for index in lives})
        shares = tuple(
            RollForwardShare(
                player=p,
                chips=chips[p],
                fee=fee[p],
                equal_share=equal[p],
                chip_share=by_chips[p],
            )
            for p in order
        )
        return RollForward(shares=shares, postings=postings)

    # --- internals -----------------------------------------------------------------------

    def _account(self, player: str) -> Account:
        account = player_account(player)
        if account not in self._balances:
            raise UnknownAccountError(f"{player!r} has no account in this ledger")
        return account

    def _live(self, player: str) -> tuple[int, EntryPaid]:
        for index in range(len(self._entries) - 1, -1, -1):
            entry = self._entries[index]
            if entry.player == player:
                if entry.status is EntryStatus.PAID:
                    return index, entry
                break
        raise NoEntryError(f"{player} holds no paid entry that is not yet settled")

    def _settle(self, statuses: Mapping[int, EntryStatus]) -> None:
        for index, status in statuses.items():
            self._entries[index] = replace(self._entries[index], status=status)

    def _commit(self, moves: Iterable[_Move], now: float) -> tuple[Posting, ...]:
        """Apply every move or none: zero moves are skipped (nothing moved), and an account
        that would end below zero refuses the whole operation."""
        # Only the accounts the operation moves are copied and checked: a field's start makes
        # one entry per player, and copying every account each time made it quadratic.
        balances: dict[Account, int] = {}
        postings: list[Posting] = []
        for player, source, target, amount, reason in moves:
            if amount == 0:
                continue
            for account in (source, target):
                balances.setdefault(account, self._balances.get(account, 0))  # EVENT: FL-3
            balances[source] -= amount
            balances[target] += amount
            postings.append(
                Posting(
                    number=len(self._postings) + len(postings) + 1,
                    player=player,
                    source=source,
                    target=target,
                    amount=amount,
                    reason=reason,
                    at=now,
                )
            )
        short = [f"{a} ({b})" for a, b in balances.items() if b < 0]
        if short:
            raise InsufficientFundsError(
                f"{postings[0].rule}: not enough money in {', '.join(sorted(short))}"
            )
        self._balances.update(balances)
        self._postings.extend(postings)
        return tuple(postings)
