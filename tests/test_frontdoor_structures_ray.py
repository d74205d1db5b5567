"""Every structure through a real `mtt serve` (its own local Ray, deck service and SQLite store,
all on 127.0.0.1), played by remote players over gRPC: a shoot-out and a heads-up knockout to
their winners (SO-1..SO-5), a rebuy tournament whose player asks for his rebuy over his stream
(RB-3, RB-4), a deal at the final table proposed with `mtt ctl deal` and accepted by every
remote player (DEAL-1..DEAL-3), late registration into the running tournament (REG-1), and the
refusals of the new calls: typed statuses, nothing changed."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from typing import Any

import grpc
import pytest
from test_frontdoor_ray import (
    OP,
    OPERATOR,
    RawPlayer,
    Recorded,
    Server,
    bots,
    create,
    server,
    status_of,
)
from wallets import BALANCE, bearer, wallet

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from table_worker._proto import gateway_pb2 as gw

__all__ = ["server"]  # the module's `mtt serve` (a fixture of test_frontdoor_ray)

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

RISING = "[[25, 50], [50, 100], [100, 200], [200, 400], [400, 800], [800, 1600], [1600, 3200], "
RISING += "[3200, 6400], [6400, 12800], [12800, 25600], [25600, 51200], [51200, 102400]]"


def config_text(name: str, *, length: int, blinds: str, extra: str = "", **tournament: Any) -> str:
    fields = {"name": name, "action_seconds": 5} | tournament
    lines = ["[tournament]"] + [f"{k} = {json.dumps(v)}" for k, v in fields.items()]
    lines += ["[levels]", 'unit = "hands"', f"length = {length}", f"blinds = {blinds}"]
    return "\n".join(lines) + "\n" + extra


async def credential_of(
    channel: grpc.aio.Channel, server: Server, player: str
) -> tuple[tuple[str, str], ...]:
    """The metadata of `player` registering himself: his wallet's credential (REG-1)."""
    return bearer(await wallet(channel, server.target, OPERATOR, player))


async def watch_to_end(operator: Any, tournament: str) -> list[Any]:
    request = pb.WatchRequest(tournament_id=tournament)
    return [json.loads(r.json) async for r in operator.WatchEvents(request, metadata=OP)]


def places_of(server: Server, tournament: str) -> dict[str, int]:
    results = json.loads((server.data / tournament / "results.json").read_text())
    return {p["player"]: p["place"] for p in results["places"]}


@pytest.mark.parametrize(
    ("kind", "players", "sections"),
    [
        ("shootout", 6, "[[phases]]\nmax_per_table = 3\nqualifiers = 1\n"),  # SO-1, SO-2
        ("heads_up", 4, "[shootout]\nheads_up = true\n"),  # SO-5
    ],
)
def test_so1_so5_a_shootout_of_remote_players_plays_to_its_winner(
    server: Server, kind: str, players: int, sections: str
) -> None:
    """Each table of a phase plays down to its qualifier, who is told of his new table at his
    first hand there; the last phase's winner is first; every player hears his own place."""
    names = [f"{kind}{k}" for k in range(players)]

    async def play() -> tuple[str, list[Any], dict[str, Recorded], pb.TournamentInfo]:
        async with grpc.aio.insecure_channel(server.target) as channel:
            operator = pb_grpc.OperatorServiceStub(channel)
            per_table = 2 if kind == "heads_up" else 3
            text = config_text(
                kind,
                length=3,
                blinds=RISING,
                structure="shootout",
                max_per_table=per_table,
                starting_stack=1000,
                extra=sections,
            )
            tournament = await create(channel, text)
            fleet, records, stats = await bots(
                channel, server.target, tournament, names, ("strength",)
            )
            tasks = [asyncio.create_task(p.run()) for p in fleet]
            await asyncio.wait_for(asyncio.gather(*(p.welcomed.wait() for p in fleet)), 30)
            ref = pb.TournamentRef(tournament_id=tournament)
            info = await operator.StartTournament(ref, metadata=OP)
            assert info.structure == "shootout" and not info.registration_open
            events = await watch_to_end(operator, tournament)
            info = await operator.GetTournament(ref, metadata=OP)
            for p in fleet:
                p.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
            assert stats.errors == 0, stats.problems
            return tournament, events, records, info

    tournament, events, records, info = asyncio.run(play())
    assert info.state == "finished"
    kinds = [e["type"] for e in events]
    assert kinds.count("phase_started") >= 1 and "player_qualified" in kinds
    assert kinds[-1] == "tournament_finished" or "tournament_finished" in kinds
    places = places_of(server, tournament)
    assert sorted(places.values()) == list(range(1, players + 1))
    winner = next(e["winner"] for e in events if e["type"] == "tournament_finished")
    assert places[winner] == 1
    qualified = {e["player"] for e in events if e["type"] == "player_qualified"}
    assert winner in qualified  # SO-1: he came through every phase
    for name in names:
        assert [f.place for f in records[name].of("finished")] == [places[name]]
    assert any(records[p].of("moved") for p in qualified)  # a new phase, a new table


