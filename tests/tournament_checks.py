"""Invariants every tournament's event log keeps (DESIGN.md contracts, ELIM-1, FO-*)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from orchestrator.config import TournamentConfig


def check_log(cfg: TournamentConfig, log: list[dict[str, Any]]) -> None:
    kinds = Counter(e["type"] for e in log)
    field = len({e["player"] for e in log if e["type"] == "player_seated"})
    entries = field + kinds["player_reentered"]
    assert kinds["tournament_started"] == 1 and kinds["tournament_finished"] == 1
    assert kinds["final_table"] == 1
    opened = [e["table"] for e in log if e["type"] == "table_opened"]
    assert len(opened) == len(set(opened))  # a table number is never reused
    assert kinds["hand_for_hand"] in (0, 2)
    # every player placed exactly once, places 1..N unique (ELIM-1)
    places = {e["player"]: e["place"] for e in log if e["type"] == "player_eliminated"}
    winner = next(e["winner"] for e in log if e["type"] == "tournament_finished")
    assert kinds["player_eliminated"] == field - 1 == len(places)
    assert sorted([*places.values(), 1]) == list(range(1, field + 1))
    assert winner not in places
    # chips conserved in every hand; between hands a stack changes only by a logged rebuy or
    # add-on (RB-3, RB-4) or a reseat for a shoot-out phase (SO-3); the winner ends with all
    stacks: dict[str, int] = {}
    seen_hands: set[tuple[int, int]] = set()
    for e in log:
        if e["type"] in ("player_seated", "player_reentered"):
            assert e["type"] == "player_seated" or stacks[e["player"]] == 0
            stacks[e["player"]] = e["stack"]
        elif e["type"] in ("rebuy", "addon"):
            stacks[e["player"]] += e["chips"]
        elif e["type"] == "chips_removed":  # SAN-1: a disqualified player's chips leave play
            stacks[e["player"]] -= e["chips"]
        elif e["type"] == "hand_finished":
            key = (e["table"], e["hand"])
            assert key not in seen_hands
            seen_hands.add(key)
            assert sum(p["start"] for p in e["players"]) == sum(p["end"] for p in e["players"])
            for p in e["players"]:
                assert p["start"] == stacks[p["player"]], (e, stacks[p["player"]])
                stacks[p["player"]] = p["end"]
        if "cause" in e:
            assert log[e["cause"] - 1]["type"] == "hand_finished"
            assert e["cause"] < e["seq"]
    assert all(chips == 0 for player, chips in stacks.items() if player != winner)
    # a player is in exactly one place at any time: seated, moved, then never seen again after
    # elimination (a shoot-out reseats everyone still in at each phase)
    where: dict[str, int] = {}
    out: set[str] = set()
    for e in log:
        if e["type"] == "phase_started":
            where.clear()
        elif e["type"] == "player_seated":
            assert e["player"] not in where and e["player"] not in out
            where[e["player"]] = e["table"]
        elif e["type"] == "player_reentered":
            assert e["player"] not in out
            where[e["player"]] = e["table"]
        elif e["type"] == "player_moved":
            assert where[e["player"]] == e["from_table"] and e["player"] not in out
            where[e["player"]] = e["to_table"]
        elif e["type"] == "hand_finished":
            for p in e["players"]:
                assert where[p["player"]] == e["table"] and p["player"] not in out
        elif e["type"] == "player_eliminated":
            out.add(e["player"])
    prizes = [e["amount"] for e in log if e["type"] == "prize_awarded"]
    assert sum(prizes) == entries * cfg.buy_in
    # the ledger balances to the cent: every entry paid buy-in and fee, the pool paid out whole
    balance: Counter[str] = Counter()
    for e in log:
        if e["type"] == "ledger_posted":
            balance[e["source"]] -= e["amount"]
            balance[e["target"]] += e["amount"]
    assert sum(balance.values()) == 0
    assert balance["pool"] == 0 and balance["operator"] == entries * cfg.fee
    assert kinds["player_registered"] == entries
