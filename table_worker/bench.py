"""`mtt bench engine`: our engine against pokerkit on the same hands, in one process run.

Our side plays the hands: bots decide, the engine checks and applies every action, decks are
shuffled and every event recorded. pokerkit's side replays exactly those hands (same stacks,
cards and actions) without the bots' thinking, so the ratio understates our lead rather than
flattering it. Both sides are timed in the process's CPU seconds (`time.process_time`), so
another process's load on a shared machine slows neither side's figure.

Our side is timed twice, on the same hands (the same seed deals them again):
- as a table actor plays them (`mtt_hands_per_s`, `ratio`): each hand played, recorded and let
  go before the next, as the actor lets a hand go once reported;
- as the hands are kept for pokerkit (`mtt_kept_hands_per_s`, `ratio_kept`): in chunks of
  `CHUNK`, each chunk replayed in pokerkit once played, so memory stays flat in N. The hands
  a chunk keeps alive are what the garbage collector's full passes scan, work a table actor
  never has (docs/BENCHMARKS.md, "Hand engine", measures both).
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
    mtt_kept_hands_per_s: float
    ratio_kept: float
    peak_rss_mb: float

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)


def bench_engine(*, hands: int, players: int, seed: int) -> EngineBench:
    from table_worker.oracle import replay_in_pokerkit  # pokerkit is a dev dependency

    config = TableConfig(players=players, policies=("random",))
    recorded = 0
    start = time.process_time()
    for played in play_table(config, hands, random.Random(seed)):
        recorded += len(played.hand.events)
    ours = time.process_time() - start

    replayed = 0
    kept = theirs = 0.0
    again = play_table(config, hands, random.Random(seed))
    while True:
        start = time.process_time()
        chunk = [p.hand for p in islice(again, CHUNK)]
        kept += time.process_time() - start
        if not chunk:
            break
        start = time.process_time()
        for hand in chunk:
            replay_in_pokerkit(hand)
        theirs += time.process_time() - start
        replayed += sum(len(hand.events) for hand in chunk)
    if replayed != recorded:  # the seed deals the same hands; anything else is a bug here
        raise RuntimeError(f"the two passes recorded {recorded} and {replayed} events")
    mtt_rate, kept_rate, pokerkit_rate = hands / ours, hands / kept, hands / theirs
    return EngineBench(
        hands=hands,
        players=players,
        mtt_hands_per_s=round(mtt_rate, 1),
        pokerkit_hands_per_s=round(pokerkit_rate, 1),
        ratio=round(mtt_rate / pokerkit_rate, 2),
        mtt_kept_hands_per_s=round(kept_rate, 1),
        ratio_kept=round(kept_rate / pokerkit_rate, 2),
        peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    )
