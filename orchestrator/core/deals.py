"""Deals at the final table (DEAL-1..DEAL-3): what each player still in would take. Pure.

Three proposals share the unpaid pool, the prizes of the places still to be decided (places 1
to n for n players left), less an amount the players may leave to play for with the title
(DEAL-2). Every proposal pays whole cents adding up to exactly that pool:

- `chip_chop`: each player is first guaranteed the prize of the next place to go (place n),
  and what is left is shared in proportion to chips.
- `icm`: each player's equity under the Malmuth-Harville model: a player finishes first with
  probability stack / all chips, and the places below follow the same rule among those left.
  Exact (fractions of a cent, then rounded as below) for up to `ICM_MAX_PLAYERS` players; the
  money left to play for comes off first place, so it is played for by everyone.
- `equal`: the pool in equal parts.

Rounding: every share is rounded down to the cent and the cents left over (fewer than n) go one
each to the largest fractional remainders; equal remainders to more chips, then to the order
the players are given in (the same rule as CRASH-2's, RULES.md Decision).

`DealVote` is the deal once proposed: every player still in must accept (DEAL-1); a refusal
ends it, and play resumes unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from functools import cache

from orchestrator.errors import DealError

__all__ = [
    "BOT_RULES",
    "ICM_MAX_PLAYERS",
    "Deal",
    "DealKind",
    "DealVote",
    "bot_accepts",
    "chip_chop",
    "equal_split",
    "icm",
    "icm_equities",
    "propose_deal",
]

ICM_MAX_PLAYERS = 10  # DEAL-2: Malmuth-Harville exact (2**10 subsets of the players)


class DealKind(StrEnum):
    CHIP_CHOP = "chip_chop"
    ICM = "icm"
    EQUAL = "equal"


@dataclass(frozen=True, slots=True, kw_only=True)
class Deal:
    """A proposal: `amounts[k]` for `players[k]` (holding `chips[k]`), adding up to the unpaid
    pool less `left`, which the players play on for with the title (DEAL-2)."""

    kind: DealKind
    players: tuple[str, ...]
    chips: tuple[int, ...]
    amounts: tuple[int, ...]
    left: int = 0
    prizes: tuple[int, ...] = ()  # the open places' prizes it shares (first place first)

    def amount_of(self, player: str) -> int:
        return self.amounts[self.players.index(player)]


def icm_equities(stacks: Sequence[int], prizes: Sequence[int]) -> list[Fraction]:
    """DEAL-2: each stack's Malmuth-Harville equity in `prizes` (index 0 = first place; places
    beyond the list pay 0), exactly.

    >>> icm_equities([3000, 1000], [700, 300])
    [Fraction(600, 1), Fraction(400, 1)]
    """
    n = len(stacks)
    if n > ICM_MAX_PLAYERS:
        raise DealError(f"DEAL-2: ICM is exact for up to {ICM_MAX_PLAYERS} players, not {n}")
    paid = [*prizes[:n], *([0] * (n - len(prizes)))]

    @cache
    def below(left: frozenset[int]) -> tuple[Fraction, ...]:
        """Each player's equity in the places still to be decided among `left`."""
        place = n - len(left)
        total = sum(stacks[j] for j in left)
        equity = [Fraction(0)] * n
        for j in left:
            p_first = Fraction(stacks[j], total)
            equity[j] += p_first * paid[place]
            if len(left) > 1:
                rest = below(left - {j})
                for i in left - {j}:
                    equity[i] += p_first * rest[i]
        return tuple(equity)

    return list(below(frozenset(range(n))))


def chip_chop(
    players: Sequence[str], chips: Sequence[int], prizes: Sequence[int], *, left: int = 0
) -> Deal:
    """DEAL-2: each first guaranteed the next place's prize, the rest by chips.

    >>> chip_chop(["a", "b", "c"], [6000, 3000, 1000], [500, 300, 200]).amounts
    (440, 320, 240)
    """
    pool, floor = _pool(players, chips, prizes, left)
    rest = pool - floor * len(players)
    shares = _round([Fraction(rest * c, sum(chips)) for c in chips], chips, rest)
    amounts = [floor + s for s in shares]
    return _deal(DealKind.CHIP_CHOP, players, chips, prizes, amounts, left)


def icm(
    players: Sequence[str], chips: Sequence[int], prizes: Sequence[int], *, left: int = 0
) -> Deal:
    """DEAL-2: Malmuth-Harville equities in the remaining prizes, less `left` off the top.

    >>> icm(["a", "b"], [3000, 1000], [700, 300]).amounts
    (600, 400)
    """
    pool, _ = _pool(players, chips, prizes, left)
    remaining = list(prizes[: len(players)])
    remaining[0] -= left
    equities = icm_equities(chips, remaining)
    return _deal(DealKind.ICM, players, chips, prizes, _round(equities, chips, pool), left)


def equal_split(
    players: Sequence[str], chips: Sequence[int], prizes: Sequence[int], *, left: int = 0
) -> Deal:
    """DEAL-2: the unpaid pool less `left` in equal parts.

    >>> equal_split(["a", "b", "c"], [1, 5, 1], [600, 301, 100]).amounts
    (334, 334, 333)
    """
    pool, _ = _pool(players, chips, prizes, left)
    n = len(players)
    shares = _round([Fraction(pool, n)] * n, chips, pool)
    return _deal(DealKind.EQUAL, players, chips, prizes, shares, left)


