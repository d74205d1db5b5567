"""Errors of the orchestrator, all in one place.

Hierarchy::

    OrchestratorError                  every error the orchestrator core raises on purpose
    ├── ConfigError                    a tournament config that cannot run: unknown keys,
    │                                  impossible values (orchestrator.core.config)
    ├── UnreadableRun                  a run's files that `mtt replay` cannot read (file, line)
    ├── FolderInUse                    an output folder holding another run's files (`mtt run
    │                                  --out`, `mtt export DIR`): refused unless told (--force)
    ├── RecordError                    a stored record or snapshot the codec cannot read: an
    │                                  unknown type or class, a version newer than this code,
    │                                  a missing, extra or mistyped field (names which)
    ├── RecoveryError                  a restarted orchestrator cannot rebuild the tournament
    │                                  from its log: replaying it decides something else (names
    │                                  the seq), or the log cannot be made whole again
    ├── ReportError                    a table's hand report that does not match the hand it
    │                                  was dealt, or comes from a table that is not open
    ├── UiServerError                  the live view (views.live) cannot listen: the port
    │                                  is taken or the address is not this machine's
    ├── TournamentStateError           an operator command the tournament's state refuses:
    │                                  pausing a paused or ended one, resuming one not paused,
    │                                  cancelling one already finished or cancelled
    ├── DealError                      a deal at the final table that cannot be made (DEAL-1..3):
    │   │                              not at the final table, a bad kind or amount left, an
    │   │                              answer from a player not in it (core.deals)
    │   └── DealInHandError            the final table is in a hand: propose at its boundary
    │                                  (the front door pauses and proposes again)
    ├── FloorError                     the table floor refused a request (orchestrator.core.floor);
    │   │                              the floor's state is unchanged when it is raised
    │   ├── InvalidSeatingError        impossible seating: bad max_per_table, duplicate or too
    │   │                              few players, a seat outside 1..max_per_table
    │   ├── UnknownTableError          a table that was never opened or is already closed
    │   ├── UnknownPlayerError         a player who was never seated (also a LookupError)
    │   ├── PlayerEliminatedError      a player already eliminated, e.g. eliminated twice
    │   │                              (also a LookupError)
    │   └── InvalidReportError         a hand report that cannot be true: a player who is not
    │                                  at that table, a big blind seat outside the table,
    │                                  every player of the table eliminated in one hand
    ├── LedgerError                    the money ledger refused a posting (core.ledger);
    │   │                              no balance changed and nothing was recorded
    │   ├── InvalidAmountError         a negative amount, or a percentage outside 0..100%
    │   │                              (also a ValueError)
    │   ├── UnknownAccountError        an account that was never opened (also a LookupError)
    │   ├── AccountExistsError         opening an account twice
    │   ├── InsufficientFundsError     the posting would overdraw an account: a player, the
    │   │                              prize pool or the operator's commission
    │   ├── NoEntryError               a refund or roll-forward for a player with no entry paid
    │   │                              and not yet settled
    │   ├── IdempotencyConflictError   a wallet call (shell.store.accounts) whose idempotency key
    │   │                              was used before for another account, kind or amount
    │   └── LedgerInvariantError       `Ledger.check()` found the books out of balance (a bug)
    ├── RegistrationError              registration refused a command (core.registration);
    │   │                              registration and ledger are unchanged
    │   ├── RegistrationStateError     an illegal state transition (start a cancelled event),
    │   │                              or starting with fewer than the minimum entries
    │   ├── RegistrationClosedError    registering when registration is not open (announced,
    │   │                              past the late registration level, finished, cancelled)
    │   ├── TournamentFullError        registering when `max_entries` are taken
    │   ├── AlreadyRegisteredError     registering twice (a player still in)
    │   ├── NotRegisteredError         unregistering a player who holds no entry
    │   ├── UnregisterClosedError      unregistering after the start (REG-2)
    │   ├── ReentryError               a re-entry not allowed: limit reached (also a closed
    │   │                              window, see RegistrationClosedError)
    │   ├── SkillRangeError            a ranking outside the tournament's range (SKILL-2)
    │   └── UnknownEntrantError        a player the room does not know: no ranking or no
    │                                  account (also a LookupError)
    └── SanctionError                  a judge's sanction refused (orchestrator.core.sanctions);
        │                              the sanction book is unchanged
        ├── InvalidSanctionError       no judge or reason, a bad penalty, a rescission not by
        │                              the head judge or of a sanction that cannot be rescinded
        ├── NotInPlayError             a player who is not in the tournament (also a LookupError)
        └── AlreadyDisqualifiedError   a player already disqualified (SAN-1)

    StoreError                         the tournament store (orchestrator.shell.store) failed or
    │                                  refused; infrastructure, so not an OrchestratorError
    ├── BadStoreUrl                    a URL naming no backend (`redis://host:port/db` and
    │                                  `sqlite:///path` are the ones we have)
    ├── StoreUnavailable               the backend cannot be reached (Redis down or restarting,
    │                                  SQLite locked or unopenable); on Redis an append that
    │                                  raises it may or may not have landed: read back
    ├── StoreCorrupted                 a stored record cannot be decoded; names the tournament
    │                                  and the seq (a bug or a hand-edited store)
    ├── StoreLost                      the store does not hold the epoch it held: it lost its
    │                                  data (Redis restarted empty, a file replaced); nothing
    │                                  more is written to it or dealt from it (RNG-3)
    ├── LogConflict                    an append refused: a seq already there, or not the next
    │                                  one (a gap); the log is unchanged
    ├── HandConflict                   an append refused: a hand history already stored for that
    │                                  (table, hand) with another text; nothing is written
    ├── LeaseLost                      another orchestrator holds the tournament's lease: this
    │                                  one must take no further decision
    ├── TournamentExists               registering a tournament twice
    └── UnknownTournament              meta of a tournament never registered (also a LookupError)

    RemoteError                        a part running elsewhere (a Ray actor, the cluster, the
    │                                  deck service) failed a call; infrastructure, so not an
    │                                  OrchestratorError
    ├── RemoteUnavailable              it is gone or cannot be reached: an actor that died past
    │                                  its restarts or is restarting, a lost node or object
    ├── RemoteTimeout                  no answer within the time allowed
    └── RemoteFailure                  the call raised an error of no package of ours (a bug
                                       over there); the message names it

Domain errors (a report that breaks the rules) live under OrchestratorError; infrastructure
errors (a store down, an actor gone) under StoreError and RemoteError. Foreign errors (Ray's,
redis's, sqlite3's, the deck service's) are translated into these by one table,
`orchestrator.shell.errors`, with ``raise StoreUnavailable(...) from exc``; an error of ours
raised inside a Ray actor comes back as itself. `PACKAGE_ERRORS` holds the three families.
The used-deck store that `Store.decks` hands out is the deck service's own and raises
`rng_service.errors.DeckStoreError` and its subclasses (the table maps them too).
"""

