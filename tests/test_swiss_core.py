"""The Swiss core by rule: SW-1 structure, pairing (SW-2 byes, rematches, relaxation, late
entries, drops), SW-3 points, standings and tie-breakers, SW-4/SW-5 top cut, SW-6 deck checks,
SAN-1/SAN-2 sanctions, results validation and heads-up poker matches."""

from __future__ import annotations

import itertools
import random
from datetime import datetime
from fractions import Fraction

import pytest

from orchestrator.competition.swiss import (
    CutRule,
    EventConfig,
    ImpossibleResult,
    InvalidInput,
    InvalidState,
    MatchResult,
    Pairing,
    PokerConfig,
    SanctionKind,
    Status,
    SwissState,
    Tiebreaker,
    UnknownPlayer,
    advance_cut,
    bracket_order,
    cut_places,
    dense_ranks,
    disqualify,
    drop,
    enter_late,
    event_rng,
    new_event,
    pair_next_round,
    pair_round,
    report_results,
    standings,
    start_cut,
    structure_for,
    warn,
)
from orchestrator.competition.swiss.poker import HowDecided, play_match
from orchestrator.competition.swiss.records import PlayerRecord
from orchestrator.competition.swiss.structure import SW1_TABLE

AT = datetime(2012, 3, 1, 15, 0)
A_WINS = MatchResult(games_a=2, games_b=1)
B_WINS = MatchResult(games_a=0, games_b=2)


def make_event(n: int, **options: object) -> SwissState:
    config = EventConfig(name="t", seed=11, **options)  # type: ignore[arg-type]
    return new_event(config, [f"p{k:02d}" for k in range(1, n + 1)], random.Random(0))


def pair(state: SwissState) -> SwissState:
    return pair_next_round(state, event_rng(state.config, "pair", len(state.rounds) + 1))


def report_all(state: SwissState) -> SwissState:
    """Report the last round: the first-listed player (the better score) wins every match."""
    round_ = state.rounds[-1]
    results = {p.table: A_WINS for p in round_.pairings if p.b is not None}
    return report_results(state, round_.number, results)


def play_swiss(state: SwissState) -> SwissState:
    while state.structure is None or len(state.swiss_rounds) < state.structure.rounds:
        state = report_all(pair(state))
    return state


# --- SW-1 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "rounds", "cut"),
    [
        (2, 3, 4),
        (8, 3, 4),
        (9, 4, 4),
        (12, 4, 4),
        (13, 4, 8),
        (16, 4, 8),
        (17, 5, 8),
        (30, 5, 8),
        (31, 6, 8),
        (200, 6, 8),
    ],
)
def test_sw1_rounds_and_cut_by_field_size(players: int, rounds: int, cut: int) -> None:
    plan = structure_for(players)
    assert (plan.rounds, plan.cut) == (rounds, cut)


@pytest.mark.parametrize(("players", "rounds"), [(24, 4), (25, 4), (30, 4), (31, 5), (64, 5)])
def test_sw1_organiser_option_one_round_fewer_top16_from_24(players: int, rounds: int) -> None:
    plan = structure_for(players, fewer_rounds_top16=True)
    assert (plan.rounds, plan.cut) == (rounds, 16)


def test_sw1_option_refused_below_24_players() -> None:
    with pytest.raises(InvalidInput, match="SW-1"):
        structure_for(23, fewer_rounds_top16=True)


def test_sw1_table_is_data_covering_every_field_size() -> None:
    assert SW1_TABLE[0].low == 1 and SW1_TABLE[-1].high is None
    for before, after in itertools.pairwise(SW1_TABLE):
        assert before.high is not None and after.low == before.high + 1


def test_sw1_structure_fixed_at_round_one_despite_late_entries() -> None:
    state = pair(make_event(8))
    assert state.structure is not None and state.structure.rounds == 3
    state = enter_late(report_all(state), ["late1"], random.Random(1))
    state = pair(state)
    assert state.structure is not None and state.structure.rounds == 3


# --- pairing ------------------------------------------------------------------------------


def test_sw2_odd_field_one_bye_to_lowest_score_without_a_bye() -> None:
    state = report_all(pair(make_event(5)))
    first_bye = next(p.a for p in state.rounds[0].pairings if p.b is None)
    before = {s.player: s.points for s in standings(state)}
    state = pair(state)
    byes = [p.a for p in state.rounds[1].pairings if p.b is None]
    assert len(byes) == 1 and byes[0] != first_bye
    eligible = [p for p in before if p != first_bye]
    assert before[byes[0]] == min(before[p] for p in eligible) == 0
    assert any(
        line.startswith(f"bye: {byes[0]}") and "SW-2" in line for line in state.rounds[1].log
    )