def test_rb3_rb4_a_rebuy_tournament_with_a_remote_rebuy_request(server: Server) -> None:
    """RB-3: a remote player under the threshold asks for a rebuy over his stream; it is taken at
    his next hand boundary and he is told of the chips (he plays Out: checks and folds);
    RB-4: the rebuys left become chips at the end of the period; then no more rebuys (refused,
    nothing changed), and the tournament plays to its winner. A rebuy before the start, from a
    player out, or without a valid token is refused too."""

    async def play() -> tuple[str, list[Any], dict[str, list[Any]], Any]:
        async with grpc.aio.insecure_channel(server.target) as channel:
            operator = pb_grpc.OperatorServiceStub(channel)
            players = pb_grpc.PlayerServiceStub(channel)
            text = config_text(
                "rebuys",
                length=4,
                blinds=RISING,
                structure="rebuy",
                max_per_table=3,
                starting_stack=1500,
                # A threshold above any stack here: his rebuy is taken whatever his hand in
                # progress brings him (RB-3 drops a request made above the threshold).
                extra="[rebuy]\nauto = false\nlevels = 2\nrebuys = 2\nthreshold = 100000\n",
            )
            tournament = await create(channel, text)
            fleet, _, stats = await bots(
                channel, server.target, tournament, ["rb1", "rb2"], ("strength",)
            )
            reply = await players.Register(
                pb.RegisterRequest(tournament_id=tournament, player="ask"),
                metadata=await credential_of(channel, server, "ask"),
            )
            # He never answers: Out after his first time limit (OUT-1), his seat checks or
            # folds for him; he only asks for his rebuy.
            asker = RawPlayer(channel, reply.token)
            await asker.next("welcome")
            asker.send(rebuy=pb.RebuyRequest())  # not running yet
            assert (await asker.next("error")).code == "FAILED_PRECONDITION"
            tasks = [asyncio.create_task(p.run()) for p in fleet]
            await asyncio.wait_for(asyncio.gather(*(p.welcomed.wait() for p in fleet)), 30)
            ref = pb.TournamentRef(tournament_id=tournament)
            await operator.StartTournament(ref, metadata=OP)
            await asker.next("hand_started", timeout=60)
            asker.send(rebuy=pb.RebuyRequest())  # at or under the threshold (RB-3)
            seen: list[pb.ServerMessage] = []
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                message = await asyncio.wait_for(asker.inbox.get(), deadline - time.monotonic())
                assert isinstance(message, pb.ServerMessage), message
                seen.append(message)
                kind = message.WhichOneof("kind")
                if kind == "error":
                    break  # the request was refused: shown below
                if kind == "chips_added" and message.chips_added.kind == "addon":
                    break  # RB-4: the period is over
                if kind == "finished":
                    break
            asker.send(rebuy=pb.RebuyRequest())  # after the period, or out: refused
            refused = [await asker.next("error", timeout=15)]
            if not any(m.WhichOneof("kind") == "finished" for m in seen):
                finished = await asker.next("finished", timeout=180)
                if finished.place > 1:  # out for good (RB-4: no rebuys after the period)
                    asker.send(rebuy=pb.RebuyRequest())
                    refused.append(await asker.next("error", timeout=15))
            intruder = RawPlayer(channel, "not-a-token")  # a rebuy needs a stream first
            refused.append(await intruder.next("end"))
            intruder.close()
            events = await watch_to_end(operator, tournament)
            listed = await operator.ListPlayers(ref, metadata=OP)
            asker.close()
            for p in fleet:
                p.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
            assert stats.errors == 0, stats.problems
            return tournament, events, {"ask": seen, "refused": refused}, listed

    tournament, events, heard, listed = asyncio.run(play())
    kinds = [m.WhichOneof("kind") for m in heard["ask"]]
    assert "error" not in kinds, [m.error for m in heard["ask"] if m.WhichOneof("kind") == "error"]
    assert "rebuy_accepted" in kinds
    added = [m.chips_added for m in heard["ask"] if m.WhichOneof("kind") == "chips_added"]
    assert added[0].kind == "rebuy" and added[0].chips == 1500  # RB-3, at his boundary
    *problems, end = heard["refused"]
    assert problems[0].code == "FAILED_PRECONDITION" and "RB-4" in problems[0].message
    for problem in problems[1:]:  # a player out asks: not playing, or (2nd) it has ended
        assert problem.code == "FAILED_PRECONDITION"
        assert "not playing" in problem.message or "not running (finished)" in problem.message
    assert end.code() == grpc.StatusCode.UNAUTHENTICATED
    requested = [e for e in events if e["type"] == "rebuy_requested"]
    assert [e["player"] for e in requested] == ["ask"]  # the refusal logged nothing
    rebuys = [e for e in events if e["type"] == "rebuy" and e["player"] == "ask"]
    assert rebuys and rebuys[0]["chips"] == 1500
    assert any(e["type"] == "tournament_finished" for e in events)
    assert sorted(places_of(server, tournament).values()) == [1, 2, 3]
    by_name = {p.player: p for p in listed.players}
    assert by_name["ask"].rebuys == len(rebuys)