from __future__ import annotations

__all__ = [
    "PACKAGE_ERRORS",
    "AccountExistsError",
    "AlreadyDisqualifiedError",
    "AlreadyRegisteredError",
    "BadStoreUrl",
    "ConfigError",
    "DealError",
    "DealInHandError",
    "FloorError",
    "FolderInUse",
    "HandConflict",
    "IdempotencyConflictError",
    "InsufficientFundsError",
    "InvalidAmountError",
    "InvalidReportError",
    "InvalidSanctionError",
    "InvalidSeatingError",
    "LeaseLost",
    "LedgerError",
    "LedgerInvariantError",
    "LogConflict",
    "NoEntryError",
    "NotInPlayError",
    "NotRegisteredError",
    "OrchestratorError",
    "PlayerEliminatedError",
    "RecordError",
    "RecoveryError",
    "ReentryError",
    "RegistrationClosedError",
    "RegistrationError",
    "RegistrationStateError",
    "RemoteError",
    "RemoteFailure",
    "RemoteTimeout",
    "RemoteUnavailable",
    "ReportError",
    "SanctionError",
    "SkillRangeError",
    "StoreCorrupted",
    "StoreError",
    "StoreLost",
    "StoreUnavailable",
    "TournamentExists",
    "TournamentFullError",
    "TournamentStateError",
    "UiServerError",
    "UnknownAccountError",
    "UnknownEntrantError",
    "UnknownPlayerError",
    "UnknownTableError",
    "UnknownTournament",
    "UnreadableRun",
    "UnregisterClosedError",
]


