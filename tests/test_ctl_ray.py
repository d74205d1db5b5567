"""`mtt ctl` against a real `mtt serve` (its own local Ray, deck service and SQLite store, all
on 127.0.0.1; the fixture of tests/test_frontdoor_ray.py): every command run as its own
process, as an operator runs it. A whole tournament of bots driven from `create` to the
finished standings, and each refusal one line on stderr with exit 2."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from test_frontdoor_ray import Server, config, server  # noqa: F401  (the module's fixture)

from loadtest.fleet import BotPlayer, FleetStats
from table_worker.bots import make_bot

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

OPERATOR = "test-operator-credential-0123456789"  # the fixture's `mtt serve` credential


@dataclass
class Done:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        assert self.code == 0, self.err
        return json.loads(self.out)

    def refused(self, status: str) -> str:
        """The one line of a refusal: exit 2, no traceback, the status named."""
        assert self.code == 2, (self.code, self.out, self.err)
        lines = self.err.splitlines()
        assert len(lines) == 1 and "Traceback" not in self.err, self.err
        assert status in lines[0], lines[0]
        return lines[0]


def environment(front_door: Server, home: Path, **extra: str) -> dict[str, str]:
    """The address and credential from the environment (a HOME of its own: no ctl config)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("MTT_")}
    return base | {
        "HOME": str(home),
        "MTT_TARGET": front_door.target,
        "MTT_OPERATOR_TOKEN": OPERATOR,
        **extra,
    }


async def ctl(env: dict[str, str], *words: str) -> Done:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "orchestrator.cli.main",
        "ctl",
        *words,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return Done(process.returncode, out.decode(), err.decode())


async def fund(env: dict[str, str], *players: str) -> None:
    """Each player's wallet opened through `mtt ctl open-account` (REG-1 takes entries from
    it); one opened before is left as it is."""
    for player in players:
        done = await ctl(env, "open-account", player, "--balance", "1000000000")
        if done.code != 0:
            done.refused("FAILED_PRECONDITION")


