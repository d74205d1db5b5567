"""A restarted orchestrator rebuilds the tournament core from its log (DESIGN.md "Failure
model"): replaying the logged steps, from the start or from a snapshot, gives back exactly the
core that took them; a log that replays to other decisions is refused, naming the seq. And the
log itself: write-ahead to the store, events.jsonl exported from it line for line, a store that
lost its tail filled in again from memory. No Ray here: the steps are driven as the actor does."""

from __future__ import annotations

import json
import random
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import RedisServer
from test_tournament_core import config, play
from tournament_checks import begin, check_log, funds, opened_tables, quiet

from orchestrator.core import codec
from orchestrator.core.config import TournamentConfig
from orchestrator.core.config_toml import parse_config
from orchestrator.core.events import TournamentOpened
from orchestrator.core.replay import (
    load_snapshot,
    open_tournament,
    rebuild,
    rebuild_from_log,
    snapshot,
    step_rng,
)
from orchestrator.core.sanctions import SanctionKind
from orchestrator.core.tournament import Step, Tournament
from orchestrator.errors import (
    AlreadyRegisteredError,
    InvalidSanctionError,
    NotInPlayError,
    RecoveryError,
    RegistrationClosedError,
    ReportError,
    TournamentStateError,
    UnknownEntrantError,
)
from orchestrator.shell.eventlog import EventLog, event_time
from orchestrator.shell.export import export_run
from orchestrator.shell.simulation import LateBots
from orchestrator.shell.store import SqliteStore, open_store
from table_worker.protocol import HandReport, TableDirective


def drive(
    tmp_path: Path,
    players: int,
    seed: int,
    *,
    kill_rate: float = 0.0,
    late_reports: bool = False,
    commands: dict[int, str] | None = None,
    cfg: TournamentConfig | None = None,
    opening: bool = False,
    **settings: Any,
) -> tuple[list[dict[str, Any]], dict[int, bytes]]:
    """A tournament driven step by step as the orchestrator actor drives it (step RNGs, times
    as logged, tables opened after the step that opened them), tables finishing in a random
    order and dying mid-hand at `kill_rate`. With `late_reports`, a dead table's new actor is
    ready only after other tables' steps (the restart awaits Ray), and the report of the hand
    it was voided in may arrive meanwhile (a call Ray retried, from an actor not yet gone):
    the core refuses it. Each table's actor answers (`table_ready`) some steps after its
    table opens, and tables wait for play to start (START-1). The late bots register as `mtt
    run` registers them, and the operator's `commands` (pause, resume, cancel, a judge's
    sanction, a rebuy asked for) come between two table steps. With `opening` the log begins
    with its opening record, as the orchestrator actor writes it (`open_tournament`). Returns
    the store's log and the core's snapshot after every step, by the seq that step ended at."""
    cfg = cfg or config(players=players, buy_in=100, **settings)
    order = random.Random(seed)
    late_bots = LateBots.draw(cfg, random.Random(f"{seed}:late"))
    store = SqliteStore(str(tmp_path / "store.db"))
    log = EventLog(store, "t/run")
    now = 1_700_000_000.123456789
    if opening:
        opened = TournamentOpened(
            tournament="t",
            config=cfg,
            players=tuple(names(players)),
            deposits=funds(cfg, names(players)),
            seed=seed,
        )
        tournament, step = open_tournament(opened, now=event_time(now))
    else:
        tournament, step = Tournament.start(
            cfg,
            names(players),
            deposits=funds(cfg, names(players)),
            tournament_id="t",
            now=event_time(now),
            rng=step_rng(seed, 0),
        )
    log.append(step.events, ts=now)
    ready: dict[int, TableDirective] = opened_tables(step)
    unready = set(ready)  # START-1: their actors have not answered yet
    states = {log.seq: snapshot(tournament)}

    def record(events: list[Any], at: float) -> None:
        log.append(events, ts=at)
        states[log.seq] = snapshot(tournament)

    restarting: dict[int, HandReport] = {}  # table -> its voided hand's late report
    steps = 0
    while (ready or restarting) and not tournament.finished:
        steps += 1
        if unready and order.random() < 0.5:  # a table's actor answers
            table = order.choice(sorted(unready))
            unready.discard(table)
            if table in tournament.tables:
                now += 0.1
                step = tournament.table_ready(table, now=event_time(now))
                record(step.events, event_time(now))
        command = (commands or {}).get(steps)
        if command is not None:  # an operator's command, between two table steps
            now += 1.0
            step = operator(tournament, command, now=event_time(now))
            record(step.events, event_time(now))
        for bot in late_bots.due(tournament.hands):
            now += 0.25
            step = tournament.register_late(bot, now=event_time(now), rng=step_rng(seed, log.seq))
            record(step.events, event_time(now))
            ready.update(opened_tables(step))
            unready.update(opened_tables(step))
        if restarting and (not ready or order.random() < 0.3):
            table = order.choice(sorted(restarting))
            late = restarting.pop(table)
            before = plain(tournament)
            with pytest.raises(ReportError, match="voided"):
                tournament.apply_hand(late, now=event_time(now), rng=order)
            assert plain(tournament) == before, "a refused report changed the core"
            step = tournament.table_restarted(table, node=f"node-{order.randrange(3)}")
            record(step.events, now)
            unready.discard(table)
            assert step.reply is not None
            ready[table] = step.reply
            continue
        table = order.choice(sorted(ready))
        directive = ready.pop(table)
        if directive.close:
            continue
        now += order.random()
        if directive.next_hand is None:
            at = event_time(now)
            step = tournament.poll(table, now=at, rng=step_rng(seed, log.seq))
            record(step.events, at)
        elif kill_rate and order.random() < kill_rate:
            record(tournament.table_lost(table), now)
            if late_reports:
                restarting[table] = play(directive.next_hand, order)
                continue
            step = tournament.table_restarted(table, node=f"node-{order.randrange(3)}")
            record(step.events, now)
            unready.discard(table)
        else:
            report = play(directive.next_hand, order)
            at = event_time(now)
            step = tournament.apply_hand(report, now=at, rng=step_rng(seed, log.seq))
            record(step.events, at)
        assert step.reply is not None
        ready[table] = step.reply
        ready.update(opened_tables(step))
        unready.update(opened_tables(step))
    records = store.read("t/run")
    store.close()
    check_log(cfg, records)
    return records, states