def test_sw2_no_second_bye_while_someone_has_none() -> None:
    state = make_event(7)
    byes: list[str] = []
    for _ in range(3):
        state = report_all(pair(state))
        byes += [p.a for p in state.rounds[-1].pairings if p.b is None]
    assert len(byes) == len(set(byes)) == 3


def test_sw2_second_bye_only_when_everyone_has_one_and_logged() -> None:
    records = {n: PlayerRecord(n, byes=1) for n in ("a", "b", "c")}
    plan = pair_round(["a", "b", "c"], records, random.Random(0), round_number=4)
    assert plan.second_byes == 1
    assert any("second bye" in line for line in plan.log)


def test_pairing_avoids_rematch_by_pairing_down_and_logs_it() -> None:
    records = {n: PlayerRecord(n) for n in "abcd"}
    records["a"].wins = records["b"].wins = 1
    records["c"].losses = records["d"].losses = 1
    records["a"].faced, records["b"].faced = {"b"}, {"a"}
    records["c"].faced, records["d"].faced = {"d"}, {"c"}
    plan = pair_round(list("abcd"), records, random.Random(0), round_number=2)
    couples = {frozenset((p.a, p.b)) for p in plan.pairings}
    assert frozenset("ab") not in couples and frozenset("cd") not in couples
    assert plan.rematches == 0
    assert sum("pair-down" in line and "rematch" in line for line in plan.log) == 2


def test_pairing_relaxes_when_no_rematch_free_pairing_exists_and_says_so() -> None:
    # Four players who have all met: a round robin is over, a fourth round must repeat.
    records = {n: PlayerRecord(n, faced=set("abcd") - {n}) for n in "abcd"}
    plan = pair_round(list("abcd"), records, random.Random(0), round_number=4)
    assert plan.rematches == 2
    assert sum(line.startswith("relaxed:") for line in plan.log) == 2


def test_pairing_within_score_groups_when_possible() -> None:
    records = {n: PlayerRecord(n) for n in "abcdef"}
    for n in "abc":
        records[n].wins = 1
    plan = pair_round(list("abcdef"), records, random.Random(3), round_number=2)
    gaps = [records[p.a].points - records[p.b].points for p in plan.pairings if p.b]
    assert sorted(gaps) == [0, 0, 3]  # three on 3 points: exactly one pair-down
    assert sum("odd number of players (3" in line for line in plan.log) == 1


def test_same_seed_same_pairings() -> None:
    one, two = play_swiss(make_event(11)), play_swiss(make_event(11))
    assert one == two
    other = play_swiss(
        new_event(
            EventConfig(name="t", seed=12), [f"p{k:02d}" for k in range(1, 12)], random.Random(0)
        )
    )
    assert [r.pairings for r in one.rounds] != [r.pairings for r in other.rounds]


def test_dropped_players_are_never_paired_again() -> None:
    state = drop(report_all(pair(make_event(8))), ["p01", "p02"])
    state = pair(state)
    paired = {n for p in state.rounds[-1].pairings for n in (p.a, p.b) if n}
    assert paired.isdisjoint({"p01", "p02"}) and len(paired) == 6
    assert {s.player: s.status for s in standings(state)}["p01"] is Status.DROPPED


def test_late_entry_joins_next_round_with_no_points() -> None:
    state = enter_late(report_all(pair(make_event(6))), ["late1", "late2"], random.Random(5))
    late = [s for s in standings(state) if s.player.startswith("late")]
    assert [(s.points, s.matches) for s in late] == [(0, 0), (0, 0)]
    state = pair(state)
    paired = {n for p in state.rounds[-1].pairings for n in (p.a, p.b) if n}
    assert {"late1", "late2"} <= paired


def test_late_entry_name_must_be_new() -> None:
    with pytest.raises(InvalidInput, match="twice"):
        enter_late(make_event(4), ["p01"], random.Random(0))


def test_cannot_pair_before_round_is_reported_and_nothing_changes() -> None:
    state = pair(make_event(6))
    with pytest.raises(InvalidState, match="not fully reported"):
        pair(state)


def test_sw6_deck_check_table_drawn_each_round_bye_included() -> None:
    drawn: set[int | None] = set()
    bye_drawn = False
    for seed in range(40):
        config = EventConfig(name="t", seed=seed)
        state = new_event(config, ["a", "b", "c"], random.Random(0))
        state = pair_next_round(state, event_rng(config, "pair", 1))
        round_ = state.rounds[0]
        drawn.add(round_.deck_check)
        table = round_.table(round_.deck_check or 0)
        assert table is not None
        bye_drawn |= table.b is None
        assert any("deck check (SW-6)" in line for line in round_.log)
    assert drawn == {1, 2} and bye_drawn