_PROPOSALS = {DealKind.CHIP_CHOP: chip_chop, DealKind.ICM: icm, DealKind.EQUAL: equal_split}


def propose_deal(
    kind: DealKind | str, stacks: Mapping[str, int], prizes: Sequence[int], *, left: int = 0
) -> Deal:
    """The `kind` of deal for the players still in (`stacks`, in seat or any fixed order) over
    the prizes of the places still open (`prizes[0]` = first place)."""
    try:
        proposal = _PROPOSALS[DealKind(kind)]
    except ValueError:
        choices = ", ".join(k.value for k in DealKind)
        raise DealError(f"DEAL-2: a deal is one of {choices}, not {kind!r}") from None
    players = list(stacks)
    return proposal(players, [stacks[p] for p in players], prizes, left=left)


# --- the players' answers (DEAL-1) --------------------------------------------------------


@dataclass(slots=True)
class DealVote:
    """A proposed deal waiting for every player still in to accept it (DEAL-1)."""

    deal: Deal
    accepted: set[str] = field(default_factory=set)

    def verify_answer(self, player: str) -> None:
        if player not in self.deal.players:
            raise DealError(
                f"DEAL-1: {player!r} is not in the deal ({', '.join(self.deal.players)})"
            )
        if player in self.accepted:
            raise DealError(f"DEAL-1: {player} has already accepted the deal")

    def can_answer(self, player: str) -> bool:
        try:
            self.verify_answer(player)
        except DealError:
            return False
        return True

    def accept(self, player: str) -> bool:
        """`player` accepts; True once every player has (the deal is made)."""
        self.verify_answer(player)
        self.accepted.add(player)
        return self.accepted == set(self.deal.players)

    @property
    def waiting_for(self) -> tuple[str, ...]:
        return tuple(p for p in self.deal.players if p not in self.accepted)


# --- the bots' answers (the driver's, `[deal] bots_accept`) -------------------------------

BOT_RULES = ("always", "never", "if_above_chip_chop")


def bot_accepts(rule: str, deal: Deal, player: str) -> bool:
    """A bot's answer to `deal` by its rule: always, never, or when the deal pays it at least
    what a chip chop of the same prizes would.

    >>> deal = icm(["a", "b", "c"], [5000, 3000, 2000], [500, 300, 200])
    >>> deal.amounts, chip_chop(["a", "b", "c"], [5000, 3000, 2000], [500, 300, 200]).amounts
    ((384, 327, 289), (400, 320, 280))
    >>> [bot_accepts("if_above_chip_chop", deal, p) for p in "abc"], bot_accepts("never", deal, "a")
    ([False, True, True], False)
    """
    if rule == "always":
        return True
    if rule == "never":
        return False
    if rule != "if_above_chip_chop":
        raise DealError(f"deal.bots_accept must be one of {', '.join(BOT_RULES)}, not {rule!r}")
    chop = chip_chop(deal.players, deal.chips, deal.prizes, left=deal.left)
    return deal.amount_of(player) >= chop.amount_of(player)


# --- internals ------------------------------------------------------------------------------


def _pool(
    players: Sequence[str], chips: Sequence[int], prizes: Sequence[int], left: int
) -> tuple[int, int]:
    """The pool to share (the open places' prizes less `left`) and the next place's prize.
    Refuses, naming what is wrong, anything a deal cannot be made of."""
    n = len(players)
    if n < 2:
        raise DealError(f"DEAL-1: a deal needs at least 2 players still in, not {n}")
    if len(set(players)) != n or len(chips) != n:
        raise DealError("DEAL-2: one stack for each player, every player once")
    if any(type(c) is not int or c <= 0 for c in chips):
        raise DealError(f"DEAL-2: every player in a deal holds chips, not {list(chips)}")
    if len(prizes) < n or any(type(p) is not int or p < 0 for p in prizes[:n]):
        raise DealError(f"DEAL-2: {n} places still open need {n} prizes in cents, not {prizes}")
    open_prizes = list(prizes[:n])
    if open_prizes != sorted(open_prizes, reverse=True):
        raise DealError(
            f"DEAL-2: the prizes must not rise from one place to the next: {open_prizes}"
        )
    if type(left) is not int or not 0 <= left <= open_prizes[0] - open_prizes[1]:
        raise DealError(
            f"deal.left must be 0..{open_prizes[0] - open_prizes[1]} cents (first place's lead "
            f"over second, so every prize still falls with the place), not {left!r}"
        )
    return sum(open_prizes) - left, open_prizes[-1]


def _round(exact: Sequence[Fraction], chips: Sequence[int], total: int) -> list[int]:
    """Shares rounded down, the cents left over to the largest remainders (ties: more chips,
    then the given order); they add up to `total`."""
    shares = [int(x) for x in exact]  # exact >= 0: int() rounds down
    leftover = total - sum(shares)
    order = sorted(range(len(exact)), key=lambda k: (-(exact[k] - shares[k]), -chips[k], k))
    for k in order[:leftover]:
        shares[k] += 1
    return shares


def _deal(
    kind: DealKind,
    players: Sequence[str],
    chips: Sequence[int],
    prizes: Sequence[int],
    amounts: Sequence[int],
    left: int,
) -> Deal:
    return Deal(
        kind=kind,
        players=tuple(players),
        chips=tuple(chips),
        amounts=tuple(amounts),
        left=left,
        prizes=tuple(prizes[: len(players)]),
    )