def test_deal1_deal3_a_deal_proposed_with_mtt_ctl_is_accepted_by_every_remote_player(
    server: Server,
) -> None:
    """A chip chop leaving an amount to play for is declined by one player: play resumes
    unchanged. Then the operator proposes an ICM deal with `mtt ctl deal`; play pauses at
    the table's boundary; each remote player is offered his amount on his stream and answers
    for himself alone; the last acceptance pays everyone and ends the tournament, places by
    chips, the pool made up to its guarantee (GTD-1). Refused, with nothing changed: a deal
    before the start, by a player's token or a wrong credential, of a bad kind; an answer with
    no deal, an answer given twice (two tables open: the next test)."""
    names = ["ann", "bob", "cy"]

    async def play() -> tuple[str, list[Any], dict[str, RawPlayer], list[Any], dict[str, int]]:
        async with grpc.aio.insecure_channel(server.target) as channel:
            operator = pb_grpc.OperatorServiceStub(channel)
            players = pb_grpc.PlayerServiceStub(channel)
            text = config_text(
                "deal",
                length=1000,
                blinds="[[25, 50]]",
                starting_stack=100_000,
                max_per_table=3,
                buy_in=10_000,
                extra="[payouts]\nguarantee = 50000\n",  # GTD-1: an overlay of 20,000
            )
            tournament = await create(channel, text)
            tokens = {}
            for name in names:
                reply = await players.Register(
                    pb.RegisterRequest(tournament_id=tournament, player=name),
                    metadata=await credential_of(channel, server, name),
                )
                tokens[name] = reply.token
            streams = {n: RawPlayer(channel, tokens[n], auto=True) for n in names}
            for stream in streams.values():
                await stream.next("welcome")
            ref = pb.TournamentRef(tournament_id=tournament)
            icm = pb.DealRequest(tournament_id=tournament, kind="icm")
            assert await status_of(operator.ProposeDeal(icm, metadata=OP)) == (
                grpc.StatusCode.FAILED_PRECONDITION  # not running yet
            )
            await operator.StartTournament(ref, metadata=OP)
            await streams["ann"].next("hand_result", timeout=60)
            as_ann = (("authorization", f"Bearer {tokens['ann']}"),)
            wrong = (("authorization", "Bearer not-the-operator-credential"),)
            refusals = {
                "token": await status_of(operator.ProposeDeal(icm, metadata=as_ann)),
                "wrong": await status_of(operator.ProposeDeal(icm, metadata=wrong)),
                "kind": await status_of(
                    operator.ProposeDeal(
                        pb.DealRequest(tournament_id=tournament, kind="half"), metadata=OP
                    )
                ),
            }
            assert refusals == {
                "token": grpc.StatusCode.PERMISSION_DENIED,
                "wrong": grpc.StatusCode.UNAUTHENTICATED,
                "kind": grpc.StatusCode.INVALID_ARGUMENT,
            }
            streams["ann"].send(deal_answer=pb.DealAnswer(accept=True))  # nothing proposed
            assert (await streams["ann"].next("error")).code == "FAILED_PRECONDITION"
            info = await operator.GetTournament(ref, metadata=OP)
            assert info.state == "running" and not info.HasField("deal")

            # DEAL-1: a chip chop leaving 5,000 to play for; cy declines, play resumes.
            chop = pb.DealRequest(tournament_id=tournament, kind="chip_chop", leave=5000)
            info = await operator.ProposeDeal(chop, metadata=OP)
            assert info.state == "paused" and info.deal.left == 5000
            for name in names:
                assert (await streams[name].next("deal", timeout=15)).state == "proposed"
            streams["cy"].send(deal_answer=pb.DealAnswer(accept=False))
            for name in names:
                assert (await streams[name].next("deal", timeout=15)).state == "declined"
            await streams["ann"].next("hand_result", timeout=30)  # play goes on unchanged
            info = await operator.GetTournament(ref, metadata=OP)
            assert info.state == "running" and info.deal.state == "declined"

            env = os.environ | {"MTT_OPERATOR_TOKEN": OPERATOR}
            command = [sys.executable, "-m", "orchestrator.cli.main", "ctl", "deal", tournament]
            command += ["--kind", "icm", "--target", server.target, "--json"]
            done = await asyncio.to_thread(
                subprocess.run, command, capture_output=True, text=True, env=env, timeout=120
            )
            assert done.returncode == 0, done.stderr
            proposed = json.loads(done.stdout)
            assert proposed["state"] == "paused" and proposed["deal"]["state"] == "proposed"
            for name in names:
                offer = await streams[name].next("deal", timeout=15)
                assert offer.state == "proposed" and {s.player for s in offer.shares} == set(names)
            streams["ann"].send(deal_answer=pb.DealAnswer(accept=True))
            shown = await streams["bob"].next("deal", timeout=15)  # ann's answer, only hers
            assert {s.player: s.answer for s in shown.shares} == {
                "ann": "accepted",
                "bob": "",
                "cy": "",
            }
            streams["ann"].send(deal_answer=pb.DealAnswer(accept=True))  # again: refused
            assert (await streams["ann"].next("error")).code == "FAILED_PRECONDITION"
            for name in ("bob", "cy"):
                streams[name].send(deal_answer=pb.DealAnswer(accept=True))
            events = await watch_to_end(operator, tournament)
            info = await operator.GetTournament(ref, metadata=OP)
            assert info.state == "finished" and info.deal.state == "accepted"
            assert info.guarantee == 50_000 and info.prize_pool == 50_000
            told = {n: (await streams[n].next("finished", timeout=15)).place for n in names}
            return tournament, events, streams, list(info.deal.shares), told

    tournament, events, streams, shares, told = asyncio.run(play())
    chop, icm = (e for e in events if e["type"] == "deal_proposed")
    assert chop["kind"] == "chip_chop" and chop["left"] == 5000
    assert icm["kind"] == "icm" and sorted(icm["players"]) == names
    answers = [(e["player"], e["accepted"]) for e in events if e["type"] == "deal_answered"]
    assert answers[0] == ("cy", False) and sorted(answers[1:]) == [(n, True) for n in names]
    chop_at = events.index(chop)
    clock = [e["type"] for e in events[: chop_at + 2] if e["type"].startswith("tournament_")]
    assert clock[-1] == "tournament_paused"  # DEAL-1: paused at the boundary (before or with it)
    refused_at = next(k for k, e in enumerate(events) if e["type"] == "deal_answered")
    assert events[refused_at + 1]["type"] == "tournament_resumed"  # ...and resumed unchanged
    assert not any(e["type"] == "deal_paid" for e in events[:refused_at])
    paid = {e["player"]: e for e in events if e["type"] == "deal_paid"}
    assert sum(e["amount"] for e in paid.values()) == 50_000  # DEAL-3: the pool, overlay in
    assert {s.player: s.amount for s in shares} == {p: e["amount"] for p, e in paid.items()}
    places = places_of(server, tournament)
    assert places == {p: e["place"] for p, e in paid.items()}
    assert told == places  # each heard his place, as the deal set it (DEAL-3)
    for stream in streams.values():
        stream.close()