def names(players: int) -> list[str]:
    return [f"p{k}" for k in range(players)]


def operator(tournament: Tournament, command: str, *, now: float) -> Step:
    """An operator's or a judge's command, on the first players in name order."""
    playing = sorted(tournament.stacks)
    if command == "cancel":
        return tournament.cancel("drill", now=now)
    if command == "rebuy":
        poor = next(p for p in playing if tournament.stacks[p] <= 1500)
        return tournament.request_rebuy(poor, now=now)
    if command in ("warning", "penalty", "disqualification"):
        kind = SanctionKind(command)
        judge = "head" if kind is SanctionKind.DISQUALIFICATION else "floor"
        who = {"warning": playing[0], "penalty": playing[-1]}.get(command, playing[1])
        return tournament.sanction(kind, who, judge=judge, reason="drill", now=now, hands=2)
    step: Step = getattr(tournament, command)(now=now)
    return step


# The event that leads the step of each command `drive` knows.
COMMAND_STEPS = {
    "pause": "tournament_paused",
    "resume": "tournament_resumed",
    "cancel": "tournament_cancelled",
    "warning": "warning_issued",
    "penalty": "penalty",
    "disqualification": "player_disqualified",
    "rebuy": "rebuy_requested",
}


@pytest.mark.parametrize(
    ("players", "seed", "settings"),
    [
        (23, 1, {"max_per_table": 6, "commands": {6: "pause", 12: "resume", 20: "cancel"}}),
        (23, 1, {"max_per_table": 6}),
        (30, 2, {"max_per_table": 7, "policy": "threshold"}),
        (20, 3, {"max_per_table": 5, "hand_for_hand": 8}),
        (18, 4, {"max_per_table": 6, "late_registration_levels": 2, "reentries": 1}),
        (
            14,
            8,
            {
                "max_per_table": 6,
                "late_registration_levels": 2,
                "reentries": 1,
                "late_entries": 5,
                "commands": {2: "warning", 4: "penalty", 6: "warning", 9: "warning"},
            },
        ),
        (
            20,
            9,
            {
                "max_per_table": 5,
                "structure": "rebuy",
                "rebuy": {},
                "commands": {
                    1: "rebuy",
                    3: "disqualification",
                    5: "rebuy",
                    7: "pause",
                    9: "resume",
                },
            },
        ),
    ],
)
def test_replaying_the_log_from_any_step_rebuilds_the_same_core(
    tmp_path: Path, players: int, seed: int, settings: dict[str, Any]
) -> None:
    records, states = drive(tmp_path, players, seed, kill_rate=0.05, **settings)
    commands = settings.pop("commands", {})
    kinds = {r["type"] for r in records}
    for command, leads in COMMAND_STEPS.items():  # the operator's steps replay too
        assert (command not in commands.values()) or leads in kinds, command
    late = [r for r in records if r["type"] == "player_seated" and r["player"].startswith("late")]
    assert len(late) == settings.get("late_entries", 0)
    cfg = config(players=players, buy_in=100, **settings)
    deposits = funds(cfg, names(players))
    ends = sorted(states)
    picks = [*random.Random(seed).sample(ends, min(12, len(ends))), ends[-1]]
    for end in picks:
        rebuilt = rebuild(
            cfg,
            names(players),
            deposits=deposits,
            tournament_id="t",
            seed=seed,
            records=records[:end],
        )
        assert plain(rebuilt) == plain(load_snapshot(states[end])), f"differs after seq {end}"
        earlier = random.Random(end).choice([e for e in ends if e <= end])
        from_snapshot = rebuild(
            cfg,
            names(players),
            deposits=deposits,
            tournament_id="t",
            seed=seed,
            records=records[earlier:end],
            base=(earlier, load_snapshot(states[earlier])),
        )
        assert plain(from_snapshot) == plain(load_snapshot(states[end])), f"{end} from {earlier}"


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_crash_1_a_voided_hands_late_report_is_refused_and_the_restart_deals_it_again(
    tmp_path: Path, seed: int
) -> None:
    """CRASH-1 (issue 6, found chasing the KeyError of a restarted orchestrator): the report
    of a hand voided by its table's loss can still arrive, retried by Ray, while the table's
    new actor starts. It is refused and changes nothing (it used to be applied: a voided hand
    counted, and the log then held a `table_restarted` that a rebuild refuses, "had a hand to
    void"); the restart deals the voided hand's seats and stacks again, and the log replays."""
    settings: dict[str, Any] = {
        "max_per_table": 6,
        "late_registration_levels": 1,
        "reentries": 1,
        "late_entries": 2,
    }
    records, states = drive(tmp_path, 30, seed, kill_rate=0.15, late_reports=True, **settings)
    assert any(r["type"] == "hand_voided" for r in records)
    cfg = config(players=30, buy_in=100, **settings)
    money = funds(cfg, names(30))
    rebuilt = rebuild(cfg, names(30), deposits=money, tournament_id="t", seed=seed, records=records)
    assert plain(rebuilt) == plain(load_snapshot(states[max(states)]))


