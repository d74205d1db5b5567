"""`mtt ctl` without Ray: where the address and credential come from (flags, then the
environment, then the ctl config file), its one-line errors for bad files and an unreachable
front door, the status-to-error table, the readable event lines, and the commands that need
no table against the front door in-process (registration, a cancellation, TLS). Against a real
`mtt serve` with tournaments played: tests/test_ctl_ray.py."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from conftest import free_port
from test_frontdoor_tls import OPERATOR, certificate, server_on  # noqa: F401  (a fixture)

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from orchestrator.cli.ctl import DEFAULT_TARGET, _event_line, connection_settings
from orchestrator.cli.main import build_parser, main
from orchestrator.frontdoor import errors
from orchestrator.frontdoor.errors import InvalidRequest, from_status
from orchestrator.frontdoor.hub import PlayerHub, Presence
from orchestrator.frontdoor.server import TlsFiles

FLAG_CREDENTIAL = "credential-from-the-flag-file"
ENV_CREDENTIAL = "credential-from-the-environment"
FILE_CREDENTIAL = "credential-from-the-config-file"


def parsed(*words: str) -> argparse.Namespace:
    return build_parser().parse_args(["ctl", "list", *words])


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of its own, so a ctl config in the real one cannot leak in."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture
def ctl_config(tmp_path: Path) -> Path:
    """A ctl config naming a target, a credential file and a CA, relative to its folder."""
    folder = tmp_path / "conf"
    folder.mkdir()
    (folder / "operator.txt").write_text(FILE_CREDENTIAL + "\n")
    (folder / "ca.pem").write_bytes(b"CA FROM THE FILE")
    path = folder / "ctl.toml"
    path.write_text(
        'target = "file.example:1"\noperator_credential_file = "operator.txt"\ntls_ca = "ca.pem"\n'
    )
    return path


def test_flags_win_over_the_environment_and_the_config_file(
    tmp_path: Path, home: Path, ctl_config: Path
) -> None:
    (tmp_path / "flag.txt").write_text(FLAG_CREDENTIAL + "\nignored second line\n")
    (tmp_path / "flag-ca.pem").write_bytes(b"CA FROM THE FLAG")
    args = parsed(
        "--target",
        "flag.example:3",
        "--operator-credential-file",
        str(tmp_path / "flag.txt"),
        "--tls-ca",
        str(tmp_path / "flag-ca.pem"),
        "--ctl-config",
        str(ctl_config),
    )
    environ = {"MTT_TARGET": "env.example:2", "MTT_OPERATOR_TOKEN": ENV_CREDENTIAL}
    settings = connection_settings(args, environ)
    assert settings.target == "flag.example:3"
    assert settings.credential == FLAG_CREDENTIAL
    assert settings.tls_ca == b"CA FROM THE FLAG"


def test_the_environment_wins_over_the_config_file(
    tmp_path: Path, home: Path, ctl_config: Path
) -> None:
    (tmp_path / "env-ca.pem").write_bytes(b"CA FROM THE ENVIRONMENT")
    environ = {
        "MTT_TARGET": "env.example:2",
        "MTT_OPERATOR_TOKEN": ENV_CREDENTIAL,
        "MTT_TLS_CA": str(tmp_path / "env-ca.pem"),
        "MTT_CTL_CONFIG": str(ctl_config),  # the file is found through the environment too
    }
    settings = connection_settings(parsed(), environ)
    assert settings.target == "env.example:2"
    assert settings.credential == ENV_CREDENTIAL
    assert settings.tls_ca == b"CA FROM THE ENVIRONMENT"


def test_the_config_file_fills_in_what_flags_and_environment_leave_out(
    home: Path, ctl_config: Path
) -> None:
    settings = connection_settings(parsed("--ctl-config", str(ctl_config)), {})
    assert settings.target == "file.example:1"
    assert settings.credential == FILE_CREDENTIAL  # its path relative to the config's folder
    assert settings.tls_ca == b"CA FROM THE FILE"


def test_the_default_config_file_is_read_from_home(home: Path, ctl_config: Path) -> None:
    (home / ".config" / "mtt").mkdir(parents=True)
    ctl_config.rename(home / ".config" / "mtt" / "ctl.toml")
    (ctl_config.parent / "operator.txt").rename(home / ".config" / "mtt" / "operator.txt")
    (ctl_config.parent / "ca.pem").rename(home / ".config" / "mtt" / "ca.pem")
    settings = connection_settings(parsed(), {})
    assert (settings.target, settings.credential) == ("file.example:1", FILE_CREDENTIAL)


def test_without_a_config_file_the_target_is_mtt_serves_default(home: Path) -> None:
    settings = connection_settings(parsed(), {"MTT_OPERATOR_TOKEN": ENV_CREDENTIAL})
    assert settings == type(settings)(DEFAULT_TARGET, ENV_CREDENTIAL, None)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('target = "x:1"\npassword = "hunter2"\n', "unknown key password"),
        ("target = 50051\n", "target must be a non-empty string"),
        ("target = [\n", "not valid TOML"),
    ],
)
def test_a_bad_config_file_is_refused_naming_the_key(
    tmp_path: Path, home: Path, text: str, named: str
) -> None:
    path = tmp_path / "ctl.toml"
    path.write_text(text)
    with pytest.raises(InvalidRequest, match=named):
        connection_settings(parsed("--ctl-config", str(path)), {"MTT_OPERATOR_TOKEN": "x" * 20})


def test_a_named_config_file_must_exist_and_be_text(tmp_path: Path, home: Path) -> None:
    with pytest.raises(InvalidRequest, match="cannot read the ctl config"):
        connection_settings(parsed("--ctl-config", str(tmp_path / "nope.toml")), {})
    (tmp_path / "binary.toml").write_bytes(b"\xff\xfe")
    with pytest.raises(InvalidRequest, match="cannot read the ctl config"):
        connection_settings(parsed("--ctl-config", str(tmp_path / "binary.toml")), {})
    (tmp_path / "binary.txt").write_bytes(b"\xff\xfe" * 20)
    with pytest.raises(InvalidRequest, match="cannot read the operator credential"):
        connection_settings(parsed("--operator-credential-file", str(tmp_path / "binary.txt")), {})


def test_no_credential_anywhere_says_where_to_put_one(home: Path) -> None:
    with pytest.raises(InvalidRequest, match="--operator-credential-file FILE, set"):
        connection_settings(parsed(), {})


@pytest.mark.parametrize("target", ["127.0.0.1:99999", "localhost", ":50051", "host:0"])
def test_an_address_that_is_not_host_port_is_refused_naming_where_it_came_from(
    home: Path, target: str
) -> None:
    environ = {"MTT_OPERATOR_TOKEN": ENV_CREDENTIAL, "MTT_TARGET": target}
    with pytest.raises(InvalidRequest, match=r"address \(\$MTT_TARGET\) is HOST:PORT"):
        connection_settings(parsed(), environ)


def test_a_short_credential_is_refused_as_mtt_serve_refuses_it(home: Path) -> None:
    with pytest.raises(InvalidRequest, match="at least 16 characters"):
        connection_settings(parsed(), {"MTT_OPERATOR_TOKEN": "short"})


# --- one line on stderr, exit 2 ---------------------------------------------------------


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


def test_an_unreachable_server_is_one_line_and_exit_2(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MTT_OPERATOR_TOKEN", ENV_CREDENTIAL)
    target = f"127.0.0.1:{free_port()}"  # nothing listens there
    for verb in (["list"], ["show", "t1"], ["watch", "t1"], ["players", "t1", "--json"]):
        assert main(["ctl", *verb, "--target", target]) == 2
        line = one_line_error(capsys)
        assert line.startswith(f"mtt ctl {verb[0]}: UNAVAILABLE: failed to connect")
        assert line.endswith(f"(front door {target})")


def test_a_server_that_never_answers_is_a_deadline_in_one_line(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A socket that takes the connection and says nothing (a hung process, a wrong port):
    `--timeout` seconds, then one line saying what was asked may still happen."""
    monkeypatch.setenv("MTT_OPERATOR_TOKEN", ENV_CREDENTIAL)
    with socket.socket() as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen()
        target = f"127.0.0.1:{mute.getsockname()[1]}"
        assert main(["ctl", "start", "t1", "--target", target, "--timeout", "0.5"]) == 2
    line = one_line_error(capsys)
    assert line == (
        f"mtt ctl start: DEADLINE_EXCEEDED: no answer from the front door at {target} within "
        "0.5 s (what was asked may still happen)"
    )