class OrchestratorError(Exception):
    """Base of every error the orchestrator raises on purpose."""


class FloorError(OrchestratorError):
    """The table floor (seating, balancing, closing) refused a request; state unchanged."""


class InvalidSeatingError(FloorError):
    """An impossible seating: bad `max_per_table`, duplicate or too few players, bad seat."""


class UnknownTableError(FloorError):
    """A table that was never opened or is already closed."""


class UnknownPlayerError(FloorError, LookupError):
    """A player who was never seated in this tournament."""


class PlayerEliminatedError(FloorError, LookupError):
    """A player already eliminated (reported eliminated twice, or looked up afterwards)."""


class InvalidReportError(FloorError):
    """A hand report that cannot be true for the floor's current seating."""


class ConfigError(OrchestratorError, ValueError):
    """A tournament config that cannot run; the message names the key and what is wrong."""


class ReportError(OrchestratorError):
    """A hand report the core refuses; the tournament state is unchanged."""


class UiServerError(OrchestratorError):
    """The live view's web server could not start."""


class TournamentStateError(OrchestratorError):
    """An operator command refused in the tournament's current state; nothing changed."""


class DealError(OrchestratorError, ValueError):
    """A final-table deal that cannot be made (DEAL-1..DEAL-3); nothing changed."""


class DealInHandError(DealError):
    """DEAL-1: the final table is playing a hand; a deal is proposed at its boundary."""


class LedgerError(OrchestratorError):
    """The ledger refused a posting; no balance changed and nothing was recorded."""


class InvalidAmountError(LedgerError, ValueError):
    """A negative amount of cents, or a percentage outside 0..100%."""


class UnknownAccountError(LedgerError, LookupError):
    """An account that was never opened in this ledger."""


class AccountExistsError(LedgerError):
    """The player's account is already open in this ledger."""


class InsufficientFundsError(LedgerError):
    """The posting would take an account below zero (a player, the pool, the operator)."""


class NoEntryError(LedgerError):
    """A refund or roll-forward for a player who holds no paid, unsettled entry."""


class IdempotencyConflictError(LedgerError):
    """A wallet call reused an idempotency key with another account, kind or amount: nothing
    moved (a retry must repeat the call exactly; a new movement needs a new key)."""


class LedgerInvariantError(LedgerError):
    """The books do not balance: a bug, never a user's mistake."""


class RegistrationError(OrchestratorError):
    """Registration refused a command; registration and ledger are unchanged."""


class RegistrationStateError(RegistrationError):
    """A transition the registration state machine does not allow now."""


class RegistrationClosedError(RegistrationError):
    """Registration (or re-entry) is not open now (REG-1)."""


class TournamentFullError(RegistrationError):
    """Every one of the tournament's `max_entries` is taken."""


class AlreadyRegisteredError(RegistrationError):
    """The player already holds an entry that is still in play."""


class NotRegisteredError(RegistrationError):
    """The player holds no entry to unregister."""


class UnregisterClosedError(RegistrationError):
    """Unregistering is allowed only before the start (REG-2)."""


class ReentryError(RegistrationError):
    """A re-entry the tournament's rules do not allow (limit reached)."""


class FundingWithdrawnError(RegistrationError):
    """A payment the front door withdrew (after a restart, to credit it back) cannot be taken."""


class FundingTakenError(RegistrationError):
    """A payment the run took already cannot be withdrawn (nor taken a second time)."""


class SkillRangeError(RegistrationError):
    """The player's ranking is outside the tournament's admitted range (SKILL-2)."""


class UnknownEntrantError(RegistrationError, LookupError):
    """A player the room does not know: no ranking record or no ledger account."""


