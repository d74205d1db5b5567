"""The front door end to end: a real `mtt serve` (its own local Ray, deck service and SQLite
store, all on 127.0.0.1), operators and remote players over gRPC, small tournaments."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.request import urlopen

import grpc
import pytest
from wallets import bearer, wallet

from loadtest.fleet import BotPlayer, FleetStats
from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from orchestrator.views.audit import read_hand_files
from rng_service.commit import verify_commitment
from table_worker._proto import gateway_pb2 as gw
from table_worker._proto import gateway_pb2_grpc as gw_grpc
from table_worker.bots import make_bot
from table_worker.cards import parse_cards

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

OPERATOR = "test-operator-credential-0123456789"
OP = (("authorization", f"Bearer {OPERATOR}"),)


@dataclass
class Server:
    target: str
    gateway: str
    metrics: str
    data: Path
    process: subprocess.Popen[str]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("frontdoor")
    env = os.environ | {"MTT_OPERATOR_TOKEN": OPERATOR}
    store = f"sqlite:///{folder / 'store.db'}"
    command = [sys.executable, "-m", "orchestrator.cli.main", "serve", "--port", "0"]
    command += ["--store", store, "--data-dir", str(folder / "data"), "--metrics-port", "0"]
    with (
        open(folder / "serve.log", "w") as log,
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, env=env) as proc,
    ):
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.startswith("front door on "), (folder / "serve.log").read_text()[-3000:]
            words = line.split()
            metrics = line.rsplit("metrics on ", 1)[1].rstrip(")\n")
            yield Server(words[3], words[5].rstrip(","), metrics, folder / "data", proc)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def config(name: str, **tournament: Any) -> str:
    levels = tournament.pop("levels", "[[25, 50, 0]]")
    length = tournament.pop("length", 1000)
    fields = {"name": name, "max_per_table": 3, "starting_stack": 100_000} | tournament
    lines = ["[tournament]"] + [f"{k} = {json.dumps(v)}" for k, v in fields.items()]
    lines += ["[levels]", 'unit = "hands"', f"length = {length}", f"blinds = {levels}"]
    return "\n".join(lines) + "\n"


async def create(channel: grpc.aio.Channel, text: str) -> str:
    operator = pb_grpc.OperatorServiceStub(channel)
    info = await operator.CreateTournament(
        pb.CreateTournamentRequest(config_toml=text), metadata=OP
    )
    await operator.OpenRegistration(pb.TournamentRef(tournament_id=info.tournament_id), metadata=OP)
    return info.tournament_id


@dataclass
class Recorded:
    messages: list[pb.ServerMessage] = field(default_factory=list)

    def of(self, kind: str) -> list[Any]:
        return [getattr(m, kind) for m in self.messages if m.WhichOneof("kind") == kind]


async def bots(
    channel: grpc.aio.Channel,
    server: str,
    tournament: str,
    names: list[str],
    policies: tuple[str, ...],
) -> tuple[list[BotPlayer], dict[str, Recorded], FleetStats]:
    """Register bot players (policies in turn) with their wallets' credentials, each recording
    every message it receives."""
    players, records, stats = [], {}, FleetStats()
    for k, name in enumerate(names):
        policy = policies[k % len(policies)]
        credential = await wallet(channel, server, OPERATOR, name)
        reply = await pb_grpc.PlayerServiceStub(channel).Register(
            pb.RegisterRequest(tournament_id=tournament, player=name), metadata=bearer(credential)
        )
        record = records[name] = Recorded()
        bot = make_bot(policy, random.Random(name))
        players.append(BotPlayer(name, reply.token, bot, channel, stats, record.messages.append))
    return players, records, stats


# --- hidden information -----------------------------------------------------------------


def hand_truth(folder: Path) -> dict[tuple[int, int], dict[str, Any]]:
    """(table, hand) -> each player's hole cards, the board and who showed what (PHH)."""
    truth = {}
    for section in read_hand_files(folder):
        f = section.fields
        names = f["players"]
        holes, shown, board = {}, {}, []
        for action in f["actions"]:
            words = action.split()
            if words[:2] == ["d", "dh"]:
                holes[names[int(words[2][1:]) - 1]] = parse_cards(words[3])
            elif words[:2] == ["d", "db"]:
                board += parse_cards(words[2])
            elif len(words) == 3 and words[1] == "sm":
                shown[names[int(words[0][1:]) - 1]] = parse_cards(words[2])
        truth[(f["table"], f["hand"])] = {"holes": holes, "board": board, "shown": shown}
    return truth