def test_ctl_drives_a_tournament_of_bots_from_create_to_finished_standings(
    server: Server,  # noqa: F811
    tmp_path: Path,
) -> None:
    """create, open, register (tokens handed to the bots), players (all connected: OUT-2
    does not apply), start, pause/resume (a second pause refused), a second start refused,
    watch (JSON lines, live, to the winner), standings and players (finished), list and
    show, and a cancel of the finished tournament refused."""
    names = [f"ctl{k}" for k in range(6)]
    toml = tmp_path / "ctl-e2e.toml"
    toml.write_text(
        config(
            "ctl-e2e",
            # Deep enough (about a hundred hands) to be still running when `ctl pause` comes:
            # at 1,000 chips the field was over first once waiting tables were long-polled.
            starting_stack=20000,
            action_seconds=5,
            length=10,
            levels="[[25, 50, 0], [50, 100, 0], [100, 200, 0], [200, 400, 0], [400, 800, 0]]",
        )
    )
    env = environment(server, tmp_path)

    async def scenario() -> dict[str, Any]:
        created = (await ctl(env, "create", str(toml), "--json")).json()
        tournament = created["tournament"]
        assert created["state"] == "announced" and created["players"] == []
        assert (await ctl(env, "open", tournament, "--json")).json()["state"] == "registering"
        await fund(env, *names)
        registered = (await ctl(env, "register", tournament, *names, "--json")).json()
        tokens = {r["player"]: r["token"] for r in registered["registered"]}
        assert sorted(tokens) == sorted(names)
        async with grpc.aio.insecure_channel(server.target) as channel:
            stats = FleetStats()
            bots = [
                BotPlayer(name, tokens[name], make_bot("tag", random.Random(name)), channel, stats)
                for name in names
            ]
            tasks = [asyncio.create_task(bot.run()) for bot in bots]
            await asyncio.wait_for(asyncio.gather(*(b.welcomed.wait() for b in bots)), 30)
            before = (await ctl(env, "players", tournament, "--json")).json()
            assert before["state"] == "registering"
            assert {p["player"]: (p["connected"], p["out"]) for p in before["players"]} == {
                name: (True, None) for name in names
            }

            started = (await ctl(env, "start", tournament, "--json")).json()
            assert started["state"] == "running" and sorted(started["players"]) == names
            (await ctl(env, "start", tournament)).refused("FAILED_PRECONDITION")
            (await ctl(env, "resume", tournament)).refused("FAILED_PRECONDITION")  # not paused
            assert (await ctl(env, "pause", tournament, "--json")).json()["state"] == "paused"
            (await ctl(env, "pause", tournament)).refused("FAILED_PRECONDITION")
            assert (await ctl(env, "resume", tournament, "--json")).json()["state"] == "running"
            watched = await ctl(env, "watch", tournament, "--json")
            finished = {
                "watch": [json.loads(line) for line in watched.out.splitlines()],
                "standings": (await ctl(env, "standings", tournament, "--json")).json(),
                "standings_text": (await ctl(env, "standings", tournament)).out,
                "players": (await ctl(env, "players", tournament, "--json")).json(),
                "list": (await ctl(env, "list", "--json")).json(),
                "show_text": (await ctl(env, "show", tournament)).out,
                "cancel": await ctl(env, "cancel", tournament, "--reason", "too late"),
                "tournament": tournament,
            }
            for bot in bots:
                bot.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
            assert watched.code == 0, watched.err
            assert stats.errors == 0, stats.problems
            return finished

    seen = asyncio.run(scenario())
    tournament = seen["tournament"]
    events = seen["watch"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    kinds = [e["type"] for e in events]
    assert kinds[-1] == "tournament_finished"
    assert kinds.index("tournament_started") < kinds.index("hand_finished")
    assert "tournament_paused" in kinds and "tournament_resumed" in kinds
    standings = seen["standings"]
    assert (standings["state"], standings["players_left"]) == ("finished", 0)
    assert standings["hands"] == kinds.count("hand_finished") > 0
    places = {s["player"]: s["place"] for s in standings["standings"]}
    assert sorted(places.values()) == list(range(1, 7))
    assert places[events[-1]["winner"]] == 1
    results = json.loads((server.data / tournament / "results.json").read_text())
    assert {p["player"]: p["place"] for p in results["places"]} == places
    assert {p["player"]: p["prize"] for p in results["places"]} == {
        s["player"]: s["prize"] for s in standings["standings"]
    }
    text = seen["standings_text"].splitlines()
    assert text[0] == f"{tournament}: finished, 0 left, {standings['hands']} hands"
    assert text[1].split() == ["place", "player", "stack", "prize"]
    assert text[3].split()[:2] == ["1", events[-1]["winner"]]
    after = {p["player"]: p for p in seen["players"]["players"]}
    assert {name: after[name]["place"] for name in names} == places
    assert all(p["stack"] == 0 for p in after.values())
    listed = {t["tournament"]: t for t in seen["list"]["tournaments"]}
    assert listed[tournament]["state"] == "finished"
    assert ["state", "finished"] in [line.split() for line in seen["show_text"].splitlines()]
    seen["cancel"].refused("FAILED_PRECONDITION")


def test_ctl_refusals_are_one_line_and_exit_2(
    server: Server,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A wrong credential, a player's token as the operator's, an unknown tournament, an
    illegal state change, a config the server refuses, a malformed TOML: each one line on
    stderr, exit 2, nothing changed."""
    env = environment(server, tmp_path)
    toml = tmp_path / "ctl-refusals.toml"
    toml.write_text(config("ctl-refusals", buy_in=1000, fee=100))

    async def scenario() -> None:
        wrong = environment(server, tmp_path, MTT_OPERATOR_TOKEN="not-the-operator-credential")
        line = (await ctl(wrong, "list")).refused("UNAUTHENTICATED")
        assert line.startswith("mtt ctl list: ")
        (tmp_path / "wrong.txt").write_text("also-not-the-operator-credential\n")
        flag = ("--operator-credential-file", str(tmp_path / "wrong.txt"))
        (await ctl(env, "show", "x", *flag)).refused("UNAUTHENTICATED")  # the flag wins

        for verb in ("show", "open", "start", "pause", "resume", "standings", "players", "watch"):
            (await ctl(env, verb, "no-such-tournament")).refused("NOT_FOUND")
        (await ctl(env, "cancel", "no-such-tournament", "--reason", "x")).refused("NOT_FOUND")
        (await ctl(env, "register", "no-such-tournament", "ann")).refused("NOT_FOUND")

        tournament = (await ctl(env, "create", str(toml), "--json")).json()["tournament"]
        (await ctl(env, "create", str(toml), "--id", tournament)).refused("FAILED_PRECONDITION")
        (await ctl(env, "start", tournament)).refused("FAILED_PRECONDITION")  # announced
        line = (await ctl(env, "register", tournament, "ann")).refused("FAILED_PRECONDITION")
        assert "ann: " in line  # which player was refused
        assert (await ctl(env, "open", tournament, "--json")).json()["state"] == "registering"
        (await ctl(env, "open", tournament)).refused("FAILED_PRECONDITION")
        (await ctl(env, "register", tournament, "ann")).refused("NOT_FOUND")  # no wallet
        await fund(env, "ann", "bob")
        done = await ctl(env, "register", tournament, "ann", "bob", "ann", "--json")
        assert [r["player"] for r in json.loads(done.out)["registered"]] == ["ann", "bob"]
        done.refused("FAILED_PRECONDITION")  # ann twice: those before her stay registered
        token = json.loads(done.out)["registered"][0]["token"]
        as_player = environment(server, tmp_path, MTT_OPERATOR_TOKEN=token)
        (await ctl(as_player, "show", tournament)).refused("PERMISSION_DENIED")
        (await ctl(env, "pause", tournament)).refused("FAILED_PRECONDITION")  # not running
        (await ctl(env, "cancel", tournament, "--reason", " ")).refused("INVALID_ARGUMENT")
        info = (await ctl(env, "show", tournament, "--json")).json()
        assert info["state"] == "registering" and info["players"] == ["ann", "bob"]

        # CRASH-1 by hand: cancelled in registration, every entry refunded; then it is over.
        cancelled = (await ctl(env, "cancel", tournament, "--reason", "no quorum", "--json")).json()
        assert cancelled["state"] == "cancelled"
        refunds = (await ctl(env, "watch", tournament, "--json")).out.splitlines()
        assert {json.loads(r)["player"] for r in refunds if '"refund"' in r} == {"ann", "bob"}
        (await ctl(env, "cancel", tournament, "--reason", "again")).refused("FAILED_PRECONDITION")
        (await ctl(env, "start", tournament)).refused("FAILED_PRECONDITION")

        line = (await ctl(env, "create", str(toml), "--id", "../etc")).refused("INVALID_ARGUMENT")
        assert "a tournament id is" in line  # the server's own words
        broken = tmp_path / "broken.toml"
        broken.write_text("[tournament\n")
        (await ctl(env, "create", str(broken))).refused("is not valid TOML")

    asyncio.run(scenario())


def test_ctl_watch_follows_live_and_ends_on_ctrl_c(
    server: Server,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A readable line per event as it happens; Ctrl-C (SIGINT) ends the watch with exit 130
    and no traceback, and the tournament plays on."""
    env = environment(server, tmp_path)
    toml = tmp_path / "ctl-watch.toml"
    toml.write_text(config("ctl-watch", starting_stack=1_000_000, action_seconds=5))

    async def scenario() -> None:
        tournament = (await ctl(env, "create", str(toml), "--json")).json()["tournament"]
        await ctl(env, "open", tournament)
        await ctl(env, "register", tournament, "absent1", "absent2")  # Out: check or fold
        assert (await ctl(env, "start", tournament, "--json")).json()["state"] == "running"
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "orchestrator.cli.main",
            "ctl",
            "watch",
            tournament,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        assert process.stdout is not None and process.stderr is not None
        lines = [await asyncio.wait_for(process.stdout.readline(), 60)]
        assert lines[0].split()[0] == b"1"  # the log from its start: seq type fields
        while b"hand_finished" not in lines[-1]:  # live: hands arrive while the watch runs
            lines.append(await asyncio.wait_for(process.stdout.readline(), 60))
        assert any(line.split()[1] == b"tournament_started" for line in lines)
        process.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(process.wait(), 30) == 130
        assert b"Traceback" not in await process.stderr.read()
        players = (await ctl(env, "players", tournament, "--json")).json()
        assert players["state"] == "running"
        assert {(p["connected"], p["out"], p["table"]) for p in players["players"]} == {
            (False, "not_connected", 1)  # OUT-2: never connected, yet seated and dealt in
        }
        await ctl(env, "cancel", tournament, "--reason", "watched enough")

    asyncio.run(scenario())