class SanctionError(OrchestratorError):
    """A judge's sanction was refused; the sanction book is unchanged."""


class InvalidSanctionError(SanctionError):
    """A sanction without judge or reason, a bad penalty, or a rescission that is not allowed."""


class NotInPlayError(SanctionError, LookupError):
    """The sanctioned player is not in the tournament."""


class AlreadyDisqualifiedError(SanctionError):
    """The player is already disqualified (SAN-1)."""


class StoreError(Exception):
    """The tournament store failed or refused a write (infrastructure, not the rules)."""


class BadStoreUrl(StoreError, ValueError):
    """A store URL that names no backend we have, or is malformed."""


class StoreUnavailable(StoreError):
    """The store cannot be reached now; the caller may retry later.

    On Redis an append that raises this may have landed (the reply was lost): read the log
    back before appending again. On SQLite the transaction was rolled back.
    """


class StoreCorrupted(StoreError):
    """A stored record cannot be decoded: bad JSON, or a record that is not what its key says."""

    def __init__(self, tournament: str, seq: int | None, detail: str) -> None:
        where = f"tournament {tournament!r}" + ("" if seq is None else f" seq {seq}")
        super().__init__(f"corrupted record in {where}: {detail}")
        self.tournament = tournament
        self.seq = seq


class StoreLost(StoreError):
    """The store lost its data: it no longer holds the epoch it had when the run began (a
    Redis restarted empty, a file replaced). Nothing more is written to it, and no deck is
    dealt from it: decks dealt before could be dealt again (RNG-3)."""


class LogConflict(StoreError):
    """An append refused: the seq is already in the log, or does not follow the last one."""

    def __init__(self, tournament: str, *, last_seq: int, first_seq: int) -> None:
        kind = "already in the log" if first_seq <= last_seq else "leaves a gap"
        super().__init__(
            f"tournament {tournament!r}: append at seq {first_seq} {kind} "
            f"(the log ends at {last_seq}); nothing written"
        )
        self.tournament = tournament
        self.last_seq = last_seq
        self.first_seq = first_seq


class HandConflict(StoreError):
    """An append refused: the store holds another history for one of its (table, hand)."""

    def __init__(self, tournament: str, *, table: int, hand: int) -> None:
        super().__init__(
            f"tournament {tournament!r}: table {table} hand {hand} already has another "
            "history; nothing written"
        )
        self.tournament = tournament
        self.table = table
        self.hand = hand


class LeaseLost(StoreError):
    """Another orchestrator holds (or took) the tournament's ownership lease."""


class TournamentExists(StoreError):
    """The tournament is already registered in the store."""


class UnknownTournament(StoreError, LookupError):
    """The tournament was never registered in the store."""


class UnreadableRun(OrchestratorError):
    """`mtt replay`: a run's file is missing or cannot be parsed; the message names the file
    and line."""


class FolderInUse(OrchestratorError):
    """An output folder that holds the files of another run: writing there would delete them
    (the message names the folder and what is in it)."""


class RecordError(OrchestratorError, ValueError):
    """The codec (`orchestrator.core.codec`) cannot read a stored record or snapshot: the
    message names its type (or class) and the field."""


class RecoveryError(OrchestratorError):
    """The tournament cannot be rebuilt from its log: replaying a step decided something other
    than what the log holds (the message names the seq), or the store lost records this
    orchestrator no longer has."""


class RemoteError(Exception):
    """A part running elsewhere failed a call (infrastructure, not the rules)."""


class RemoteUnavailable(RemoteError):
    """The remote part is gone or cannot be reached now: an actor that died or is
    restarting, a lost node or object. A command sent to it may or may not have been carried
    out."""


class RemoteTimeout(RemoteError):
    """The remote part gave no answer within the time allowed."""


class RemoteFailure(RemoteError):
    """The remote call raised an error that is not one of ours: a bug over there."""


# Every error the package raises on purpose: a command's one line on stderr, exit 2.
PACKAGE_ERRORS: tuple[type[Exception], ...] = (OrchestratorError, StoreError, RemoteError)