def test_deal1_refused_outside_the_final_table_and_reg1_late_registration(server: Server) -> None:
    """Two tables open: a deal is refused (FAILED_PRECONDITION), play goes on unpaused and no
    deal is shown. Late registration: a player registers into the running tournament over the
    API, gets a token, is seated and dealt in; a name already in is refused."""

    async def play() -> None:
        async with grpc.aio.insecure_channel(server.target) as channel:
            operator = pb_grpc.OperatorServiceStub(channel)
            players = pb_grpc.PlayerServiceStub(channel)
            text = config_text(
                "late",
                length=1000,
                blinds="[[25, 50]]",
                max_per_table=6,  # tables of 4 and 3: open seats outside the blinds' gap
                starting_stack=100_000,
                buy_in=1000,
                late_registration_levels=1,
            )
            tournament = await create(channel, text)
            streams = {}
            for name in ("la", "lb", "lc", "ld", "le", "lf", "lg"):
                reply = await players.Register(
                    pb.RegisterRequest(tournament_id=tournament, player=name),
                    metadata=await credential_of(channel, server, name),
                )
                streams[name] = RawPlayer(channel, reply.token, auto=True)
            ref = pb.TournamentRef(tournament_id=tournament)
            await operator.StartTournament(ref, metadata=OP)
            await streams["la"].next("hand_result", timeout=60)
            deal = pb.DealRequest(tournament_id=tournament, kind="chip_chop")
            code = await status_of(operator.ProposeDeal(deal, metadata=OP))
            assert code == grpc.StatusCode.FAILED_PRECONDITION
            info = await operator.GetTournament(ref, metadata=OP)
            assert info.state == "running" and not info.HasField("deal")
            assert info.registration_open  # REG-1: late registration lasts level 1
            late = await players.Register(
                pb.RegisterRequest(tournament_id=tournament, player="lz"),
                metadata=await credential_of(channel, server, "lz"),
            )
            again = pb.RegisterRequest(tournament_id=tournament, player="la")
            as_la = await credential_of(channel, server, "la")
            code = await status_of(players.Register(again, metadata=as_la))
            assert code == grpc.StatusCode.FAILED_PRECONDITION
            newcomer = RawPlayer(channel, late.token, auto=True)
            hand = await newcomer.next("hand_started", timeout=60)
            assert "lz" in {s.player for s in hand.seats}
            info = await operator.GetTournament(ref, metadata=OP)
            assert "lz" in info.players and info.prize_pool == 8 * 1000
            # REG-1: the late entry came out of lz's wallet; la's refused one was given back
            for name in ("lz", "la"):
                account = await operator.GetAccount(pb.AccountRef(account=name), metadata=OP)
                assert account.balance == BALANCE - 1000, name
            await operator.CancelTournament(
                pb.CancelRequest(tournament_id=tournament, reason="done"), metadata=OP
            )
            events = await watch_to_end(operator, tournament)
            assert not any(e["type"] == "deal_proposed" for e in events)
            funded = [e for e in events if e["type"] == "player_funded"]
            assert [e["player"] for e in funded] == ["lz"]
            for stream in (*streams.values(), newcomer):
                stream.close()

    asyncio.run(play())


