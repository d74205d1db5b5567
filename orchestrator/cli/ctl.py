"""`mtt ctl`: an operator's commands against a running `mtt serve`, over its gRPC
OperatorService (`orchestrator.frontdoor.client`).

Where the front door is and who is asking, each from the first of: the command's flags, the
environment, the ctl config file (TOML; `--ctl-config FILE`, else `$MTT_CTL_CONFIG`, else
`~/.config/mtt/ctl.toml` if it exists):

    address     --target HOST:PORT           $MTT_TARGET          target = "HOST:PORT"
    credential  --operator-credential-file F $MTT_OPERATOR_TOKEN  operator_credential_file = "F"
    TLS         --tls-ca FILE                $MTT_TLS_CA          tls_ca = "FILE"

The address defaults to `mtt serve`'s own (127.0.0.1:50051); paths in the config file are
relative to its folder; a credential file holds the credential on its first line, as
`mtt serve --operator-credential-file` reads it. Every command prints a table for a person, or
with `--json` one JSON document (`watch`: one JSON object per line, the events.jsonl records).
A refusal (a wrong credential, an unknown tournament, an illegal state change), an unreachable
server or a bad file is the front door's error family or the package's, which
`orchestrator.cli.main` prints as one line on stderr with exit 2.

The front door's modules are imported inside the functions: `mtt` loads this module for every
command, and the others need no gRPC (`orchestrator.cli.main.user_errors`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.cli.args import non_negative_int, positive_float, print_figures
from orchestrator.competition.swiss.render import text_table
from orchestrator.core.deals import DealKind
from orchestrator.views.amounts import money

if TYPE_CHECKING:
    from orchestrator._proto import frontdoor_pb2 as pb
    from orchestrator.frontdoor.client import OperatorClient

__all__ = ["CtlSettings", "check_target", "connection_settings", "register"]

TARGET_ENV = "MTT_TARGET"
TLS_CA_ENV = "MTT_TLS_CA"
CTL_CONFIG_ENV = "MTT_CTL_CONFIG"
DEFAULT_CTL_CONFIG = "~/.config/mtt/ctl.toml"
DEFAULT_TARGET = "127.0.0.1:50051"  # `mtt serve`'s default
CTL_CONFIG_KEYS = ("target", "operator_credential_file", "tls_ca")
# A call's deadline: a start waits for Ray to start every table (DESIGN.md: 100 take ~30 s).
DEFAULT_TIMEOUT_SECONDS = 120.0
DEAL_KINDS = tuple(kind.value for kind in DealKind)  # DEAL-2

Handler = Callable[[argparse.Namespace, "OperatorClient"], None]


# --- where the front door is, and the credential ------------------------------------------


@dataclass(frozen=True, slots=True)
class CtlSettings:
    target: str
    credential: str
    tls_ca: bytes | None  # PEM: the server's CA, for TLS; None: plain


def connection_settings(args: argparse.Namespace, environ: Mapping[str, str]) -> CtlSettings:
    """The address, credential and TLS CA: flags, then the environment, then the ctl config
    file (the module docstring's table). InvalidRequest names what is missing or unreadable."""
    from orchestrator.frontdoor.auth import OPERATOR_ENV, load_operator_credential
    from orchestrator.frontdoor.errors import InvalidRequest

    file = _ctl_config(args.ctl_config, environ)
    given = (
        ("--target", args.target),
        (f"${TARGET_ENV}", environ.get(TARGET_ENV, "").strip()),
        ("target in the ctl config", file.get("target")),
    )
    source, target = next(((s, t) for s, t in given if t), ("", DEFAULT_TARGET))
    check_target(target, source)
    if args.operator_credential_file is not None:
        credential = load_operator_credential(args.operator_credential_file, {})
    elif environ.get(OPERATOR_ENV, "").strip():
        credential = load_operator_credential(None, environ)
    elif "operator_credential_file" in file:
        credential = load_operator_credential(file["operator_credential_file"], {})
    else:
        raise InvalidRequest(
            "no operator credential: pass --operator-credential-file FILE, set "
            f"${OPERATOR_ENV}, or put operator_credential_file in the ctl config "
            f"({DEFAULT_CTL_CONFIG} or --ctl-config FILE)"
        )
    ca_file = args.tls_ca or environ.get(TLS_CA_ENV, "").strip() or file.get("tls_ca")
    tls_ca = None
    if ca_file:
        try:
            tls_ca = Path(ca_file).read_bytes()
        except OSError as exc:
            raise InvalidRequest(f"cannot read the TLS CA {ca_file}: {exc.strerror}") from exc
    return CtlSettings(target, credential, tls_ca)


def check_target(target: str, source: str) -> None:
    """HOST:PORT with a port 1..65535 (grpc would wrap 99999 round to another port)."""
    from orchestrator.frontdoor.errors import InvalidRequest

    host, _, port = target.rpartition(":")
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise InvalidRequest(f"the front door's address ({source}) is HOST:PORT, not {target!r}")


def _ctl_config(flag: str | None, environ: Mapping[str, str]) -> dict[str, str]:
    """The ctl config file's settings, its paths taken from its own folder; {} when none was
    named and the default file does not exist."""
    from orchestrator.frontdoor.errors import InvalidRequest

    named = flag or environ.get(CTL_CONFIG_ENV, "").strip()
    path = Path(named or DEFAULT_CTL_CONFIG).expanduser()
    if not named and not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidRequest(f"cannot read the ctl config {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise InvalidRequest(f"the ctl config {path} is not valid TOML: {exc}") from exc
    unknown = sorted(set(data) - set(CTL_CONFIG_KEYS))
    if unknown:
        raise InvalidRequest(
            f"the ctl config {path}: unknown key {', '.join(unknown)} "
            f"(known: {', '.join(CTL_CONFIG_KEYS)})"
        )
    settings = {}
    for key, value in data.items():
        if not isinstance(value, str) or not value.strip():
            raise InvalidRequest(f"the ctl config {path}: {key} must be a non-empty string")
        settings[key] = value.strip()
        if key != "target":
            settings[key] = str(path.parent / Path(value.strip()).expanduser())
    return settings


# --- the commands -------------------------------------------------------------------------


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ctl = commands.add_parser(
        "ctl",
        help="an operator's commands against a running `mtt serve`",
        description="Create, open, register, start, pause, resume, cancel and watch the "
        "tournaments of a running `mtt serve`. The address, operator credential and TLS CA "
        "come from the flags, else $MTT_TARGET, $MTT_OPERATOR_TOKEN and $MTT_TLS_CA, else the "
        f"ctl config file (--ctl-config, $MTT_CTL_CONFIG or {DEFAULT_CTL_CONFIG}: keys "
        f"{', '.join(CTL_CONFIG_KEYS)}). Exit 0 done, 2 refused or unreachable (one line on "
        "stderr), 130 on Ctrl-C.",
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--target", metavar="HOST:PORT", help=f"the front door (default {DEFAULT_TARGET})"
    )
    common.add_argument(
        "--operator-credential-file", metavar="FILE", help="its first line is the credential"
    )
    common.add_argument("--tls-ca", metavar="FILE", help="PEM CA of a TLS front door")
    common.add_argument("--ctl-config", metavar="FILE", help="the ctl config file (TOML)")
    common.add_argument(
        "--timeout",
        type=positive_float,
        default=DEFAULT_TIMEOUT_SECONDS,
        metavar="SECONDS",
        help="wait this long for an answer (%(default)g; not for watch)",
    )
    common.add_argument("--json", action="store_true", help="one JSON document")
    verbs = ctl.add_subparsers(dest="verb", required=True, metavar="VERB")

    def verb(
        name: str, handler: Handler, help: str, *, of_one: bool = True
    ) -> argparse.ArgumentParser:
        """A command; `of_one`: it names one tournament (`ID`)."""
        parser = verbs.add_parser(name, parents=[common], help=help, description=help)
        if of_one:
            parser.add_argument("tournament", metavar="ID", help="the tournament's id")
        parser.set_defaults(handler=lambda args: _connected(args, handler))
        return parser

    create = verb(
        "create", _create, "create a tournament from its TOML config (announced)", of_one=False
    )
    create.add_argument("config", type=Path, metavar="CONFIG.toml")
    create.add_argument("--id", default="", help="its id (default: from its name, unique)")
    verb("list", _list, "every tournament of the front door", of_one=False)
    verb("show", _show, "one tournament")
    verb("open", _open, "open registration (REG-1)")
    reg = verb("register", _register, "register players on their behalf (REG-1)")
    reg.add_argument("players", nargs="+", metavar="PLAYER")
    reg.add_argument(
        "--ticket",
        action="store_true",
        help="SAT-3: each entry paid by the player's satellite ticket to this tournament",
    )
    verb("start", _start, "seat the registered players and deal (OUT-2)")
    verb("pause", _pause, "every table stops at its next boundary")
    verb("resume", _resume, "deal again, together (START-1)")
    cancel = verb("cancel", _cancel, "cancel: refunds (CRASH-1) or roll forward (CRASH-2)")
    cancel.add_argument("--reason", required=True, help="why (logged)")
    verb("standings", _standings, "stacks of those still in, then places and prizes")
    watch = verb("watch", _watch, "follow the events live until the end or Ctrl-C")
    watch.add_argument(
        "--after", type=non_negative_int, default=0, metavar="SEQ", help="from after SEQ (0)"
    )
    verb("players", _players, "every player: connected, Out and why, table, stack, time bank")
    wallet = verb(
        "open-account",
        _open_account,
        "open a player's wallet with a balance; shows its credential (once)",
        of_one=False,
    )
    wallet.add_argument("account", metavar="PLAYER")
    wallet.add_argument(
        "--balance", type=non_negative_int, required=True, metavar="CENTS", help="in cents"
    )
    verb(
        "account",
        _account,
        "a player's wallet: its balance and satellite tickets (SAT-3)",
        of_one=False,
    ).add_argument("account", metavar="PLAYER")
    deal = verb("deal", _deal, "propose a deal at the final table; every player answers (DEAL-1)")
    deal.add_argument("--kind", required=True, choices=DEAL_KINDS, help="how it shares (DEAL-2)")
    deal.add_argument(
        "--leave",
        type=non_negative_int,
        default=0,
        metavar="CENTS",
        help="left to play for, with the title (0: the deal ends the tournament)",
    )


def _connected(args: argparse.Namespace, handler: Handler) -> int:
    from orchestrator.frontdoor.client import OperatorClient

    settings = connection_settings(args, os.environ)
    with OperatorClient(
        settings.target, settings.credential, tls_ca=settings.tls_ca, timeout=args.timeout
    ) as client:
        try:
            handler(args, client)
        except BrokenPipeError:  # the reader went away (`mtt ctl watch ID | head`): done
            # Python's advice: stdout to /dev/null, so the flush at exit does not fail too.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _create(args: argparse.Namespace, client: OperatorClient) -> None:
    from orchestrator.core.config_toml import config_from_text
    from orchestrator.errors import ConfigError

    try:
        text = args.config.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {args.config}: {exc}") from exc
    config_from_text(text, source=str(args.config))  # names the file and the key, before a call
    _print_info(client.create(text, args.id), args)


def _list(args: argparse.Namespace, client: OperatorClient) -> None:
    tournaments = [_info(t) for t in client.tournaments()]
    if args.json:
        print(json.dumps({"tournaments": tournaments}))
        return
    columns = ("tournament", "name", "state", "players", "connected", "prize pool")
    rows = [
        (t["tournament"], t["name"], t["state"], len(t["players"]), t["connected"], t["prize"])
        for t in (t | {"prize": money(t["prize_pool"])} for t in tournaments)
    ]
    _print_table(columns, rows)


def _show(args: argparse.Namespace, client: OperatorClient) -> None:
    _print_info(client.tournament(args.tournament), args)


def _open(args: argparse.Namespace, client: OperatorClient) -> None:
    _print_info(client.open_registration(args.tournament), args)


def _register(args: argparse.Namespace, client: OperatorClient) -> None:
    """Each player in turn; a refusal stops there, after showing those registered so far
    (their tokens are theirs: the operator hands them over)."""
    from orchestrator.frontdoor.errors import FrontDoorError

    done: list[dict[str, str]] = []
    try:
        for player in args.players:
            try:
                reply = client.register(args.tournament, player, ticket=args.ticket)
            except FrontDoorError as exc:
                raise type(exc)(f"{player}: {exc}") from exc
            done.append({"player": reply.player, "token": reply.token})
    finally:
        if args.json:
            print(json.dumps({"tournament": args.tournament, "registered": done}))
        elif done:
            _print_table(("player", "token"), [(d["player"], d["token"]) for d in done])


def _open_account(args: argparse.Namespace, client: OperatorClient) -> None:
    reply = client.create_account(args.account, args.balance)
    if args.json:
        fields = {"account": reply.account, "balance": reply.balance}
        print(json.dumps(fields | {"credential": reply.credential}))
        return
    _print_table(
        ("account", "balance", "credential"),
        [(reply.account, money(reply.balance), reply.credential)],
    )


def _account(args: argparse.Namespace, client: OperatorClient) -> None:
    reply = client.account(args.account)
    tickets = {t.target: t.value for t in reply.tickets}  # SAT-3: 0 once spent
    if args.json:
        print(json.dumps({"account": reply.account, "balance": reply.balance, "tickets": tickets}))
        return
    _print_table(("account", "balance"), [(reply.account, money(reply.balance))])
    if tickets:
        print()
        _print_table(
            ("ticket to", "value"),
            [(target, money(value) if value else "spent") for target, value in tickets.items()],
        )


def _start(args: argparse.Namespace, client: OperatorClient) -> None:
    _print_info(client.start(args.tournament), args)


def _pause(args: argparse.Namespace, client: OperatorClient) -> None:
    _print_info(client.pause(args.tournament), args)


def _resume(args: argparse.Namespace, client: OperatorClient) -> None:
    _print_info(client.resume(args.tournament), args)


def _cancel(args: argparse.Namespace, client: OperatorClient) -> None:
    _print_info(client.cancel(args.tournament, args.reason), args)


def _standings(args: argparse.Namespace, client: OperatorClient) -> None:
    reply = client.standings(args.tournament)
    rows = [
        {"player": s.player, "stack": s.stack, "place": s.place, "prize": s.prize}
        for s in reply.standings
    ]
    if args.json:
        document = {
            "tournament": reply.tournament_id,
            "state": reply.state,
            "players_left": reply.players_left,
            "hands": reply.hands,
            "standings": rows,
        }
        print(json.dumps(document))
        return
    print(f"{reply.tournament_id}: {reply.state}, {reply.players_left} left, {reply.hands} hands")
    _print_table(
        ("place", "player", "stack", "prize"),
        [(s.place or "-", s.player, s.stack, money(s.prize)) for s in reply.standings],
    )


def _players(args: argparse.Namespace, client: OperatorClient) -> None:
    reply = client.players(args.tournament)
    rows = [
        {
            "player": p.player,
            "connected": p.connected,
            "out": p.out or None,
            "table": p.table,
            "stack": p.stack,
            "place": p.place,
            "prize": p.prize,
            "time_bank_seconds": p.time_bank_seconds,  # TB-1: what is left of it
            "bounty": p.bounty,  # KO-1, KO-2: on his head now
            "bounties_won": p.bounties_won,  # KO-3
            "rebuys": p.rebuys,  # RB-3
            "entries": p.entries,
        }
        for p in reply.players
    ]
    if args.json:
        print(
            json.dumps({"tournament": reply.tournament_id, "state": reply.state, "players": rows})
        )
        return
    print(f"{reply.tournament_id}: {reply.state}, {len(rows)} players")
    _print_table(
        ("player", "connected", "out", "table", "stack", "bank", "place", "prize"),
        [
            (
                p.player,
                "yes" if p.connected else "no",
                p.out or "-",
                p.table or "-",
                p.stack,
                f"{p.time_bank_seconds:.0f}s",
                p.place or "-",
                money(p.prize),
            )
            for p in reply.players
        ],
    )


def _deal(args: argparse.Namespace, client: OperatorClient) -> None:
    """The proposal as the players see it; their answers and the outcome follow in `show`
    (and `watch`: `deal_answered`, `deal_paid`)."""
    _print_info(client.propose_deal(args.tournament, args.kind, args.leave), args)


def _watch(args: argparse.Namespace, client: OperatorClient) -> None:
    """Every record as it comes (flushed: a pipe sees it at once), until the server ends the
    stream with the tournament; Ctrl-C ends it earlier (exit 130, `orchestrator.cli.main`)."""
    for record in client.watch(args.tournament, args.after):
        print(record.json if args.json else _event_line(json.loads(record.json)), flush=True)


# --- output -------------------------------------------------------------------------------


def _info(info: pb.TournamentInfo) -> dict[str, Any]:
    return {
        "tournament": info.tournament_id,
        "name": info.name,
        "state": info.state,
        "players": list(info.players),
        "connected": info.connected,
        "action_seconds": info.action_seconds,
        "prize_pool": info.prize_pool,
        "structure": info.structure,
        "registration_open": info.registration_open,
        "bounty": info.bounty,  # KO-1
        "bounty_kind": info.bounty_kind,
        "guarantee": info.guarantee,  # GTD-1
        "deal": _deal_of(info.deal) if info.HasField("deal") else None,
    }


def _deal_of(deal: pb.DealStatus) -> dict[str, Any]:
    return {
        "kind": deal.kind,
        "state": deal.state,
        "left": deal.left,
        "shares": [
            {"player": s.player, "chips": s.chips, "amount": s.amount, "answer": s.answer or None}
            for s in deal.shares
        ],
    }


def _print_info(info: pb.TournamentInfo, args: argparse.Namespace) -> None:
    figures = _info(info)
    if not args.json:
        players = figures["players"]
        figures |= {
            "players": f"{len(players)}{': ' if players else ''}{', '.join(players)}",
            "action_seconds": f"{info.action_seconds:g}",
            "prize_pool": money(info.prize_pool),
            "bounty": money(info.bounty),
            "guarantee": money(info.guarantee),
            "deal": _deal_line(info.deal) if info.HasField("deal") else "-",
        }
    print_figures(figures, as_json=args.json)


def _deal_line(deal: pb.DealStatus) -> str:
    """`icm proposed: ann 700.00 (accepted), bob 300.00 (waiting)`, and what is left."""
    shares = ", ".join(
        f"{share.player} {money(share.amount)} ({share.answer or 'waiting'})"
        for share in deal.shares
    )
    left = f"; {money(deal.left)} left to play for" if deal.left else ""
    return f"{deal.kind} {deal.state}: {shares}{left}"


def _event_line(record: Mapping[str, Any]) -> str:
    """`seq type field=value ...`: lists of records shown by their length, so a hand with
    ten seats stays one readable line."""
    fields = " ".join(
        f"{key}={_short(value)}"
        for key, value in record.items()
        if key not in ("seq", "ts", "type")
    )
    return f"{record['seq']:>6}  {record['type']:<20} {fields}".rstrip()


def _short(value: object) -> str:
    if isinstance(value, list):
        if all(isinstance(v, str | int) for v in value):
            return ",".join(map(str, value))
        return f"[{len(value)}]"
    if isinstance(value, dict):
        return f"{{{len(value)}}}"
    return str(value)


def _print_table(columns: Iterable[str], rows: Iterable[Iterable[object]]) -> None:
    print(text_table(tuple(columns), [tuple(map(str, row)) for row in rows]))