def test_a_malformed_toml_is_refused_before_any_call(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The config is checked here first (orchestrator.core.config_toml), so the message names
    the file and the key even with no server to ask (this target has none)."""
    monkeypatch.setenv("MTT_OPERATOR_TOKEN", ENV_CREDENTIAL)
    target = ["--target", f"127.0.0.1:{free_port()}"]
    broken = tmp_path / "broken.toml"
    broken.write_text("[tournament\nname = 'x'\n")
    assert main(["ctl", "create", str(broken), *target]) == 2
    assert f"{broken} is not valid TOML" in one_line_error(capsys)
    typo = tmp_path / "typo.toml"
    typo.write_text('[tournament]\nname = "x"\nmax_per_tabel = 3\n')
    assert main(["ctl", "create", str(typo), *target]) == 2
    assert "unknown key max_per_tabel" in one_line_error(capsys)
    assert main(["ctl", "create", str(tmp_path / "missing.toml"), *target]) == 2
    assert "cannot read" in one_line_error(capsys)
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe[tournament]\n")
    assert main(["ctl", "create", str(binary), *target]) == 2
    assert f"cannot read {binary}" in one_line_error(capsys)


# --- the status table, presence, event lines ----------------------------------------------


@pytest.mark.parametrize(
    "kind",
    [
        errors.Unauthenticated,
        errors.PermissionDenied,
        errors.NotFound,
        errors.InvalidRequest,
        errors.WrongState,
        errors.RateLimited,
        errors.NotAvailable,
    ],
)
def test_every_refusal_comes_back_as_the_class_the_server_raised(
    kind: type[errors.FrontDoorError],
) -> None:
    error = from_status(kind.code, "what the server said")
    assert type(error) is kind
    assert str(error) == f"{kind.code.name}: what the server said"


def test_a_status_no_class_carries_is_a_plain_front_door_error() -> None:
    error = from_status(grpc.StatusCode.INTERNAL, "")
    assert type(error) is errors.FrontDoorError and str(error) == "INTERNAL"


def test_presence_follows_the_stream_and_out_states() -> None:
    """OUT-2 before connecting, in once connected, OUT-3 after the stream drops."""
    hub = PlayerHub(clock=lambda: 0.0)
    hub.add("t", "ann")
    assert hub.presence("t", "ann") == Presence(connected=False, out="not_connected", table=0)
    connection = hub.connect("t", "ann")
    assert hub.presence("t", "ann") == Presence(connected=True, out=None, table=0)
    hub.disconnect(connection)
    assert hub.presence("t", "ann") == Presence(connected=False, out="disconnected", table=0)
    assert hub.presence("t", "nobody").out == "not_connected"


def test_an_event_is_one_readable_line() -> None:
    hand = {
        "seq": 42,
        "ts": 1.5,
        "type": "hand_finished",
        "table": 2,
        "hand": 7,
        "button": 1,
        "players": [{"player": "a", "seat": 1, "start": 10, "end": 0}] * 3,
    }
    assert _event_line(hand) == "    42  hand_finished        table=2 hand=7 button=1 players=[3]"
    final = {"seq": 50, "ts": 2.0, "type": "final_table", "table": 1, "players": ["a", "b"]}
    assert _event_line(final) == "    50  final_table          table=1 players=a,b"


# --- against the front door in-process (no Ray: no tournament starts here) ------------------


@contextmanager
def front_door(folder: Path, tls: TlsFiles | None = None) -> Iterator[str]:
    """The front door's gRPC server (`test_frontdoor_tls.server_on`) on its own event loop in
    a thread, so the blocking `mtt ctl` calls of the test can reach it; its target."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    targets: list[str] = []

    def serve() -> None:
        asyncio.set_event_loop(loop)
        server = server_on(folder, tls)
        loop.run_until_complete(server.start())
        targets.append(server.target)
        started.set()
        loop.run_forever()
        loop.run_until_complete(server.stop(0))
        loop.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert started.wait(30), "the front door did not start"
    try:
        yield targets[0]
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)