V1_LOGS = Path(__file__).parent / "fixtures" / "logs_v1"


@pytest.mark.parametrize("name", ["rebuy-sanctions", "late-warnings", "cancelled"])
def test_a_log_without_its_opening_record_is_refused_clearly(name: str) -> None:
    """Release 1 wrote no opening record, and its decisions predate START-1 (its tables never
    waited for each other): its logs still read (`test_codec`), but the log alone cannot
    rebuild such a tournament, and saying so is all a rebuild may do."""
    records = [json.loads(line) for line in (V1_LOGS / f"{name}.jsonl").read_text().splitlines()]
    with pytest.raises(RecoveryError, match="does not begin with its opening record"):
        rebuild_from_log(records)


@pytest.mark.parametrize(
    ("players", "seed", "settings"),
    [
        (23, 1, {"max_per_table": 6, "commands": {6: "pause", 12: "resume", 20: "cancel"}}),
        (18, 4, {"max_per_table": 6, "late_registration_levels": 2, "reentries": 1}),
        (
            20,
            9,
            {
                "max_per_table": 5,
                "structure": "rebuy",
                "rebuy": {"levels": 2},
                "commands": {1: "rebuy"},
            },
        ),
    ],
)
def test_the_log_alone_rebuilds_the_tournament(
    tmp_path: Path, players: int, seed: int, settings: dict[str, Any]
) -> None:
    """The log's first record is the opening one (config, players, deposits, seed): nothing
    but the log is needed, from the start or from a snapshot and the log's tail."""
    records, states = drive(tmp_path, players, seed, kill_rate=0.05, opening=True, **settings)
    assert records[0]["type"] == "tournament_opened" and records[0]["seed"] == seed
    assert records[1]["type"] == "registration_opened"
    for end in [*random.Random(seed).sample(sorted(states), 5), max(states)]:
        assert plain(rebuild_from_log(records[:end])) == plain(load_snapshot(states[end]))
    middle = sorted(states)[len(states) // 2]
    opened = codec.decode(records[0])
    assert isinstance(opened, TournamentOpened)
    from_snapshot = rebuild_from_log(
        records[middle:], base=(middle, load_snapshot(states[middle])), opened=opened
    )
    assert plain(from_snapshot) == plain(load_snapshot(states[max(states)]))
    other = [dict(records[0], seed=seed + 1), *records[1:]]
    with pytest.raises(RecoveryError, match="the log holds"):
        rebuild_from_log(other)


def plain(value: Any) -> Any:
    """Everything a core holds, as plain comparable data: dicts in their order (the core
    iterates them), sets sorted, objects by their fields. (Pickles of equal cores differ
    where a name is one shared string in one and two equal strings in the other.)"""
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return value
    if isinstance(value, dict):
        return ["dict", *[(plain(k), plain(v)) for k, v in value.items()]]
    if isinstance(value, (set, frozenset)):
        return ["set", *sorted((plain(v) for v in value), key=repr)]
    if isinstance(value, (list, tuple, deque)):
        return [type(value).__name__, *[plain(v) for v in value]]
    fields = {
        name: getattr(value, name)
        for cls in type(value).__mro__
        for name in getattr(cls, "__slots__", ())
        if hasattr(value, name)
    }
    fields.update(getattr(value, "__dict__", {}))
    return [type(value).__name__, *sorted((k, plain(v)) for k, v in fields.items())]


def test_the_log_records_the_polls_that_changed_something(tmp_path: Path) -> None:
    """A waiting table's poll that deals it a hand (or takes a floor decision) is logged as
    `table_polled`, first in its batch, so a replay takes it again."""
    records, _ = drive(tmp_path, 20, 3, max_per_table=5, hand_for_hand=8)
    polled = [k for k, r in enumerate(records) if r["type"] == "table_polled"]
    assert polled
    assert all(k + 1 == len(records) or "cause" not in records[k + 1] for k in polled)


def test_a_log_that_replays_to_other_decisions_is_refused_naming_the_seq(
    tmp_path: Path,
) -> None:
    records, _ = drive(tmp_path, 23, 1, max_per_table=6)
    cfg = config(players=23, buy_in=100, max_per_table=6)
    money = funds(cfg, names(23))
    moved = next(r for r in records if r["type"] == "player_moved")
    tampered = [dict(r, to_seat=r["to_seat"] % 6 + 1) if r is moved else r for r in records]
    with pytest.raises(RecoveryError, match=f"seq {moved['seq']}: the log holds"):
        rebuild(cfg, names(23), deposits=money, tournament_id="t", seed=1, records=tampered)
    caused_by = {r["cause"] for r in records if "cause" in r}
    finished = next(r for r in records if r["seq"] in caused_by)
    caused = [r for r in records if r.get("cause") == finished["seq"]]  # then lead nothing
    without = [r for r in records if r is not finished]
    with pytest.raises(RecoveryError, match=f"seq {caused[0]['seq']}: .* does not begin a step"):
        rebuild(cfg, names(23), deposits=money, tournament_id="t", seed=1, records=without)
    with pytest.raises(RecoveryError, match="the log holds"):
        rebuild(cfg, names(23), deposits=money, tournament_id="t", seed=2, records=records)


def test_events_jsonl_is_the_stores_log_exported_line_for_line(tmp_path: Path) -> None:
    """Nothing writes events.jsonl while a tournament runs: it is exported from the store, one
    compact JSON object a line, exactly the text the log's records are stored as; exported
    again it is the same file, and a stale file is replaced whole."""
    records, _ = drive(tmp_path, 12, 5, max_per_table=6)
    store = SqliteStore(str(tmp_path / "store.db"))
    out = tmp_path / "export"
    exported = export_run(store, "t/run", out)
    path = out / "events.jsonl"
    expected = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
    assert path.read_text() == expected
    assert exported.events == len(records) and not exported.results  # not finished
    path.write_text(expected[:-40])  # a torn or stale copy
    export_run(store, "t/run", out)
    store.close()
    assert path.read_text() == expected
    assert sorted(p.name for p in out.iterdir()) == ["events.jsonl", "hands"]


def test_a_redis_restarted_without_its_data_gets_the_log_back_from_memory(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """docs/OPERATIONS.md "a lost tail": Redis comes back empty (no AOF here); the next
    append finds the gap and appends what the orchestrator still holds, then goes on."""
    (tmp_path / "run").mkdir()
    records, _ = drive(tmp_path / "run", 10, 6, max_per_table=5)
    store = open_store(redis_server.url)
    log = EventLog(store, "t/run")
    log.resume(records[:40])
    store.append("t/run", records[:40])
    redis_server.restart()
    assert store.last_seq("t/run") == 0
    assert log.seq == 40
    from orchestrator.core.events import TableClosed

    log.append([TableClosed(table=99)], ts=1.0)
    stored = store.read("t/run")
    assert [r["seq"] for r in stored] == list(range(1, 42))
    assert stored[:40] == json.loads(json.dumps(records[:40]))
    store.close()


def test_followers_page_through_the_whole_log_even_past_what_memory_keeps(
    tmp_path: Path,
) -> None:
    """The live view, the front door and the metrics page through `since`; a field that logs
    more at registration than the log keeps in memory is read from the store, none skipped."""
    records, _ = drive(tmp_path, 12, 5, max_per_table=6)
    store = SqliteStore(str(tmp_path / "store.db"))
    log = EventLog(store, "t/run", keep_recent=10)
    log.resume(records)
    followed: list[dict[str, Any]] = []
    while page := log.since(followed[-1]["seq"] if followed else 0, limit=7):
        followed += page
    store.close()
    assert followed == records


def test_refused_commands_change_nothing_so_the_log_holds_every_step(tmp_path: Path) -> None:
    """A command the rules refuse raises its typed error before it changes anything (the
    orchestrator then logs nothing): a replay of the log would otherwise differ from the core
    that refused. REG-1 (unfunded, entered already, closed), SAN-1/SAN-2, RB-3."""
    cfg = parse_config(
        {
            "tournament": {
                "structure": "rebuy",
                "players": 12,
                "max_per_table": 6,
                "starting_stack": 1500,
                "buy_in": 100,
                "late_registration_levels": 1,
                "reentries": 1,
                "late_entries": 2,
            },
            "levels": {"length": 2, "blinds": [[10, 20], [20, 40], [40, 80]]},
            "rebuy": {"auto": False},
        }
    )
    rng = random.Random(3)
    tournament, start = Tournament.start(
        cfg, names(12), deposits=funds(cfg, names(12)), tournament_id="t", now=0.0, rng=rng
    )
    refusals: list[tuple[type[Exception], Callable[[], object]]] = [
        (UnknownEntrantError, lambda: tournament.register_late("nobody", now=1.0, rng=rng)),
        (AlreadyRegisteredError, lambda: tournament.register_late("p0", now=1.0, rng=rng)),
        (InvalidSanctionError, lambda: tournament.sanction(DQ, "p1", judge="floor", **WHY)),
        (NotInPlayError, lambda: tournament.sanction(WARN, "nobody", judge="floor", **WHY)),
        (InvalidSanctionError, lambda: tournament.sanction(PENALTY, "p1", judge="j", **WHY)),
        (ReportError, lambda: tournament.request_rebuy("nobody", now=1.0)),
    ]
    for error, command in refusals:
        before = plain(tournament)
        with pytest.raises(error):
            command()
        assert plain(tournament) == before, error
    late = tournament.register_late("late00001", now=1.0, rng=rng)
    with pytest.raises(AlreadyRegisteredError):
        tournament.register_late("late00001", now=2.0, rng=rng)
    ready = begin(tournament, start, late, now=2.0)
    while tournament.clock.level == 1:  # hands where nobody's stack changes
        for table, directive in sorted(ready.items()):
            if directive.next_hand is not None:
                step = tournament.apply_hand(quiet(directive.next_hand), now=3.0, rng=rng)
            else:  # START-2: ahead of the slowest, or the late registrant's table
                step = tournament.poll(table, now=3.0, rng=rng)
            assert step.reply is not None
            ready[table] = step.reply
    before = plain(tournament)
    with pytest.raises(RegistrationClosedError):
        tournament.register_late("late00002", now=4.0, rng=rng)
    assert plain(tournament) == before
    tournament.cancel("drill", now=5.0)
    with pytest.raises(TournamentStateError, match="cancelled"):
        tournament.sanction(WARN, "p1", judge="floor", **WHY)


WARN, PENALTY, DQ = SanctionKind.WARNING, SanctionKind.PENALTY, SanctionKind.DISQUALIFICATION
WHY: dict[str, Any] = {"reason": "drill", "now": 1.0}