def check_hidden_information(player: str, record: Recorded, truth: dict[Any, Any]) -> int:
    """Every card a player received is their own, on the board, or shown at showdown, and
    another's hole cards come only in the result, after the showdown; the deck comes only with
    the result too, and matches the commitment its hand started with (DESIGN.md "Decks").
    Returns hands checked (a hand voided by the cancellation has no history: skipped)."""
    hands = 0
    committed: dict[tuple[int, int], bytes] = {}
    for message in record.messages:
        kind = message.WhichOneof("kind")
        if kind == "resume":  # TB-1: the hand in progress, his own cards, its public state
            resume = message.resume
            shown = truth.get((resume.hand.table, resume.hand.hand))
            if resume.HasField("hand") and shown is not None:
                assert list(resume.hand.hole_cards) == shown["holes"][player]
                assert list(resume.state.board) == shown["board"][: len(resume.state.board)]
                assert all(a.kind != "show" for a in resume.state.actions)
            continue
        which = getattr(message, kind) if kind else None
        if (getattr(which, "table", 0), getattr(which, "hand", 0)) not in truth:
            continue
        if kind == "hand_started":
            view = message.hand_started
            hand = truth[(view.table, view.hand)]
            assert list(view.hole_cards) == hand["holes"][player]
            assert len(view.deck_commitment) == 32
            committed[(view.table, view.hand)] = view.deck_commitment
            hands += 1
        elif kind == "action_request":
            prompt = message.action_request
            hand = truth[(prompt.table, prompt.hand)]
            assert list(prompt.state.board) == hand["board"][: len(prompt.state.board)]
            for action in prompt.state.actions:
                assert action.kind != "show", "a hand shown before the showdown"
                if action.cards:
                    assert action.kind == "board" and set(action.cards) <= set(hand["board"])
        elif kind == "hand_result":
            result = message.hand_result
            hand = truth[(result.table, result.hand)]
            seats = {s.seat: s.player for s in result.stacks}
            assert list(result.board) == hand["board"]
            shown = {seats[a.seat]: list(a.cards) for a in result.actions if a.kind == "show"}
            assert shown == hand["shown"]
            for action in result.actions:
                assert not action.cards or action.kind in ("board", "show")
            commitment = committed.get((result.table, result.hand))
            if commitment is not None:
                assert verify_commitment(result.deck_cards, result.deck_salt, commitment)
    return hands


