"""Late registration and re-entry (REG-1 while running, the LATE decisions). Pure.

Registration stays open through level `late_registration_levels`. Meanwhile:

- a late registrant (`Tournament.register_late`, a logged command: the caller decides who
  comes and when) pays his entry through the registration and takes a random seat at once,
  never one between the next hand's button and its first blind (he would get the button before
  posting); he is dealt in at his table's next hand. No seat open there: a new table opens,
  and balancing fills it at the other tables' boundaries.
- a player who busts with re-entries left (`reentries`) and the money for one enters again at
  once, as a new entry at the full price, on the same terms as a late registrant. Re-entering
  is automatic, a tournament option like auto-rebuy (`reentry_auto`). Without it the busted
  player waits for his place as anyone out does, and re-enters only when he asks before
  registration closes (`register` again, with the money he brings: `reenter`), as the front
  door's players do, whose wallets pay.
- a player who busts for good is placed when registration closes (the field is known only
  then), below everyone still in, the first out last.

A payment brought from a wallet carries its key (`player_funded`'s `key`). The front door,
restarted while a re-entry's payment was open, asks the run to withdraw it (`withdraw`) before
crediting it back: one step decides, in the run's own order, whether the run took it already
(refused: the entry stands) or never will (`funding_withdrawn`, and a later `register` with
that key is refused), so the wallet and the run's ledger cannot both keep the money.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from orchestrator.core.config import TournamentConfig
from orchestrator.core.directives import Step
from orchestrator.core.events import (
    Event,
    FundingWithdrawn,
    PlayerFunded,
    PlayerReentered,
    PlayerSeated,
)
from orchestrator.core.freezeout import FreezeOut
from orchestrator.core.places import Busted, place_eliminated
from orchestrator.core.play import Play
from orchestrator.core.rankings import STARTING_RANKING
from orchestrator.core.structures import Busts, Seating, Structure
from orchestrator.errors import (
    AccountExistsError,
    AlreadyRegisteredError,
    FundingTakenError,
    FundingWithdrawnError,
    InsufficientFundsError,
    ReentryError,
    RegistrationClosedError,
    SkillRangeError,
    TournamentFullError,
)

__all__ = ["LateEntry", "TournamentLate"]


class LateEntry(Structure):
    def __init__(self, config: TournamentConfig, seating: FreezeOut) -> None:
        self._levels = config.late_registration_levels
        self._reentries = config.reentries
        self._reentry_auto = config.reentry_auto
        self._starting_stack = config.starting_stack
        self._seats_per_table = config.max_per_table
        self._seating = seating
        self._reentered: dict[str, int] = {}
        self._busted: list[tuple[Busted, int, int]] = []  # (who, table, hand), worst first
        self._funding: dict[str, bool] = {}  # a wallet payment's key -> taken (else withdrawn)

    def _registering(self, play: Play) -> bool:
        return play.clock.level <= self._levels

    # --- late registration ----------------------------------------------------------------

    def register(
        self,
        play: Play,
        player: str,
        *,
        now: float,
        rng: random.Random,
        deposit: int = 0,
        key: str = "",
    ) -> list[Event]:
        """REG-1: a first entry while late registration is open, seated at once (never between
        the next hand's button and its first blind; dealt in at his table's next hand). A
        player the start did not fund brings `deposit` cents: `player_funded` then leads the
        step (`fund`). Refused (typed `RegistrationError` or `LedgerError`, nothing changed)
        when registration is closed, the player has entered before (re-entries follow a
        bust), cannot pay, or is not admitted, or its payment's `key` was withdrawn or taken
        before. A busted player waiting for his place re-enters (`reenter`)."""
        self._verify_key(key)
        if self.waiting(player):
            return self.reenter(play, player, now=now, rng=rng, deposit=deposit, key=key)
        if play.registration.registrant(player) is not None:
            raise AlreadyRegisteredError(
                f"{player} has entered this tournament already: a re-entry follows a bust"
            )
        events = self.fund(play, player, deposit, now=now, key=key) if deposit else []
        events += play.registration.register(player, now=now)
        play.field_size += 1
        return events + self._seat(play, player, reentry=False, rng=rng)

    def verify_fund(self, play: Play, player: str, amount: int) -> None:
        """Raise the typed error that registering `player`, funded with `amount` cents, would
        raise once funded, or nothing: `fund` must never open an account for an entry that is
        then refused (the refusal logs nothing, so the account would not replay). A player the
        start did not fund has no ranking, no entry and no past, so of `Registration`'s checks
        only these can refuse him."""
        registration = play.registration
        rules = registration.rules
        if registration.ledger.has_account(player):
            raise AccountExistsError(f"{player} already has an account in this tournament")
        if not registration.is_open():
            raise RegistrationClosedError(
                f"REG-1: late registration ended with level {self._levels}"
            )
        if rules.max_entries is not None and registration.entries >= rules.max_entries:
            raise TournamentFullError(f"all {rules.max_entries} entries are taken")
        if rules.skill_range is not None and not rules.skill_range.admits(STARTING_RANKING):
            raise SkillRangeError(f"SKILL-2: a new player is outside {rules.skill_range}")
        if amount < rules.price:
            raise InsufficientFundsError(
                f"REG-1: {player} brings {amount}, the entry is {rules.price}"
            )

    def fund(
        self, play: Play, player: str, amount: int, *, now: float, key: str = ""
    ) -> list[Event]:
        """REG-1: the account (and SKILL-3 ranking) of a late registrant the start did not
        fund, checked first (`verify_fund`); `register` takes his entry next."""
        self.verify_fund(play, player, amount)
        registration = play.registration
        registration.rankings.add_player(player)
        registration.ledger.open_account(player, amount, now=now)
        return [self._funded(player, amount, key)]

    def _funded(self, player: str, amount: int, key: str) -> PlayerFunded:
        if key:
            self._funding[key] = True
        return PlayerFunded(player=player, amount=amount, key=key)

    def _verify_key(self, key: str) -> None:
        taken = self._funding.get(key)
        if taken is None:
            return
        if taken:
            raise FundingTakenError(f"the payment {key} was taken already")
        raise FundingWithdrawnError(
            f"the payment {key} was withdrawn by the front door (credited back): ask again"
        )

    def withdraw(self, key: str) -> list[Event]:
        """The front door gives a payment back (after a restart with it open): refused
        (`FundingTakenError`, nothing changed) if the run took it, else withdrawn for good."""
        if not key:
            raise FundingWithdrawnError("a payment is withdrawn by its key, not an empty one")
        if self._funding.get(key):
            raise FundingTakenError(f"the payment {key} was taken: its entry stands")
        self._funding[key] = False
        return [FundingWithdrawn(key=key)]

    # --- re-entry on request (`reentry_auto` false) ---------------------------------------

    def waiting(self, player: str) -> bool:
        """Whether the player busted while registration is open and waits for his place."""
        return any(who.player == player for who, _, _ in self._busted)

    def verify_reenter(self, play: Play, player: str, deposit: int) -> None:
        """Raise the typed error `reenter` would raise, or nothing: the player busted and
        waits for his place, registration is open, he has re-entries left, an entry is left,
        and his account holds the price once `deposit` is in."""
        registration = play.registration
        rules = registration.rules
        if not self.waiting(player):
            raise ReentryError(f"{player} has not busted: a re-entry follows a bust")
        if not (self._registering(play) and registration.is_open()):
            raise RegistrationClosedError(
                f"REG-1: late registration (and re-entry) ended with level {self._levels}"
            )
        if self._reentered.get(player, 0) >= self._reentries:
            raise ReentryError(f"{player} has used all {self._reentries} re-entries")
        if rules.max_entries is not None and registration.entries >= rules.max_entries:
            raise TournamentFullError(f"all {rules.max_entries} entries are taken")
        if deposit < 0:
            raise InsufficientFundsError(f"a deposit is whole cents, not {deposit}")
        held = registration.ledger.balance_of(player)
        if held + deposit < rules.price:
            raise InsufficientFundsError(
                f"REG-1: {player} brings {deposit} to the {held} he holds, the entry is "
                f"{rules.price}"
            )

    def reenter(
        self,
        play: Play,
        player: str,
        *,
        now: float,
        rng: random.Random,
        deposit: int = 0,
        key: str = "",
    ) -> list[Event]:
        """LATE: a busted player waiting for his place enters again because he asked,
        bringing `deposit` cents into his account (`player_funded` leads the step, as for a
        late registrant the start did not fund), checked first (`verify_reenter`): a new
        entry at the full price and a random seat, as an automatic re-entry takes."""
        self.verify_reenter(play, player, deposit)
        registration = play.registration
        events: list[Event] = []
        if deposit:
            registration.ledger.deposit(player, deposit, now=now)
            events.append(self._funded(player, deposit, key))
        self._busted = [b for b in self._busted if b[0].player != player]
        events += registration.eliminated(player, now=now)
        events += registration.register(player, now=now)
        return events + self._seat(play, player, reentry=True, rng=rng)

    # --- the structure's hooks ------------------------------------------------------------

    def really_out(self, play: Play, table: int, busts: Busts, *, button: int) -> Busts:
        back = tuple(who for who in busts.out if self._may_reenter(play, who.player))
        if not back:
            return busts
        out = tuple(who for who in busts.out if who not in back)
        return Busts(out=out, back=busts.back + back)

    def holds_places(
        self, play: Play, out: Sequence[Busted], *, button: int, table: int, hand: int
    ) -> bool:
        """While registration is open the field is not known: places wait for it to close."""
        if not self._registering(play):
            return False
        order = place_eliminated(
            out, button=button, seats_per_table=self._seats_per_table, remaining_before=0
        )
        self._busted += [(who, table, hand) for who, _ in reversed(order)]
        return True

    def settle(self, play: Play) -> list[Event]:
        """Players out while registration was open take the last places, the first out last."""
        events: list[Event] = []
        worst = play.active_players + len(self._busted)
        for k, (who, table, hand) in enumerate(self._busted):
            events += play.place_at(who, worst - k, table=table, hand=hand)
        self._busted = []
        return events

    def seat_entrants(self, play: Play, back: Sequence[Busted], rng: random.Random) -> list[Event]:
        events: list[Event] = []
        for who in back:
            events += play.registration.eliminated(who.player, now=play.clock.level_started_at)
            events += play.registration.register(who.player, now=play.clock.level_started_at)
            events += self._seat(play, who.player, reentry=True, rng=rng)
        return events

    def level_starting(self, play: Play, level: int) -> list[Event]:
        if level == self._levels + 1:  # registration closed: the field is known
            return self.settle(play)
        return []

    # --- internals ------------------------------------------------------------------------

    def _may_reenter(self, play: Play, player: str) -> bool:
        """Within the window, with re-entries left and the money and a place for one more
        entry (what `Registration.register` will check once the player is out)."""
        rules = play.registration.rules
        return (
            self._reentry_auto
            and self._registering(play)
            and self._reentered.get(player, 0) < self._reentries
            and play.registration.ledger.balance_of(player) >= rules.price
            and (rules.max_entries is None or play.registration.entries < rules.max_entries)
        )

    def _seat(self, play: Play, player: str, *, reentry: bool, rng: random.Random) -> list[Event]:
        table, seat, opened = self._seating.seat_entrant(
            player, forbidden=play.blind_gaps(self._seating.tables), rng=rng
        )
        stack = self._starting_stack
        play.stacks[player] = stack
        play.entries += 1
        events: list[Event] = [play.open_table(table, first_seat=seat)] if opened else []
        if reentry:
            self._reentered[player] = self._reentered.get(player, 0) + 1
            events.append(PlayerReentered(player=player, table=table, seat=seat, stack=stack))
        else:
            events.append(PlayerSeated(player=player, table=table, seat=seat, stack=stack))
        return events


class _Tournament(Protocol):
    late: LateEntry | None
    play: Play
    seating: Seating

    def _require_running(self, command: str) -> None: ...
    def _step(self, events: list[Event], reply: None = None) -> Step: ...


class TournamentLate:
    """The late-registration commands, over the fields `Tournament` declares."""

    __slots__ = ()

    def register_late(
        self: _Tournament,
        player: str,
        *,
        now: float,
        rng: random.Random,
        deposit: int = 0,
        key: str = "",
    ) -> Step:
        """REG-1 while late registration lasts: `player` enters and is seated (`LateEntry`);
        `key` names the wallet's payment of `deposit`, if any (`withdraw_funding`)."""
        self._require_running("register")
        if self.late is None:
            raise RegistrationClosedError("REG-1: this tournament takes no late registration")
        events = self.late.register(self.play, player, now=now, rng=rng, deposit=deposit, key=key)
        self.play.pace.sync(self.seating.tables)
        return self._step(events)

    def withdraw_funding(self: _Tournament, key: str, *, now: float) -> Step:
        """LATE: the front door gives back the payment `key` it could not see taken (after its
        restart): refused with `FundingTakenError` if the run took it, else a later
        registration with it is refused (`LateEntry.withdraw`). Taken in any state: a payment
        outlives late registration and the run's end."""
        if self.late is None:
            raise RegistrationClosedError("REG-1: this tournament takes no late registration")
        return self._step(self.late.withdraw(key))
