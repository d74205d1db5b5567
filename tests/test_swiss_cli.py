"""`mtt swiss ...` and `mtt league ...` through `orchestrator.cli.main.main` on temporary files:
the organiser's flow, the three output formats, and refusals that leave the state unchanged."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from orchestrator.cli.main import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture
def event(tmp_path: Path) -> Path:
    """A fresh event from the example files; returns the state path."""
    state = tmp_path / "state.json"
    code = main(
        [
            "swiss",
            "new",
            str(EXAMPLES / "swiss" / "event.json"),
            "--players",
            str(EXAMPLES / "swiss" / "players.txt"),
            "--state",
            str(state),
        ]
    )
    assert code == 0
    return state


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_cli_new_pair_report_standings(event: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code, out, _ = run(capsys, "swiss", "pair", "--state", str(event), "--json")
    assert code == 0
    pairings = json.loads(out)
    assert pairings["round"] == 1 and len(pairings["rows"]) == 5  # 9 players: 4 tables + bye
    assert any(n.startswith("bye:") for n in pairings["notes"])
    assert any(n.startswith("deck check (SW-6)") for n in pairings["notes"])
    results = write(
        event.parent / "r1.json",
        {
            "results": [
                {"table": 1, "games": "2-1"},
                {"table": 2, "games": [0, 2]},
                {"table": 3, "games": "1-1-1"},
                {"table": 4, "intentional_draw": True},
            ]
        },
    )
    code, out, err = run(capsys, "swiss", "report", "1", str(results), "--state", str(event))
    assert code == 0, err
    assert "ID" in out and "1-1-1" in out
    code, out, _ = run(capsys, "swiss", "standings", "--state", str(event), "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 9 and rows[0]["rank"] == "1" and rows[0]["points"] == "3"
    assert set(rows[0]) >= {"omw", "gw", "ogw", "buchholz", "byes", "status"}
    code, out, _ = run(capsys, "swiss", "standings", "--state", str(event))
    assert out.splitlines()[0].endswith("standings after 1 of 4 Swiss rounds")


def test_cli_refusals_change_nothing(event: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["swiss", "pair", "--state", str(event)]) == 0
    before = event.read_bytes()
    bad = [
        {"results": [{"table": 1, "games": "3-0"}]},
        {"results": [{"table": 1, "games": "2-2"}]},
        {"results": [{"table": 1, "games": "2-0", "colour": "red"}]},
        {"results": [{"table": 42, "games": "2-0"}]},
        {"results": [{"table": 1, "games": "2-0"}, {"table": 1, "games": "0-2"}]},
        {"results": [{"table": 1, "games": "2-0", "players": ["Nobody", "Else"]}]},
        {"results": [{"table": 1, "intentional_draw": True, "games": "1-0"}]},
        {"result": []},
    ]
    for k, data in enumerate(bad):
        path = write(event.parent / f"bad{k}.json", data)
        code, _, err = run(capsys, "swiss", "report", "1", str(path), "--state", str(event))
        assert code == 1 and err.startswith("mtt swiss: error:"), data
        assert event.read_bytes() == before
    for argv in (
        ["swiss", "pair"],  # round 1 not reported
        ["swiss", "drop", "Nobody"],
        ["swiss", "cut"],
        ["swiss", "warn", "Nobody", "--judge", "J", "--reason", "r"],
        ["swiss", "report", "7", str(event)],
    ):
        code, _, err = run(capsys, *argv, "--state", str(event))
        assert code == 1 and "error" in err, argv
        assert event.read_bytes() == before
    assert not list(event.parent.glob(".state.json.*.tmp"))


def test_cli_new_refuses_bad_inputs_and_overwrite(
    tmp_path: Path, event: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    players = tmp_path / "p.txt"
    players.write_text("a\nb\na\n", encoding="utf-8")
    good_event = EXAMPLES / "swiss" / "event.json"
    code, _, err = run(
        capsys,
        "swiss",
        "new",
        str(good_event),
        "--players",
        str(players),
        "--state",
        str(tmp_path / "x.json"),
    )
    assert code == 1 and "listed twice" in err
    bad_event = write(tmp_path / "e.json", {"name": "x", "seed": 1, "rounds": 9})
    players.write_text("a\nb\n", encoding="utf-8")
    code, _, err = run(
        capsys,
        "swiss",
        "new",
        str(bad_event),
        "--players",
        str(players),
        "--state",
        str(tmp_path / "x.json"),
    )
    assert code == 1 and "unknown key(s) rounds" in err
    assert not (tmp_path / "x.json").exists()
    code, _, err = run(
        capsys, "swiss", "new", str(good_event), "--players", str(players), "--state", str(event)
    )
    assert code == 1 and "--force" in err


def test_cli_full_event_played_as_poker_to_a_bracket(
    event: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = ["--state", str(event)]
    for _ in range(4):
        assert main(["swiss", "pair", *state]) == 0
        assert main(["swiss", "play", *state]) == 0
    capsys.readouterr()
    code, _, err = run(capsys, "swiss", "pair", *state)
    assert code == 1 and "start the top cut" in err
    assert main(["swiss", "cut", *state]) == 0  # semifinals of a top 4 (SW-1: 9 players)
    assert main(["swiss", "play", *state]) == 0
    assert main(["swiss", "cut", *state]) == 0  # final and third place (SW-4)
    assert main(["swiss", "play", *state]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "swiss", "bracket", *state, "--json")
    bracket = json.loads(out)
    assert [p["place"] for p in bracket["places"]] == [1, 2, 3, 4]
    assert [r["match"] for r in bracket["rows"]] == [
        "semifinal",
        "semifinal",
        "final",
        "third place",
    ]
    assert all(r["chooses"] == r["player_a"] for r in bracket["rows"])  # SW-5 better seed
    code, _, err = run(capsys, "swiss", "cut", *state)
    assert code == 1 and "over" in err


def test_cli_same_seed_same_pairings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outs = []
    for name in ("one.json", "two.json"):
        state = str(tmp_path / name)
        main(
            [
                "swiss",
                "new",
                str(EXAMPLES / "swiss" / "event.json"),
                "--players",
                str(EXAMPLES / "swiss" / "players.txt"),
                "--state",
                state,
            ]
        )
        capsys.readouterr()
        _, out, _ = run(capsys, "swiss", "pair", "--state", state, "--csv")
        outs.append(out)
    assert outs[0] == outs[1]


def test_cli_san1_three_warnings_disqualify(
    event: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = ["--state", str(event)]
    for k in range(3):
        code, out, _ = run(
            capsys,
            "swiss",
            "warn",
            "Caio",
            "--judge",
            "Mario",
            "--reason",
            f"slow play {k}",
            "--at",
            "2012-03-01T15:00:00",
            *state,
        )
        assert code == 0
    assert "disqualified (SAN-1" in out
    _, out, _ = run(capsys, "swiss", "sanctions", *state, "--json")
    rows = json.loads(out)["rows"]
    assert [r["kind"] for r in rows] == ["warning"] * 3 + ["disqualification"]
    assert rows[0] == {
        "at": "2012-03-01T15:00:00",
        "round": 0,
        "player": "Caio",
        "kind": "warning",
        "judge": "Mario",
        "reason": "slow play 0",
    }
    _, out, _ = run(capsys, "swiss", "pair", *state, "--json")
    assert all("Caio" not in (r["player_a"], r["player_b"]) for r in json.loads(out)["rows"])


def test_cli_choice_rule_and_late_entry_and_drop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event_file = write(
        tmp_path / "e.json",
        {"name": "choice", "seed": 3, "cut_rule": "choice", "deck_checks": False},
    )
    players = tmp_path / "p.txt"
    players.write_text("\n".join(f"p{k}" for k in range(1, 14)) + "\n", encoding="utf-8")
    state = ["--state", str(tmp_path / "s.json")]
    assert main(["swiss", "new", str(event_file), "--players", str(players), *state]) == 0
    assert main(["swiss", "pair", *state]) == 0
    assert main(["swiss", "enter", "late", *state]) == 0
    assert main(["swiss", "play", *state]) == 0
    assert main(["swiss", "drop", "p1", *state]) == 0
    for _ in range(3):
        assert main(["swiss", "pair", *state]) == 0
        assert main(["swiss", "play", *state]) == 0
    capsys.readouterr()
    code, out, err = run(
        capsys, "swiss", "cut", "--choice", "1=5", "--choice", "2=8", *state, "--json"
    )
    assert code == 0, err
    rows = {r["table"]: r for r in json.loads(out)["rows"]}
    _, standings_out, _ = run(capsys, "swiss", "bracket", *state, "--json")
    seeds = {r["player_a"]: r["seed_a"] for r in json.loads(standings_out)["rows"]}
    seeds |= {r["player_b"]: r["seed_b"] for r in json.loads(standings_out)["rows"]}
    assert seeds[rows[1]["player_b"]] == 5 and seeds[rows[2]["player_b"]] == 8
    assert "p1" not in seeds  # dropped: gives up a cut place


def test_cli_structure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "swiss", "structure", "--players", "25", "--fewer-rounds-top16")
    assert code == 0 and "4 Swiss rounds + top 16" in out


def test_cli_league_standings_points_check(capsys: pytest.CaptureFixture[str]) -> None:
    season = str(EXAMPLES / "league" / "season.toml")
    code, out, _ = run(capsys, "league", "standings", season, "--json")
    assert code == 0
    rows = json.loads(out)["rows"]
    assert rows[0]["rank"] == 1 and {"W", "S", "MW", "MP", "T", "final_bonus"} <= set(rows[0])
    assert rows[0]["final_bonus"] == "1.5"
    code, out, _ = run(capsys, "league", "check", season, "--csv")
    verdicts = {r["tournament"]: r for r in csv.DictReader(io.StringIO(out))}
    assert verdicts["shopA-oct-1"]["counts"] == "yes"
    assert verdicts["shopB-nov"]["counts"] == "no" and "major" in verdicts["shopB-nov"]["reasons"]
    code, out, _ = run(capsys, "league", "points", season, "--tournament", "major-1")
    assert code == 0 and "42" in out


def test_cli_league_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "s.toml"
    bad.write_text('season = "x"\nfoo = 1\n', encoding="utf-8")
    code, _, err = run(capsys, "league", "standings", str(bad))
    assert code == 1 and "unknown key(s) foo" in err
    code, _, err = run(capsys, "league", "standings", str(tmp_path / "missing.toml"))
    assert code == 1 and "does not exist" in err


def test_cli_help_on_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["swiss"], ["league"], ["swiss", "report"], ["league", "check"]):
        with pytest.raises(SystemExit) as exit_:
            main([*argv, "--help"])
        assert exit_.value.code == 0
    assert "usage" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_cli_poker_round_on_ray_table_actors_gives_the_same_results(
    event: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`mtt swiss play --ray` plays each match in its own table actor on real Ray, with the
    same seeded RNG as in one process, so the round's results are the same."""
    copy = tmp_path / "copy.json"
    assert main(["swiss", "pair", "--state", str(event)]) == 0
    copy.write_text(event.read_text())
    assert main(["swiss", "play", "--state", str(event)]) == 0
    assert main(["swiss", "play", "--ray", "--state", str(copy)]) == 0
    capsys.readouterr()
    _, here, _ = run(capsys, "swiss", "standings", "--state", str(event), "--json")
    _, on_ray, _ = run(capsys, "swiss", "standings", "--state", str(copy), "--json")
    assert json.loads(here) == json.loads(on_ray)