def test_hidden_information_over_thousands_of_hands(server: Server) -> None:
    """Six connected players at two tables; every message each one received is checked
    against the server-side hand histories (which alone hold every card and the decks).
    Halfway the operator pauses (twice: refused) and resumes; at the end cancels (CRASH-2)."""
    names = [f"hid{k}" for k in range(6)]

    async def play() -> tuple[str, dict[str, Recorded], FleetStats]:
        async with grpc.aio.insecure_channel(server.target) as channel:
            text = config("hidden", action_seconds=5, starting_stack=1_000_000)
            tournament = await create(channel, text)
            # Calling stations take many hands to the showdown, where cards are shown.
            players, records, stats = await bots(
                channel, server.target, tournament, names, ("station", "strength")
            )
            tasks = [asyncio.create_task(p.run()) for p in players]
            await asyncio.wait_for(asyncio.gather(*(p.welcomed.wait() for p in players)), 30)
            operator = pb_grpc.OperatorServiceStub(channel)
            await operator.StartTournament(pb.TournamentRef(tournament_id=tournament), metadata=OP)
            stats.measuring = True
            deadline = time.monotonic() + 90
            while len(stats.hands) < 1000 and time.monotonic() < deadline:
                await asyncio.sleep(1)
            ref = pb.TournamentRef(tournament_id=tournament)
            assert (await operator.PauseTournament(ref, metadata=OP)).state == "paused"
            assert await status_of(operator.PauseTournament(ref, metadata=OP)) == (
                grpc.StatusCode.FAILED_PRECONDITION
            )
            assert (await operator.ResumeTournament(ref, metadata=OP)).state == "running"
            while len(stats.hands) < 2000 and time.monotonic() < deadline:
                await asyncio.sleep(1)
            await operator.CancelTournament(
                pb.CancelRequest(tournament_id=tournament, reason="enough hands"), metadata=OP
            )
            await asyncio.sleep(1)
            for p in players:
                p.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
            # The data folder's files are the store's export, written once every table has
            # closed: a watch ends only after that.
            watch = operator.WatchEvents(pb.WatchRequest(tournament_id=tournament), metadata=OP)
            async for _ in watch:
                pass
            return tournament, records, stats

    tournament, records, stats = asyncio.run(play())
    assert stats.errors == 0, stats.problems
    log = (server.data / tournament / "events.jsonl").read_text()
    for kind in ("tournament_paused", "tournament_resumed", "tournament_cancelled"):
        assert f'"type":"{kind}"' in log.replace(" ", "")
    truth = hand_truth(server.data / tournament / "hands")
    checked = sum(check_hidden_information(p, records[p], truth) for p in names)
    assert len(stats.hands) >= 1000, f"only {len(stats.hands)} hands in the time given"
    assert checked == sum(len(hand["holes"]) for hand in truth.values())  # every seat, every hand


# --- the whole path: registration, start, play, watch, standings ------------------------


def test_registration_start_play_watch_and_standings_end_to_end(server: Server) -> None:
    """REG-1/REG-2 through the operator and the players themselves; a player who never
    connects is Out from the first hand and only checks or folds (OUT-2); the operator watches
    the event log to the winner; standings and results.json agree."""
    names = [f"e2e{k}" for k in range(6)]

    async def play() -> tuple[str, list[dict[str, Any]], Any, dict[str, Recorded]]:
        async with grpc.aio.insecure_channel(server.target) as channel:
            operator = pb_grpc.OperatorServiceStub(channel)
            text = config(
                "e2e",
                starting_stack=1000,
                action_seconds=5,
                length=2,
                levels="[[25, 50, 0], [50, 100, 0], [100, 200, 0], [200, 400, 0]]",
            )
            tournament = await create(channel, text)
            ref = pb.TournamentRef(tournament_id=tournament)
            # The operator registers the absent player on their behalf, then unregisters
            # and registers them again (REG-2 then REG-1).
            absent = pb.PlayerRef(tournament_id=tournament, player="absent")
            await wallet(channel, server.target, OPERATOR, "absent")
            await operator.RegisterPlayer(absent, metadata=OP)
            info = await operator.UnregisterPlayer(absent, metadata=OP)
            assert "absent" not in info.players
            await operator.RegisterPlayer(absent, metadata=OP)
            players, records, stats = await bots(
                channel, server.target, tournament, names, ("strength",)
            )
            tasks = [asyncio.create_task(p.run()) for p in players]
            await asyncio.wait_for(asyncio.gather(*(p.welcomed.wait() for p in players)), 30)
            info = await operator.StartTournament(ref, metadata=OP)
            assert info.state == "running" and sorted(info.players) == sorted([*names, "absent"])
            events = []
            watch = operator.WatchEvents(pb.WatchRequest(tournament_id=tournament), metadata=OP)
            async for record in watch:
                events.append(json.loads(record.json))
                assert record.seq == len(events)
            standings = await operator.GetStandings(ref, metadata=OP)
            for p in players:
                p.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
            assert stats.errors == 0, stats.problems
            return tournament, events, standings, records

    tournament, events, standings, records = asyncio.run(play())
    assert events[-1]["type"] == "tournament_finished" or any(
        e["type"] == "tournament_finished" for e in events
    )
    started = next(e for e in events if e["type"] == "tournament_started")
    assert started["players"] == 7
    assert standings.state == "finished" and standings.players_left == 0
    places = {s.player: s.place for s in standings.standings}
    assert sorted(places.values()) == list(range(1, 8))
    results = json.loads((server.data / tournament / "results.json").read_text())
    assert {p["player"]: p["place"] for p in results["places"]} == places
    for name in names:  # each connected player heard their own place
        assert [f.place for f in records[name].of("finished")] == [places[name]]
    moves = [e for e in events if e["type"] == "player_moved" and e["player"] in names]
    assert moves  # tables of 3 close and balance as players bust
    # ...and a moved player is told, with their new table and seat, at his first hand there
    # (one moved again before he played there hears only of the move he played after)
    pending: dict[str, dict[str, Any]] = {}
    heard = 0
    for e in events:
        if e["type"] == "player_moved" and e["player"] in names:
            pending[e["player"]] = e
        elif e["type"] == "hand_finished":
            for p in e["players"]:
                move = pending.pop(p["player"], None)
                if move is None:
                    continue
                assert move["to_table"] == e["table"]
                told = [(m.to_table, m.seat) for m in records[p["player"]].of("moved")]
                assert (move["to_table"], move["to_seat"]) in told
                heard += 1
    assert heard
    absent_seats = 0
    results_seen = {(r.table, r.hand): r for n in names for r in records[n].of("hand_result")}
    for result in results_seen.values():  # OUT-2: the absent player never acts
        seat = next((s.seat for s in result.stacks if s.player == "absent"), None)
        if seat is None:
            continue
        absent_seats += 1
        kinds = {a.kind for a in result.actions if a.seat == seat}
        assert kinds <= {"post", "fold", "check", "return", "show", "muck", "award"}, kinds
    assert absent_seats > 0