Played = tuple[str, list[Any], dict[str, list[Any]], Any, dict[str, int]]


async def pushed_to_a_bust(server: Server, attempt: int) -> tuple[list[str], Played]:
    """One progressive knockout with late registration and one re-entry: its first player
    pushes every hand against calling stations (tables of 3, so balancing never leaves him
    alone), takes the re-entry whenever he is offered it, and plays on until he is out for
    good or the tournament ends. The players (pusher first) and what was played and heard."""
    pusher = f"sh{attempt}"
    names = [pusher, *(f"st{attempt}x{k}" for k in range(1, 9))]
    async with grpc.aio.insecure_channel(server.target) as channel:
        operator = pb_grpc.OperatorServiceStub(channel)
        players = pb_grpc.PlayerServiceStub(channel)
        text = config_text(
            f"reentries{attempt}",
            length=10,
            blinds=RISING,
            max_per_table=3,
            starting_stack=1000,
            buy_in=1000,
            late_registration_levels=6,
            reentries=1,
            extra='[knockout]\nkind = "progressive"\nbounty = 400\n',
        )
        tournament = await create(channel, text)
        fleet, records, stats = await bots(
            channel, server.target, tournament, names[1:], ("station",)
        )
        reply = await players.Register(
            pb.RegisterRequest(tournament_id=tournament, player=pusher),
            metadata=await credential_of(channel, server, pusher),
        )
        shove = RawPlayer(channel, reply.token)
        tasks = [asyncio.create_task(p.run()) for p in fleet]
        await asyncio.wait_for(asyncio.gather(*(p.welcomed.wait() for p in fleet)), 30)
        await shove.next("welcome")
        ref = pb.TournamentRef(tournament_id=tournament)
        await operator.StartTournament(ref, metadata=OP)
        # Asking before any bust is refused on the stream, nothing changed
        shove.send(reenter=pb.ReentryRequest())
        heard: list[Any] = []
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:  # all in every hand, until out for good
            message = await asyncio.wait_for(shove.inbox.get(), deadline - time.monotonic())
            assert isinstance(message, pb.ServerMessage), message
            heard.append(message)
            kind = message.WhichOneof("kind")
            if kind == "action_request":
                prompt = message.action_request
                if prompt.legal.can_raise:
                    shove.act(prompt.request_id, gw.RAISE_TO, prompt.legal.max_raise_to)
                else:
                    shove.act(prompt.request_id, gw.CHECK_CALL)
            elif kind == "reentry_offer":
                shove.send(reenter=pb.ReentryRequest())
            elif kind == "finished":
                break
        events = await watch_to_end(operator, tournament)
        listed = await operator.ListPlayers(ref, metadata=OP)
        balances = {
            n: (await operator.GetAccount(pb.AccountRef(account=n), metadata=OP)).balance
            for n in names
        }
        shove.close()
        for p in fleet:
            p.stop()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert stats.errors == 0, stats.problems
        told = {pusher: heard} | {n: r.messages for n, r in records.items()}
        return names, (tournament, events, told, listed, balances)


