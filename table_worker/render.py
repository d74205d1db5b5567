"""A hand as a few lines a person reads at a glance (the demo's output)."""

from __future__ import annotations

from table_worker.cards import cards_text
from table_worker.events import (
    BetOrRaised,
    BoardDealt,
    Called,
    Checked,
    Folded,
    HoleDealt,
    Mucked,
    Posted,
    PotAwarded,
    Showed,
    UncalledReturned,
)
from table_worker.session import PlayedHand

_STREETS = {1: "Flop", 2: "Turn", 3: "River"}
_POSTS = {"ante": "ante", "small_blind": "SB", "big_blind": "BB"}


def render_hand(played: PlayedHand) -> str:
    hand, names = played.hand, played.names
    setup = hand.setup
    header = (
        f"Table {played.table} hand #{played.number}: {setup.betting.value}-limit "
        f"{setup.small_blind}/{setup.big_blind}"
        + (f" {'BB ante' if setup.big_blind_ante else 'ante'} {setup.ante}" if setup.ante else "")
        + f", button seat {setup.button}"
    )
    lines = [header]
    label = ""
    line: list[str] = []
    for event in hand.events:
        match event:
            case Posted(seat=seat, kind=kind, amount=amount):
                line.append(f"{names[seat]} {_POSTS[kind]} {amount}")
            case HoleDealt(seat=seat, cards=cards):
                if seat == hand.seats[0]:
                    lines.append("  Posts: " + ", ".join(line))
                    line, label = [], "Pre-flop:"
                line.append(f"{names[seat]} [{cards_text(cards)}]")
            case BoardDealt(street=street, cards=cards):
                lines.append(f"  {label} " + ", ".join(line))
                line, label = [], f"{_STREETS[street]} [{cards_text(cards)}]:"
            case Folded(seat=seat):
                line.append(f"{names[seat]} folds")
            case Checked(seat=seat):
                line.append(f"{names[seat]} checks")
            case Called(seat=seat, amount=amount, all_in=all_in):
                line.append(f"{names[seat]} calls {amount}" + (" all-in" if all_in else ""))
            case BetOrRaised(seat=seat, to=to, all_in=all_in):
                line.append(f"{names[seat]} to {to}" + (" all-in" if all_in else ""))
            case UncalledReturned(seat=seat, amount=amount):
                line.append(f"{amount} uncalled back to {names[seat]}")
            case Showed(seat=seat, cards=cards):
                line.append(f"{names[seat]} shows [{cards_text(cards)}]")
            case Mucked(seat=seat):
                line.append(f"{names[seat]} mucks")
            case PotAwarded(pot=pot, amount=amount, winners=winners):
                pot_name = "main pot" if pot == 0 else f"side pot {pot}"
                won = " and ".join(f"{names[s]} {chips}" for s, chips in winners)
                line.append(f"{pot_name} {amount}: {won}")
    lines.append(f"  {label} " + ", ".join(line))
    return "\n".join(lines)