def test_sw6_deck_checks_can_be_switched_off() -> None:
    state = pair(make_event(4, deck_checks=False))
    assert state.rounds[0].deck_check is None


# --- results and standings ----------------------------------------------------------------


@pytest.mark.parametrize(("a", "b", "drawn"), [(3, 0, 0), (2, 2, 0), (-1, 2, 0), (0, 0, 4)])
def test_sw4_impossible_best_of_three_results_refused(a: int, b: int, drawn: int) -> None:
    with pytest.raises(ImpossibleResult):
        MatchResult(games_a=a, games_b=b, games_drawn=drawn)


def test_sw3_intentional_draw_has_no_games() -> None:
    with pytest.raises(ImpossibleResult, match="SW-3"):
        MatchResult(games_a=1, games_b=0, intentional_draw=True)


def test_sw3_points_win_3_draw_1_intentional_draw_1() -> None:
    state = pair(make_event(4))
    tables = [p.table for p in state.rounds[0].pairings]
    state = report_results(
        state,
        1,
        {
            tables[0]: MatchResult(games_a=1, games_b=1, games_drawn=1),
            tables[1]: MatchResult(games_a=0, games_b=0, intentional_draw=True),
        },
    )
    assert {s.points for s in standings(state)} == {1}
    state = report_results(state, 1, {tables[0]: MatchResult(games_a=2, games_b=0)}, amend=True)
    assert sorted(s.points for s in standings(state)) == [0, 1, 1, 3]


def test_sw2_bye_is_a_win_not_a_match_and_loses_ties() -> None:
    state = make_event(3, tiebreakers=())
    state = report_all(pair(state))
    table = standings(state)
    bye = next(p.a for p in state.rounds[0].pairings if p.b is None)
    winner = next(p.a for p in state.rounds[0].pairings if p.b is not None)
    rows = {s.player: s for s in table}
    assert rows[bye].points == rows[winner].points == 3
    assert rows[bye].matches == 0 and rows[bye].byes == 1
    assert [s.player for s in table][:2] == [winner, bye]  # equal points: the bye loses
    assert rows[winner].rank == 1 and rows[bye].rank == 2


def test_reported_table_needs_amend_and_bye_has_no_result() -> None:
    state = report_all(pair(make_event(5)))
    with pytest.raises(InvalidState, match="already reported"):
        report_results(state, 1, {1: B_WINS})
    bye_table = next(p.table for p in state.rounds[0].pairings if p.b is None)
    with pytest.raises(InvalidInput, match="bye"):
        report_results(state, 1, {bye_table: A_WINS}, amend=True)
    with pytest.raises(InvalidInput, match="no table"):
        report_results(state, 1, {99: A_WINS}, amend=True)


def test_tiebreakers_omw_floor_gw_ogw_buchholz() -> None:
    # Round 1: a beats b 2-0, c beats d 2-1; round 2: a beats c 2-1, b beats d 2-0.
    config = EventConfig(
        name="t",
        seed=1,
        tiebreakers=(Tiebreaker.OMW, Tiebreaker.GW, Tiebreaker.OGW, Tiebreaker.BUCHHOLZ),
    )
    from orchestrator.competition.swiss.model import Round, Stage

    rounds = (
        Round(
            number=1,
            stage=Stage.SWISS,
            pairings=(
                Pairing(table=1, a="a", b="b", result=MatchResult(games_a=2, games_b=0)),
                Pairing(table=2, a="c", b="d", result=MatchResult(games_a=2, games_b=1)),
            ),
        ),
        Round(
            number=2,
            stage=Stage.SWISS,
            pairings=(
                Pairing(table=1, a="a", b="c", result=MatchResult(games_a=2, games_b=1)),
                Pairing(table=2, a="b", b="d", result=MatchResult(games_a=2, games_b=0)),
            ),
        ),
    )
    base = new_event(config, list("abcd"), random.Random(0))
    state = SwissState(config=config, players=base.players, rounds=rounds)
    rows = {s.player: dict(s.tiebreaks) for s in standings(state)}
    # a's opponents b (1-1: 1/2) and c (1-1: 1/2); d's are c (1/2) and b (1/2).
    assert rows["a"][Tiebreaker.OMW] == Fraction(1, 2)
    # b: 2 of 4 games won -> 1/2; d: 1 of 5 -> 1/5, floored at 0.33.
    assert rows["b"][Tiebreaker.GW] == Fraction(1, 2)
    assert rows["d"][Tiebreaker.GW] == Fraction(33, 100)
    # b won 2 of 4 games, c 3 of 6.
    assert rows["a"][Tiebreaker.OGW] == Fraction(1, 2)
    assert rows["a"][Tiebreaker.BUCHHOLZ] == 6
    order = [s.player for s in standings(state)]
    assert order[0] == "a" and order[-1] == "d"