def test_ko2_late_a_remote_player_re_enters_from_his_wallet_and_every_cent_balances(
    server: Server,
) -> None:
    """A player who pushes every hand busts during late registration, is offered the
    re-entry on his stream (`reentry_offer`) and takes it (`reenter`): its price comes out of
    his wallet and he is seated again (`chips_added reentry`); a second bust offers nothing
    (his one re-entry used), and the stations, offered theirs, never ask. Everyone who knocks
    someone out is told what he won (`bounty_won`, KO-3) and his own bounty now (KO-2). The
    money balances: each wallet lost its entries and got what the run's ledger paid it, the
    wallets and the operator's commission add up to what the wallets held, and `mtt replay`
    audits the exported run clean. The cards decide whether he busts while late registration
    lasts (he may win his first all-ins and then the rest): a tournament in which he never
    did is played again, at most four in all."""
    for attempt in range(1, 5):
        names, played = asyncio.run(pushed_to_a_bust(server, attempt))
        pusher = names[0]
        if any(m.WhichOneof("kind") == "reentry_offer" for m in played[2][pusher]):
            break
    tournament, events, told, listed, balances = played
    heard = told[pusher]
    kinds = [m.WhichOneof("kind") for m in heard]
    first_problem = next(m.error for m in heard if m.WhichOneof("kind") == "error")
    assert first_problem.code == "FAILED_PRECONDITION"  # no re-entry offered yet
    assert "no re-entry offered" in first_problem.message
    offers = [m.reentry_offer for m in heard if m.WhichOneof("kind") == "reentry_offer"]
    assert [(o.entry, o.price, o.reentries_left, o.until_level) for o in offers] == [
        (2, 1000, 0, 6)
    ]
    reentered = [e["player"] for e in events if e["type"] == "player_reentered"]
    assert reentered == [pusher]  # he asked; the stations, offered theirs, never did
    assert kinds.index("reentry_offer") < kinds.index("chips_added")
    assert any(e["type"] == "tournament_finished" for e in events)
    for name, messages in told.items():
        added = [m.chips_added for m in messages if m.WhichOneof("kind") == "chips_added"]
        assert [a.kind for a in added] == ["reentry"] * reentered.count(name)
        won = [m.bounty_won for m in messages if m.WhichOneof("kind") == "bounty_won"]
        logged = [e for e in events if e["type"] == "bounty_won" and e["player"] == name]
        assert [(w.eliminated, w.cash, w.added) for w in won] == [
            (e["eliminated"], e["cash"], e["added"]) for e in logged
        ]
    cash = {p.player: p.bounties_won for p in listed.players}
    for name in cash:
        logged_cash = sum(
            e["cash"] for e in events if e["type"] == "bounty_won" and e["player"] == name
        )
        assert cash[name] == logged_cash
    assert sorted(places_of(server, tournament).values()) == list(range(1, len(names) + 1))
    entries = {p.player: p.entries for p in listed.players}
    assert entries == {n: 1 + reentered.count(n) for n in names}
    # Every cent: each wallet less its entries plus what the run's ledger paid it; the
    # wallets and the operator's commission add up to what the wallets held.
    paid = dict.fromkeys(names, 0)
    for e in events:
        if e["type"] == "ledger_posted" and e["target"].startswith("player:"):
            paid[e["target"].removeprefix("player:")] += e["amount"]
    for name in names:
        assert balances[name] == BALANCE - 1000 * entries[name] + paid[name], name
    kept = sum(
        e["amount"] * ((e["target"] == "operator") - (e["source"] == "operator"))
        for e in events
        if e["type"] == "ledger_posted"
    )
    assert sum(balances.values()) + kept == len(names) * BALANCE
    audit = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli.main", "replay", str(server.data / tournament)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert audit.returncode == 0, audit.stdout + audit.stderr
