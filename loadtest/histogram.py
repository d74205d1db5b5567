"""Latency histograms with fixed log buckets, so that histograms from several generator
processes merge exactly (bucket counts add) instead of by averaging percentiles.

The buckets are HDR-like: `SUB_BUCKETS` equal-ratio buckets per power of two from
`LOWEST_US` microseconds up; every value lands in the bucket whose lower bound is the largest
one not above it, so a reported quantile is at most one bucket ratio (2**(1/16), about 4.4%)
below the true value, never above it.

>>> a, b = LatencyHistogram(), LatencyHistogram()
>>> for ms in (1.0, 2.0, 3.0):
...     a.record(ms / 1000)
>>> b.record(0.040)
>>> merged = a.merged(b)
>>> merged.count, round(merged.quantile(1.0) * 1000, 1)
(4, 40.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["LOWEST_US", "SUB_BUCKETS", "LatencyHistogram", "bucket_index", "bucket_lower"]

LOWEST_US = 1.0  # the first bucket starts at 1 microsecond; anything faster lands in it
SUB_BUCKETS = 16  # buckets per doubling


def bucket_index(seconds: float) -> int:
    """The bucket holding `seconds` (a duration, at least 0)."""
    micros = seconds * 1e6
    if micros <= LOWEST_US:
        return 0
    index = math.floor(math.log2(micros / LOWEST_US) * SUB_BUCKETS)
    # Floating point may put an exact bucket bound one bucket low or high: settle it exactly.
    while index > 0 and bucket_lower(index) > seconds:
        index -= 1
    while bucket_lower(index + 1) <= seconds:
        index += 1
    return index


def bucket_lower(index: int) -> float:
    """The lower bound of bucket `index`, in seconds."""
    return float(LOWEST_US * 2.0 ** (index / SUB_BUCKETS) / 1e6)


@dataclass(slots=True)
class LatencyHistogram:
    """Counts per fixed bucket (index -> count) and the exact count, sum and maximum."""

    counts: dict[int, int] = field(default_factory=dict)
    count: int = 0
    total: float = 0.0
    largest: float = 0.0

    def record(self, seconds: float) -> None:
        index = bucket_index(seconds)
        self.counts[index] = self.counts.get(index, 0) + 1
        self.count += 1
        self.total += seconds
        self.largest = max(self.largest, seconds)

    def merged(self, other: LatencyHistogram) -> LatencyHistogram:
        """The histogram of both histograms' samples."""
        counts = dict(self.counts)
        for index, n in other.counts.items():
            counts[index] = counts.get(index, 0) + n
        return LatencyHistogram(
            counts=counts,
            count=self.count + other.count,
            total=self.total + other.total,
            largest=max(self.largest, other.largest),
        )

    @classmethod
    def merge_all(cls, histograms: Iterable[LatencyHistogram]) -> LatencyHistogram:
        merged = cls()
        for histogram in histograms:
            merged = merged.merged(histogram)
        return merged

    def quantile(self, q: float) -> float:
        """The q-quantile (0..1) by nearest rank, as its bucket's lower bound (the exact maximum
        when the rank is the last sample); 0 for an empty histogram."""
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"a quantile is between 0 and 1, not {q}")
        if self.count == 0:
            return 0.0
        rank = min(self.count, max(1, math.ceil(q * self.count)))
        if rank == self.count:
            return self.largest
        seen = 0
        for index in sorted(self.counts):
            seen += self.counts[index]
            if seen >= rank:
                return min(bucket_lower(index), self.largest)
        raise AssertionError("the counts add up to fewer than `count`")  # pragma: no cover

    def mean(self) -> float:
        return self.total / self.count if self.count else 0.0

    def to_json(self) -> dict[str, object]:
        """A plain record (JSON keys are strings) for the report and between processes."""
        return {
            "lowest_us": LOWEST_US,
            "sub_buckets": SUB_BUCKETS,
            "counts": {str(index): n for index, n in sorted(self.counts.items())},
            "count": self.count,
            "total_s": self.total,
            "max_s": self.largest,
        }

    @classmethod
    def from_json(cls, record: dict[str, object]) -> LatencyHistogram:
        if record.get("lowest_us") != LOWEST_US or record.get("sub_buckets") != SUB_BUCKETS:
            raise ValueError("a histogram with other bucket boundaries cannot be merged exactly")
        counts, count = record["counts"], record["count"]
        total, largest = record["total_s"], record["max_s"]
        if not (isinstance(counts, dict) and isinstance(count, int)):
            raise ValueError("a histogram record needs `counts` (a table) and `count`")
        if not (isinstance(total, float | int) and isinstance(largest, float | int)):
            raise ValueError("a histogram record needs `total_s` and `max_s` (numbers)")
        return cls(
            counts={int(index): int(n) for index, n in counts.items()},
            count=count,
            total=float(total),
            largest=float(largest),
        )
