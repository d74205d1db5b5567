"""The load tester's pure parts: the think-time sampler (TB-1 tail), the ramp and storm
schedule (OUT-3 reconnect storms), the histograms and their exact merge, the profile file and
the merge of generators' records."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loadtest.coordinator import merge_records
from loadtest.errors import ProfileError
from loadtest.generator import BOTS_PER_GENERATOR, generators_for, shares
from loadtest.histogram import LatencyHistogram, bucket_index, bucket_lower
from loadtest.profile import LoadProfile, parse_profile
from loadtest.schedule import ReconnectStorm, arrivals, victims
from loadtest.think import LIMIT_SHARE, ThinkTimes, action_type
from table_worker.engine import DecisionKind

# ---- think times ---------------------------------------------------------------------------


def draws(think: ThinkTimes, action: str, n: int, seed: int = 3, bank: float = 30.0) -> list[float]:
    rng = random.Random(seed)
    return [think.sample(action, limit_seconds=10.0, bank_seconds=bank, rng=rng) for _ in range(n)]


def test_think_times_are_deterministic_given_the_seed() -> None:
    think = ThinkTimes.online()
    assert draws(think, "call", 200, seed=5) == draws(think, "call", 200, seed=5)
    assert draws(think, "call", 200, seed=5) != draws(think, "call", 200, seed=6)


def test_think_times_center_on_each_action_types_median() -> None:
    think = ThinkTimes(medians={"fold": 0.5, "raise": 4.0}, sigma=0.5)
    for action, median in (("fold", 0.5), ("raise", 4.0)):
        values = sorted(draws(think, action, 4001))
        assert values[2000] == pytest.approx(median, rel=0.08)


def test_think_times_stay_under_the_limit_except_the_tb1_tail_which_uses_part_of_the_bank() -> None:
    think = ThinkTimes(medians={"call": 6.0}, sigma=1.5, bank_share=0.05, bank_use=0.5)
    values = draws(think, "call", 4000, bank=30.0)
    regular = [v for v in values if v <= 10.0]
    tail = [v for v in values if v > 10.0]
    assert max(regular) <= LIMIT_SHARE * 10.0  # a regular draw never times out
    assert 0.03 < len(tail) / len(values) < 0.07
    assert all(10.0 + 0.05 * 30.0 <= v <= 10.0 + 0.5 * 30.0 for v in tail)


def test_tb1_tail_needs_a_bank_and_flat_out_never_waits() -> None:
    think = ThinkTimes(medians={"call": 1.0}, bank_share=1.0)
    assert all(v <= 10.0 for v in draws(think, "call", 100, bank=0.0))
    assert set(draws(ThinkTimes.flat_out(), "raise", 50)) == {0.0}


def test_action_types_tell_check_from_call_and_bet_from_raise() -> None:
    assert action_type(DecisionKind.FOLD, 100) == "fold"
    assert action_type(DecisionKind.CHECK_CALL, 0) == "check"
    assert action_type(DecisionKind.CHECK_CALL, 100) == "call"
    assert action_type(DecisionKind.RAISE_TO, 0) == "bet"
    assert action_type(DecisionKind.RAISE_TO, 100) == "raise"


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"medians": {"shove": 1.0}}, "think.median"),
        ({"medians": {"fold": -1.0}}, "think.median.fold"),
        ({"sigma": math.nan}, "think.sigma"),
        ({"bank_share": 1.5}, "think.bank_share"),
        ({"bank_use": 0.0}, "think.bank_use"),
    ],
)
def test_bad_think_values_name_their_key(changes: dict[str, object], key: str) -> None:
    with pytest.raises(ProfileError, match=key.replace(".", r"\.")):
        ThinkTimes(**changes)  # type: ignore[arg-type]


# ---- ramp and storms -----------------------------------------------------------------------


def test_ramp_connects_linearly_over_its_seconds_and_registers_on_arrival() -> None:
    plan = arrivals(100, ramp_seconds=10.0, registration="ramp", storm_seconds=1.0)
    assert [a.bot for a in plan] == list(range(100))
    assert all(a.register_at == a.connect_at for a in plan)
    assert [a.connect_at for a in plan] == pytest.approx([k / 10 for k in range(100)])
    assert max(a.connect_at for a in plan) < 10.0


def test_registration_storm_registers_every_bot_within_its_second_then_the_ramp() -> None:
    plan = arrivals(500, ramp_seconds=5.0, registration="storm", storm_seconds=1.0)
    assert all(0.0 <= a.register_at < 1.0 for a in plan)
    assert min(a.connect_at for a in plan) == 1.0  # the ramp starts once the storm is over
    assert max(a.connect_at for a in plan) < 6.0
    assert all(a.connect_at > a.register_at for a in plan)


def test_ramp_of_zero_seconds_connects_everyone_at_once() -> None:
    plan = arrivals(30, ramp_seconds=0.0, registration="ramp", storm_seconds=0.0)
    assert {a.connect_at for a in plan} == {0.0}


def test_bad_schedule_values_name_their_key() -> None:
    with pytest.raises(ProfileError, match=r"registration\.mode"):
        arrivals(3, ramp_seconds=1.0, registration="flood", storm_seconds=1.0)
    with pytest.raises(ProfileError, match=r"ramp\.seconds"):
        arrivals(3, ramp_seconds=-1.0, registration="ramp", storm_seconds=1.0)
    with pytest.raises(ProfileError, match=r"reconnect_storm\.share"):
        ReconnectStorm(at=1.0, share=0.0)


def test_out3_reconnect_storm_drops_its_share_of_distinct_bots_the_same_for_a_seed() -> None:
    storm = ReconnectStorm(at=5.0, share=0.1)
    hit = victims(300, storm, random.Random("1:storm:0"))
    assert len(hit) == 30 == len(set(hit))
    assert all(0 <= k < 300 for k in hit)
    assert hit == victims(300, storm, random.Random("1:storm:0"))
    assert len(victims(5, ReconnectStorm(at=0.0, share=0.01), random.Random(1))) == 1


# ---- histograms ----------------------------------------------------------------------------

seconds = st.floats(min_value=0.0, max_value=30.0, allow_nan=False)


@given(st.lists(seconds, max_size=200), st.lists(seconds, max_size=200))
def test_merging_two_generators_histograms_equals_the_histogram_of_all_samples(
    first: list[float], second: list[float]
) -> None:
    def of(values: list[float]) -> LatencyHistogram:
        histogram = LatencyHistogram()
        for value in values:
            histogram.record(value)
        return histogram

    merged = of(first).merged(of(second))
    whole = of(first + second)
    assert merged.counts == whole.counts
    assert merged.count == whole.count == len(first) + len(second)
    assert merged.largest == whole.largest
    for q in (0.0, 0.5, 0.95, 0.99, 1.0):
        assert merged.quantile(q) == whole.quantile(q)
    # ... and across processes: through the JSON record and back
    assert LatencyHistogram.from_json(merged.to_json()).counts == whole.counts


@given(st.floats(min_value=1e-6, max_value=100.0, allow_nan=False))
def test_each_value_lands_in_the_bucket_whose_bounds_hold_it(value: float) -> None:
    index = bucket_index(value)
    assert bucket_lower(index) <= value < bucket_lower(index + 1)


def test_quantiles_are_within_one_bucket_below_the_exact_nearest_rank() -> None:
    rng = random.Random(2)
    values = [rng.lognormvariate(math.log(0.005), 1.0) for _ in range(5000)]
    histogram = LatencyHistogram()
    for value in values:
        histogram.record(value)
    ordered = sorted(values)
    for q in (0.5, 0.95, 0.99):
        exact = ordered[math.ceil(q * len(ordered)) - 1]
        assert exact / 2 ** (1 / 16) <= histogram.quantile(q) <= exact
    assert histogram.quantile(1.0) == max(values)


def test_histograms_with_other_buckets_are_refused() -> None:
    record = LatencyHistogram().to_json() | {"sub_buckets": 8}
    with pytest.raises(ValueError, match="other bucket boundaries"):
        LatencyHistogram.from_json(record)


# ---- the profile file ----------------------------------------------------------------------


def test_profile_toml_sets_think_ramp_registration_and_storms() -> None:
    profile = parse_profile(
        """
        pace = "online"
        [think]
        bank_share = 0.05
        [think.median]
        fold = 0.4
        [ramp]
        seconds = 30
        [registration]
        mode = "storm"
        storm_seconds = 0.5
        [[reconnect_storm]]
        at = 10
        share = 0.2
        """
    )
    assert profile.think.medians["fold"] == 0.4
    assert profile.think.medians["raise"] == ThinkTimes.online().medians["raise"]
    assert profile.think.bank_share == 0.05
    assert (profile.ramp_seconds, profile.registration, profile.storm_seconds) == (30, "storm", 0.5)
    assert profile.reconnect_storms == (ReconnectStorm(at=10.0, share=0.2),)
    assert parse_profile("") == LoadProfile()


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("pace = 'lazy'", "pace"),
        ("[ramp]\nsecond = 3", "ramp"),
        ("[ramp]\nseconds = 'soon'", "ramp.seconds"),
        ("[think.median]\nfold = true", "think.median.fold"),
        ("[registration]\nmode = 'flood'", "registration.mode"),
        ("[[reconnect_storm]]\nat = 3", "reconnect_storm"),
        ("[[reconnect_storm]]\nat = 3\nshare = 2", "reconnect_storm.share"),
        ("ramp = [", "not TOML"),
    ],
)
def test_bad_profiles_name_the_key(text: str, key: str) -> None:
    with pytest.raises(ProfileError, match=key.replace(".", r"\.")):
        parse_profile(text)


# ---- the merged report ---------------------------------------------------------------------


def record(
    latencies: list[float], per_second: dict[str, int], **counts: object
) -> dict[str, object]:
    histogram = LatencyHistogram()
    for value in latencies:
        histogram.record(value)
    base: dict[str, object] = {
        "bots": 2, "registered": 2, "welcomed": 2, "actions": len(latencies), "timeouts": 0,
        "errors": 0, "problems": {}, "reconnects": 0, "resumes": 0, "storm_drops": 0,
        "bank_decisions": 0, "hands": [], "per_second": per_second,
        "histogram": histogram.to_json(),
    }  # fmt: skip
    return base | counts


def test_generators_records_merge_into_one_report_whose_counts_add_up() -> None:
    one = record([0.001, 0.002], {"0": 1, "1": 1}, hands=[[1, 1], [1, 2]],
                 problems={"UNAVAILABLE": 1}, errors=1, reconnects=1)  # fmt: skip
    two = record([0.003, 0.004, 0.005], {"1": 2, "2": 1}, hands=[[1, 2], [2, 1]],
                 problems={"UNAVAILABLE": 2, "INVALID_ARGUMENT": 1}, errors=3)  # fmt: skip
    report = merge_records([one, two], seconds=3.0)
    assert (
        report["actions"] == 5 == report["histogram"]["count"] == sum(report["actions_per_second"])
    )
    assert report["actions_per_second"] == [1, 3, 1]
    assert report["hands"] == 3  # one hand seen by bots of both generators counts once
    assert report["problems"] == {"UNAVAILABLE": 3, "INVALID_ARGUMENT": 1}
    assert report["errors"] == 4 == sum(report["problems"].values())
    assert report["bots"] == 4 and report["reconnects"] == 1
    assert report["p99_ms"] == 5.0 and report["actions_per_s"] == round(5 / 3, 1)


@pytest.mark.parametrize(("bots", "processes"), [(1, 1), (500, 1), (501, 2), (1000, 2), (2000, 4)])
def test_a_fleet_plays_one_generator_per_500_bots_by_default(bots: int, processes: int) -> None:
    assert generators_for(bots) == processes
    mine = shares(bots, generators_for(bots))
    assert sorted(k for part in mine for k in part) == list(range(bots))  # each bot once
    assert max(len(part) for part in mine) <= BOTS_PER_GENERATOR


def test_mtt_loadtest_without_processes_leaves_the_count_to_the_fleets_size() -> None:
    import argparse

    from orchestrator.cli.loadtest import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(
        ["loadtest", "--target", "127.0.0.1:1", "--bots", "9", "--duration", "1"]
    )
    assert args.processes is None  # generators_for(bots) at the run
    given = [
        "loadtest",
        "--target",
        "127.0.0.1:1",
        "--bots",
        "9",
        "--duration",
        "1",
        "--processes",
        "3",
    ]
    assert parser.parse_args(given).processes == 3


def test_the_sunday_example_profile_reads() -> None:
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "examples" / "loadtest" / "sunday.toml"
    profile = parse_profile(path.read_text())
    assert profile.think == ThinkTimes.online()  # the file spells the built-in pace out
    assert profile.registration == "storm" and profile.reconnect_storms


def test_a_reconnect_storm_after_the_measured_window_is_refused_naming_its_key() -> None:
    from loadtest.coordinator import FleetOptions

    storms = (ReconnectStorm(at=30.0, share=0.1),)
    with pytest.raises(ProfileError, match=r"reconnect_storm\.at"):
        FleetOptions(
            target="127.0.0.1:1", bots=10, duration=20.0, operator_credential="x",
            profile=LoadProfile(reconnect_storms=storms),
        )  # fmt: skip