def run_ctl(capsys: pytest.CaptureFixture[str], *words: str) -> tuple[int, str, str]:
    code = main(["ctl", *words])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_registration_and_a_cancellation_in_registration_through_ctl(
    tmp_path: Path,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """create, open, register (the tokens shown), players (registered, not connected: OUT-2),
    standings before the start (everyone the starting stack), list and show as tables, a
    player's token refused as the operator's, then CRASH-1: cancelled, every entry refunded."""
    toml = tmp_path / "club.toml"
    toml.write_text(
        '[tournament]\nname = "Club night"\nmax_per_table = 6\nstarting_stack = 5000\n'
        "time_bank_seconds = 30\n"
        'buy_in = 2000\nfee = 200\n[levels]\nunit = "hands"\nlength = 10\nblinds = [[25, 50, 0]]\n'
    )
    monkeypatch.setenv("MTT_OPERATOR_TOKEN", OPERATOR)
    with front_door(tmp_path) as target:
        monkeypatch.setenv("MTT_TARGET", target)
        code, out, err = run_ctl(capsys, "create", str(toml))
        assert code == 0, err
        assert ["tournament", "Club-night"] in [line.split() for line in out.splitlines()]
        assert run_ctl(capsys, "open", "Club-night")[0] == 0
        code, _, err = run_ctl(capsys, "register", "Club-night", "ann")  # no wallet yet
        assert code == 2 and err.startswith("mtt ctl register: ann: NOT_FOUND: no account")
        code, out, _ = run_ctl(capsys, "open-account", "ann", "--balance", "5000", "--json")
        opened = json.loads(out)
        assert code == 0 and opened["balance"] == 5000 and len(opened["credential"]) >= 32
        code, out, _ = run_ctl(capsys, "open-account", "bob", "--balance", "2200")
        assert out.splitlines()[2].split()[:2] == ["bob", "22.00"]
        code, _, err = run_ctl(capsys, "open-account", "bob", "--balance", "1")
        assert code == 2 and "FAILED_PRECONDITION" in err  # his wallet stays as it was
        code, out, _ = run_ctl(capsys, "register", "Club-night", "ann", "bob")
        lines = out.splitlines()
        assert code == 0 and lines[0].split() == ["player", "token"]
        tokens = dict(line.split() for line in lines[2:])
        assert sorted(tokens) == ["ann", "bob"] and len(set(tokens.values())) == 2

        code, out, _ = run_ctl(capsys, "players", "Club-night", "--json")
        players = json.loads(out)
        assert code == 0 and players["state"] == "registering"
        assert {tuple(sorted(p)) for p in players["players"]} == {
            (
                "bounties_won",
                "bounty",
                "connected",
                "entries",
                "out",
                "place",
                "player",
                "prize",
                "rebuys",
                "stack",
                "table",
                "time_bank_seconds",
            )
        }  # no token, no card
        assert [
            (p["player"], p["connected"], p["out"], p["stack"], p["time_bank_seconds"])
            for p in players["players"]
        ] == [
            ("ann", False, "not_connected", 5000, 30.0),  # TB-1: a full bank before the start
            ("bob", False, "not_connected", 5000, 30.0),
        ]
        code, out, _ = run_ctl(capsys, "players", "Club-night")
        assert out.splitlines()[1].split()[5] == "bank" and "30s" in out.splitlines()[3].split()
        code, out, _ = run_ctl(capsys, "standings", "Club-night")
        assert out.splitlines()[0] == "Club-night: registering, 2 left, 0 hands"
        code, out, _ = run_ctl(capsys, "list")
        assert out.splitlines()[2].split() == [
            "Club-night", "Club", "night", "registering", "2", "0", "40.00"
        ]  # fmt: skip
        code, out, _ = run_ctl(capsys, "show", "Club-night")
        assert ["players", "2:", "ann,", "bob"] in [line.split() for line in out.splitlines()]

        code, _, err = run_ctl(capsys, "register", "Club-night", "../etc")
        assert code == 2 and err.startswith("mtt ctl register: ../etc: INVALID_ARGUMENT: a player")
        huge = tmp_path / "huge.toml"  # valid TOML, over the server's 80 KiB message limit
        huge.write_text(toml.read_text() + ("# " + "x" * 98 + "\n") * 1000)
        code, _, err = run_ctl(capsys, "create", str(huge))
        assert (
            code == 2
            and err.startswith("mtt ctl create: RESOURCE_EXHAUSTED")
            and err.count("\n") == 1
        )

        async def without_credential() -> grpc.StatusCode:
            async with grpc.aio.insecure_channel(target) as channel:
                call = pb_grpc.OperatorServiceStub(channel).ListPlayers(
                    pb.TournamentRef(tournament_id="Club-night")
                )
                try:
                    await call
                except grpc.aio.AioRpcError as exc:
                    return exc.code()
                return grpc.StatusCode.OK

        assert asyncio.run(without_credential()) == grpc.StatusCode.UNAUTHENTICATED

        monkeypatch.setenv("MTT_OPERATOR_TOKEN", tokens["ann"])
        code, _, err = run_ctl(capsys, "players", "Club-night")
        assert code == 2 and err.startswith("mtt ctl players: PERMISSION_DENIED: operators only")
        monkeypatch.setenv("MTT_OPERATOR_TOKEN", OPERATOR)

        # DEAL-1: a deal only in a running tournament; a bad kind is refused before any call
        code, _, err = run_ctl(capsys, "deal", "Club-night", "--kind", "icm")
        assert code == 2 and err.startswith("mtt ctl deal: FAILED_PRECONDITION: a deal is made")
        with pytest.raises(SystemExit) as exit_code:
            main(["ctl", "deal", "Club-night", "--kind", "half"])
        assert exit_code.value.code == 2 and "invalid choice: 'half'" in capsys.readouterr().err
        code, out, _ = run_ctl(capsys, "show", "Club-night", "--json")
        shown = json.loads(out)
        assert shown["deal"] is None and shown["registration_open"] is True
        assert shown["structure"] == "freezeout"

        code, out, _ = run_ctl(capsys, "cancel", "Club-night", "--reason", "rain", "--json")
        assert code == 0 and json.loads(out)["state"] == "cancelled"
        code, out, _ = run_ctl(capsys, "watch", "Club-night", "--json")
        records = [json.loads(line) for line in out.splitlines()]
        assert code == 0 and [r["seq"] for r in records] == list(range(1, len(records) + 1))
        refunds = {(r["player"], r["amount"]) for r in records if r["type"] == "refund"}
        assert refunds == {("ann", 2200), ("bob", 2200)}  # CRASH-1: fee and commission
        code, out, _ = run_ctl(capsys, "account", "bob", "--json")
        assert json.loads(out) == {"account": "bob", "balance": 2200, "tickets": {}}  # back
        code, _, err = run_ctl(capsys, "cancel", "Club-night", "--reason", "again")
        assert code == 2 and "FAILED_PRECONDITION" in err and len(err.splitlines()) == 1


def test_ctl_speaks_tls_with_the_servers_ca_only(
    tmp_path: Path,
    home: Path,
    certificate: TlsFiles,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MTT_OPERATOR_TOKEN", OPERATOR)
    (tmp_path / "ca.pem").write_bytes(certificate.certificate)
    with front_door(tmp_path, certificate) as target:
        code, out, _ = run_ctl(
            capsys, "list", "--json", "--target", target, "--tls-ca", str(tmp_path / "ca.pem")
        )
        assert code == 0 and json.loads(out) == {"tournaments": []}
        code, _, err = run_ctl(capsys, "list", "--target", target)  # plain: no answer
        assert code == 2 and err.startswith("mtt ctl list: UNAVAILABLE: ")


def test_a_watch_whose_reader_went_away_ends_quietly(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`mtt ctl watch ID | head -1`: the pipe closes before the events come; the watch ends
    with exit 0 and no BrokenPipeError traceback."""
    toml = tmp_path / "piped.toml"
    toml.write_text(
        '[tournament]\nname = "piped"\nbuy_in = 100\n'
        '[levels]\nunit = "hands"\nlength = 10\nblinds = [[25, 50, 0]]\n'
    )
    monkeypatch.setenv("MTT_OPERATOR_TOKEN", OPERATOR)
    with front_door(tmp_path) as target:
        monkeypatch.setenv("MTT_TARGET", target)
        for words in (
            ["create", str(toml)],
            ["open", "piped"],
            ["open-account", "a", "--balance", "100"],
            ["open-account", "b", "--balance", "100"],
            ["register", "piped", "a", "b"],
        ):
            assert run_ctl(capsys, *words)[0] == 0
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        command = [sys.executable, "-m", "orchestrator.cli.main", "ctl", "watch", "piped"]
        with subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        ) as watch:
            assert watch.stdout is not None and watch.stderr is not None
            watch.stdout.close()  # the reader is gone before anything was written
            assert run_ctl(capsys, "cancel", "piped", "--reason", "piped")[0] == 0  # refunds
            assert watch.wait(timeout=60) == 0
            assert b"Traceback" not in watch.stderr.read()