def test_omw_floor_for_winless_opponents() -> None:
    records = {n: PlayerRecord(n) for n in "ab"}
    records["a"].wins, records["b"].losses = 1, 1
    records["a"].opponents, records["b"].opponents = ["b"], ["a"]
    from orchestrator.competition.swiss.standings import tiebreak_value

    assert tiebreak_value(Tiebreaker.OMW, records["a"], records) == Fraction(33, 100)


def test_dense_ranks_share_and_follow_on() -> None:
    assert dense_ranks([9, 9, 6, 3, 3, 0]) == [1, 1, 2, 3, 3, 4]


# --- top cut ------------------------------------------------------------------------------


def test_sw5_bracket_1v8_2v7_and_1_meets_2_only_in_final() -> None:
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(4) == [1, 4, 2, 3]
    assert bracket_order(16)[:4] == [1, 16, 8, 9]


def cut_event(n: int = 16, **options: object) -> SwissState:
    return play_swiss(make_event(n, **options))


def test_sw5_top8_pairs_by_seed_and_better_seed_chooses_who_starts() -> None:
    state = cut_event()
    state = start_cut(state, {}, random.Random(0))
    seeds = state.cut_seeds
    assert list(seeds) == [s.player for s in standings(state)][:8]
    round_ = state.rounds[-1]
    matches = {p.table: (p.a, p.b, p.chooser) for p in round_.pairings}
    for s in range(1, 5):
        a, b, chooser = matches[s]
        assert (a, b) == (seeds[s - 1], seeds[8 - s]) and chooser == seeds[s - 1]
    assert [p.table for p in round_.pairings] == [1, 4, 2, 3]  # bracket order


def test_sw5_choice_rule_better_half_pick_in_seed_order() -> None:
    state = cut_event(cut_rule=CutRule.CHOICE)
    state = start_cut(state, {1: 5, 2: 8}, random.Random(0))
    seeds = state.cut_seeds
    pairs = {p.table: (p.a, p.b) for p in state.rounds[-1].pairings}
    assert pairs[1] == (seeds[0], seeds[4])
    assert pairs[2] == (seeds[1], seeds[7])
    assert pairs[3] == (seeds[2], seeds[6])  # no choice named: the worst free seed
    assert pairs[4] == (seeds[3], seeds[5])
    assert any("named no opponent" in line for line in state.cut_log)


@pytest.mark.parametrize(
    ("choices", "message"),
    [({5: 6}, "only seeds 1..4"), ({1: 3}, "only from seeds 5..8"), ({1: 6, 2: 6}, "same")],
)
def test_sw5_choice_rule_refuses_bad_choices(choices: dict[int, int], message: str) -> None:
    state = cut_event(cut_rule=CutRule.CHOICE)
    with pytest.raises(InvalidInput, match=message):
        start_cut(state, choices, random.Random(0))


def test_sw5_choices_refused_under_seed_rule() -> None:
    with pytest.raises(InvalidInput, match="choice"):
        start_cut(cut_event(), {1: 6}, random.Random(0))


def finish_cut(state: SwissState) -> SwissState:
    while True:
        state = report_all(state)
        try:
            state = advance_cut(state, random.Random(len(state.rounds)))
        except InvalidState:
            return state


def test_sw4_semifinal_losers_play_for_third_and_places() -> None:
    state = finish_cut(start_cut(cut_event(), {}, random.Random(0)))
    seeds = state.cut_seeds
    last = state.rounds[-1]
    assert [p.label for p in last.pairings] == ["final", "third place"]
    places = dict((name, place) for place, name in cut_places(state.cut_rounds, seeds))
    assert places[seeds[0]] == 1  # the better seed sits first and wins every reported match
    assert sorted(places.values()) == [1, 2, 3, 4, 5, 6, 7, 8]


def test_sw4_without_third_place_match_semifinal_losers_share_third() -> None:
    state = finish_cut(start_cut(cut_event(third_place=False), {}, random.Random(0)))
    assert [p.label for p in state.rounds[-1].pairings] == ["final"]
    places = [place for place, _ in cut_places(state.cut_rounds, state.cut_seeds)]
    assert places[:4] == [1, 2, 3, 3]