# --- security, bad input, time limits, disconnections -----------------------------------


class RawPlayer:
    """A hand-driven player stream; with `auto` it checks or calls every request itself."""

    def __init__(self, channel: grpc.aio.Channel, token: str, *, auto: bool = False) -> None:
        self.auto = auto
        self._out: asyncio.Queue[pb.PlayerMessage | None] = asyncio.Queue()
        self.inbox: asyncio.Queue[pb.ServerMessage | grpc.aio.AioRpcError] = asyncio.Queue()
        self.ended = asyncio.Event()  # the server ended the stream (or it failed)
        self.call = pb_grpc.PlayerServiceStub(channel).Play(
            self._messages(), metadata=(("authorization", f"Bearer {token}"),)
        )
        self._reader = asyncio.create_task(self._read())

    async def _messages(self) -> Any:
        while (message := await self._out.get()) is not None:
            yield message

    async def _read(self) -> None:
        try:
            async for message in self.call:
                if self.auto and message.WhichOneof("kind") == "action_request":
                    self.act(message.action_request.request_id, gw.CHECK_CALL)
                await self.inbox.put(message)
        except grpc.aio.AioRpcError as exc:
            await self.inbox.put(exc)
        finally:
            self.ended.set()

    def send(self, **kind: Any) -> None:
        self._out.put_nowait(pb.PlayerMessage(**kind))

    def act(self, request_id: int, kind: int, amount: int = 0) -> None:
        self.send(action=pb.Action(request_id=request_id, kind=kind, amount=amount))

    async def next(self, kind: str, timeout: float = 15.0) -> Any:
        """The next message of `kind` (others are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            message = await asyncio.wait_for(self.inbox.get(), deadline - time.monotonic())
            if isinstance(message, grpc.aio.AioRpcError):
                return message if kind == "end" else pytest.fail(f"stream ended: {message}")
            if message.WhichOneof("kind") == kind:
                return getattr(message, kind)

    async def drain(self, seconds: float) -> list[pb.ServerMessage]:
        got: list[pb.ServerMessage] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = await asyncio.wait_for(self.inbox.get(), left)
            except TimeoutError:
                break
            if isinstance(message, pb.ServerMessage):
                got.append(message)
        return got

    def close(self) -> None:
        self._out.put_nowait(None)
        self.call.cancel()
        self._reader.cancel()


async def status_of(call: Any) -> grpc.StatusCode:
    try:
        await call
    except grpc.aio.AioRpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


def test_credentials_bad_input_floods_time_limits_and_reconnects(server: Server) -> None:
    """UNAUTHENTICATED / PERMISSION_DENIED for the wrong caller; malformed, oversized,
    out-of-turn and other players' actions and floods get a clear status and change nothing;
    a timeout puts the player Out until "I'm back" (OUT-1); a dropped stream leaves them Out
    until they reconnect (OUT-3); a reconnect storm leaves one live stream; the server serves
    on throughout."""

    async def scenario() -> None:
        async with grpc.aio.insecure_channel(server.target) as channel:
            operator = pb_grpc.OperatorServiceStub(channel)
            players = pb_grpc.PlayerServiceStub(channel)
            text = config("guard", max_per_table=2, starting_stack=10_000_000, action_seconds=1)
            request = pb.CreateTournamentRequest(config_toml=text)
            code = await status_of(operator.CreateTournament(request))
            assert code == grpc.StatusCode.UNAUTHENTICATED
            wrong = (("authorization", "Bearer not-the-operator-credential"),)
            code = await status_of(operator.CreateTournament(request, metadata=wrong))
            assert code == grpc.StatusCode.UNAUTHENTICATED
            bad = pb.CreateTournamentRequest(config_toml="[tournament\\nname=")
            code = await status_of(operator.CreateTournament(bad, metadata=OP))
            assert code == grpc.StatusCode.INVALID_ARGUMENT
            huge = pb.CreateTournamentRequest(config_toml="#" * 200_000)
            code = await status_of(operator.CreateTournament(huge, metadata=OP))
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
            tournament = await create(channel, text)
            ref = pb.TournamentRef(tournament_id=tournament)
            tokens = {}
            credentials = {}
            for name in ("ann", "bob"):
                credentials[name] = await wallet(channel, server.target, OPERATOR, name)
                reply = await players.Register(
                    pb.RegisterRequest(tournament_id=tournament, player=name),
                    metadata=bearer(credentials[name]),
                )
                tokens[name] = reply.token
            as_ann_wallet = bearer(credentials["ann"])
            again = pb.RegisterRequest(tournament_id=tournament, player="ann")
            code = await status_of(players.Register(again, metadata=as_ann_wallet))
            assert code == grpc.StatusCode.FAILED_PRECONDITION
            anonymous = await status_of(players.Register(again))  # no credential: no entry
            assert anonymous == grpc.StatusCode.UNAUTHENTICATED
            odd = pb.RegisterRequest(tournament_id=tournament, player="../etc")
            code = await status_of(players.Register(odd, metadata=as_ann_wallet))
            assert code == grpc.StatusCode.INVALID_ARGUMENT
            as_ann = (("authorization", f"Bearer {tokens['ann']}"),)
            code = await status_of(
                operator.ListTournaments(pb.ListTournamentsRequest(), metadata=as_ann)
            )
            assert code == grpc.StatusCode.PERMISSION_DENIED
            gateway_channel = grpc.aio.insecure_channel(server.gateway)
            gateway = gw_grpc.TableGatewayStub(gateway_channel)
            code = await status_of(
                gateway.RequestAction(
                    gw.SeatActionRequest(tournament_id=tournament), metadata=as_ann
                )
            )
            assert code == grpc.StatusCode.PERMISSION_DENIED
            await gateway_channel.close()
            for token, expected in (
                ("garbage-token", grpc.StatusCode.UNAUTHENTICATED),
                (OPERATOR, grpc.StatusCode.PERMISSION_DENIED),
            ):
                intruder = RawPlayer(channel, token)
                end = await intruder.next("end")
                assert end.code() == expected
                intruder.close()

            ann, bob = RawPlayer(channel, tokens["ann"]), RawPlayer(channel, tokens["bob"])
            await ann.next("welcome")
            await bob.next("welcome")
            ann.act(999_999, gw.CHECK_CALL)  # nothing asked yet
            assert (await ann.next("error")).code == "FAILED_PRECONDITION"
            await operator.StartTournament(ref, metadata=OP)

            # The first request goes to one of them: the other may not answer it.
            waits = {asyncio.create_task(p.next("action_request")): p for p in (ann, bob)}
            done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            finished = next(iter(done))
            prompt = finished.result()
            asked = waits[finished]
            other = bob if asked is ann else ann
            other.act(prompt.request_id, gw.CHECK_CALL)
            assert (await other.next("error")).code == "PERMISSION_DENIED"
            legal = prompt.legal
            asked.act(prompt.request_id, gw.RAISE_TO, (legal.max_raise_to or 10**9) + 1)
            assert (await asked.next("error")).code == "INVALID_ARGUMENT"
            for _ in range(60):  # a flood of nonsense
                asked.act(prompt.request_id + 1000, gw.FOLD)
            flood = [
                m.error.code for m in await asked.drain(0.5) if m.WhichOneof("kind") == "error"
            ]
            assert "RESOURCE_EXHAUSTED" in flood
            asked.act(prompt.request_id, gw.CHECK_CALL)  # the request still stands
            accepted = await asked.next("action_accepted")
            assert accepted.request_id == prompt.request_id

            # OUT-1: the next request is left to time out.
            other.auto = True
            prompt = await asked.next("action_request")
            status = await asked.next("status", timeout=5)
            assert (status.out, status.reason) == (True, "timeout")
            quiet = await asked.drain(2.0)  # Out: hands go on without asking
            kinds = [m.WhichOneof("kind") for m in quiet]
            assert "hand_result" in kinds and "action_request" not in kinds
            asked.send(back=pb.Back())
            assert (await asked.next("status")).reason == "back"
            asked.auto = True
            await asked.next("action_accepted", timeout=10)  # asked again, and answering

            # OUT-3: a dropped stream; the other plays on; reconnecting brings the player in.
            asked.close()
            before = len(
                [m for m in await other.drain(2.0) if m.WhichOneof("kind") == "hand_result"]
            )
            assert before > 0
            name = "ann" if asked is ann else "bob"
            storm = [RawPlayer(channel, tokens[name], auto=True) for _ in range(20)]
            await asyncio.sleep(2.0)
            (last,) = [p for p in storm if not p.ended.is_set()]  # each replaced the one before
            await last.next("action_accepted", timeout=10)
            for older in storm:
                if older is not last:
                    older.close()
            await operator.CancelTournament(
                pb.CancelRequest(tournament_id=tournament, reason="done"), metadata=OP
            )
            info = await operator.GetTournament(ref, metadata=OP)
            assert info.state == "cancelled"
            last.close()
            other.close()

    asyncio.run(scenario())
    metrics = urlopen(f"http://{server.metrics}/metrics").read().decode()
    unauthenticated = 'code="UNAUTHENTICATED",method="/mtt.frontdoor.v1.OperatorService/Create'
    assert f"mtt_grpc_requests_total{{{unauthenticated}" in metrics
    # The OUT-1 timeout above is counted (and any of the reconnect storm's: a prompt that
    # found no stream while the 20 streams replaced each other also times out).
    (timeouts,) = re.findall(r"^mtt_action_timeouts_total (\S+)$", metrics, re.MULTILINE)
    assert float(timeouts) >= 1
    assert 'mtt_action_roundtrip_seconds_bucket{le="0.05"}' in metrics
    assert 'mtt_hands_total{tournament="guard"}' in metrics  # the tournament metrics too
