"""`mtt bench engine`: our engine against pokerkit on the same hands, in one process run.

Our side plays the hands: bots decide, the engine checks and applies every action. pokerkit's
side replays exactly those hands (same stacks, cards and actions) without the bots' thinking,
so the ratio understates our lead rather than flattering it. Hands are processed in chunks so
memory stays flat in N.
"""

from __future__ import annotations

import random
import resource
import time
from dataclasses import asdict, dataclass
from itertools import islice

from table_worker.session import TableConfig, play_table

CHUNK = 200


@dataclass(frozen=True, slots=True)
class EngineBench:
    hands: int
    players: int
    mtt_hands_per_s: float
    pokerkit_hands_per_s: float
    ratio: float
    peak_rss_mb: float

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)


def bench_engine(*, hands: int, players: int, seed: int) -> EngineBench:
    from table_worker.oracle import replay_in_pokerkit  # pokerkit is a dev dependency

    played = play_table(
        TableConfig(players=players, policies=("random",)), hands, random.Random(seed)
    )
    ours = theirs = 0.0
    while True:
        start = time.perf_counter()
        chunk = [p.hand for p in islice(played, CHUNK)]
        ours += time.perf_counter() - start
        if not chunk:
            break
        start = time.perf_counter()
        for hand in chunk:
            replay_in_pokerkit(hand)
        theirs += time.perf_counter() - start
    mtt_rate, pokerkit_rate = hands / ours, hands / theirs
    return EngineBench(
        hands=hands,
        players=players,
        mtt_hands_per_s=round(mtt_rate, 1),
        pokerkit_hands_per_s=round(pokerkit_rate, 1),
        ratio=round(mtt_rate / pokerkit_rate, 2),
        peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    )