def test_sw4_cut_match_needs_a_winner_of_two_games() -> None:
    state = start_cut(cut_event(), {}, random.Random(0))
    for result in (
        MatchResult(games_a=1, games_b=1, games_drawn=1),
        MatchResult(games_a=0, games_b=0, intentional_draw=True),
    ):
        with pytest.raises(ImpossibleResult, match="SW-4"):
            report_results(state, state.rounds[-1].number, {1: result})


def test_cut_waits_for_the_swiss_and_skips_dropped_players() -> None:
    with pytest.raises(InvalidState, match="after"):
        start_cut(report_all(pair(make_event(16))), {}, random.Random(0))
    state = cut_event()
    top = [s.player for s in standings(state)]
    state = start_cut(drop(state, [top[0]]), {}, random.Random(0))
    assert top[0] not in state.cut_seeds and state.cut_seeds[0] == top[1]


def test_sw1_top16_option_cuts_to_16() -> None:
    state = start_cut(cut_event(24, fewer_rounds_top16=True), {}, random.Random(0))
    assert len(state.cut_seeds) == 16 and len(state.swiss_rounds) == 4
    assert state.rounds[-1].pairings[0].label == "round of 16"


# --- sanctions ----------------------------------------------------------------------------


def test_san1_third_warning_disqualifies_and_san2_records_judge_reason_time() -> None:
    state = pair(make_event(6))
    for k in range(3):
        state = warn(state, "p01", judge="Mario", reason=f"slow play {k}", at=AT)
    kinds = [s.kind for s in state.sanctions]
    assert kinds == [SanctionKind.WARNING] * 3 + [SanctionKind.DISQUALIFICATION]
    last = state.sanctions[-1]
    assert (last.judge, last.at, last.round) == ("Mario", "2012-03-01T15:00:00", 1)
    assert "SAN-1" in last.reason
    assert "p01" in state.disqualified()
    with pytest.raises(InvalidState, match="already disqualified"):
        warn(state, "p01", judge="Mario", reason="again", at=AT)
    state = pair(report_all(state))
    assert all("p01" not in (p.a, p.b) for p in state.rounds[-1].pairings)
    row = next(s for s in standings(state) if s.player == "p01")
    assert row.status is Status.DISQUALIFIED and row.rank is None


def test_san1_two_warnings_do_not_disqualify() -> None:
    state = make_event(4)
    for _ in range(2):
        state = warn(state, "p02", judge="J", reason="r", at=AT)
    assert not state.disqualified()


def test_san2_sanction_needs_judge_reason_and_known_player() -> None:
    state = make_event(4)
    with pytest.raises(InvalidInput, match="judge"):
        warn(state, "p01", judge=" ", reason="r", at=AT)
    with pytest.raises(UnknownPlayer):
        disqualify(state, "nobody", judge="J", reason="r", at=AT)


# --- heads-up poker matches ---------------------------------------------------------------


def test_poker_match_is_best_of_three_and_reproducible() -> None:
    pairing = Pairing(table=1, a="x", b="y")
    config = PokerConfig()
    one = play_match(pairing, ("strength", "random"), config, random.Random(9))
    two = play_match(pairing, ("strength", "random"), config, random.Random(9))
    assert one == two
    assert max(one.result.games_a, one.result.games_b) == 2
    assert len(one.games) == one.result.games_a + one.result.games_b


def test_poker_game_hand_cap_decides_by_chips_then_coin_flip() -> None:
    config = PokerConfig(hand_cap=1, double_every=1000)
    decided = set()
    for seed in range(30):
        match = play_match(
            Pairing(table=1, a="x", b="y"), ("station", "station"), config, random.Random(seed)
        )
        for game in match.games:
            assert game.hands <= 1
            decided.add(game.decided)
    assert HowDecided.CHIP_LEAD_AT_CAP in decided


def test_poker_cut_match_chooser_takes_the_button_in_game_one() -> None:
    pairing = Pairing(table=1, a="x", b="y", chooser="y")
    match = play_match(pairing, ("random", "random"), PokerConfig(), random.Random(1))
    assert match.games[0].button_first == "y"
    if len(match.games) > 1:
        assert match.games[1].button_first == "x"


def test_amend_refused_once_the_next_round_is_paired() -> None:
    state = pair(report_all(pair(make_event(4))))
    with pytest.raises(InvalidState, match="cannot be amended"):
        report_results(state, 1, {1: B_WINS}, amend=True)
