"""One codec reads and writes every event type (DESIGN.md "Stores"): every event decodes to
itself from its record, for any values its annotations allow; every stored record carries its
version; the logs release 1 wrote still read, through the upcasters; and what the codec
cannot read is refused, naming the type and the field."""

from __future__ import annotations

import dataclasses
import enum
import inspect
import json
import types
import typing
from pathlib import Path
from typing import Any, Literal, Union

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.core import codec, events
from orchestrator.core.events import Event, HandFinished, PlayerMoved, TableOpened
from orchestrator.core.typed_json import hints
from orchestrator.errors import RecordError
from orchestrator.shell.eventlog import EventLog
from orchestrator.shell.store import SqliteStore

FIXTURES = Path(__file__).parent / "fixtures" / "logs_v1"


def strategy(annotation: Any) -> st.SearchStrategy[Any]:
    """Values of `annotation`, built from it alone: a new event type, or a new field, is
    covered without a line here; an annotation the codec cannot read has no strategy."""
    origin = typing.get_origin(annotation)
    if annotation is type(None):
        return st.none()
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        return st.integers()
    if annotation is float:
        return st.floats(allow_nan=False, allow_infinity=False)
    if annotation is str:
        return st.text(max_size=12)
    if origin is Literal:
        return st.sampled_from(typing.get_args(annotation))
    if origin in (Union, types.UnionType):
        return st.one_of(*(strategy(a) for a in typing.get_args(annotation)))
    if origin is tuple:
        items = typing.get_args(annotation)
        if len(items) == 2 and items[1] is Ellipsis:
            return st.lists(strategy(items[0]), max_size=4).map(tuple)
        return st.tuples(*(strategy(a) for a in items))
    if origin is dict:
        key, value = typing.get_args(annotation)
        return st.dictionaries(strategy(key), strategy(value), max_size=4)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return st.sampled_from(list(annotation))
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        fields = {name: strategy(a) for name, a in hints(annotation).items()}
        return st.builds(annotation, **fields)
    raise AssertionError(f"no strategy for {annotation!r}: can the codec read it?")


def test_every_event_class_is_in_the_codecs_registry() -> None:
    """The registry is `Event`'s subclasses: every event the core defines is there, under its
    own type, and nothing else is."""
    defined = {
        cls.EVENT_TYPE: cls
        for _, cls in inspect.getmembers(events, inspect.isclass)
        if issubclass(cls, Event) and cls is not Event
    }
    registry = codec.event_types()
    assert registry == defined
    assert len(set(registry)) == len(registry) and "" not in registry
    assert all(dataclasses.is_dataclass(cls) for cls in registry.values())
    assert {"table_ready", "hand_finished", "penalty"} <= set(registry)


@pytest.mark.parametrize("kind", sorted(codec.event_types()))
@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_event_type_decodes_to_itself_from_its_stored_record(
    kind: str, data: st.DataObject
) -> None:
    cls = codec.event_types()[kind]
    event = data.draw(strategy(cls))
    stored = codec.record(event, seq=data.draw(st.integers(1, 10**9)), ts=1.5, cause=None)
    text = json.dumps(stored, allow_nan=False)  # what the store and events.jsonl hold
    read = codec.decode_record(json.loads(text))
    assert read.event == event
    assert codec.decode(codec.encode(event)) == event
    assert stored["type"] == kind and stored["v"] == cls.VERSION >= 1


def test_every_stored_record_carries_its_version(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "store.db"))
    log = EventLog(store, "t/run")
    moved = PlayerMoved(player="a", from_table=1, from_seat=2, to_table=3, to_seat=4, stack=5,
                        reason="close")  # fmt: skip
    finished = HandFinished(table=1, hand=1, button=1, players=())
    log.append([finished, moved], ts=10.0)
    lines = store.read("t/run")
    store.close()
    assert [(r["seq"], r["type"], r["v"], r.get("cause")) for r in lines] == [
        (1, "hand_finished", 2, None),
        (2, "player_moved", 1, 1),
    ]
    assert [codec.decode(r) for r in lines] == [finished, moved]


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.jsonl")), ids=lambda p: p.stem)
def test_the_logs_release_1_wrote_still_read(path: Path) -> None:
    """Release 1 wrote no version: its records read as version 1, through every upcaster
    since; while a type is still at version 1 the codec writes its record back unchanged,
    with `v` added (DESIGN.md: existing fields keep their names and types)."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records and not any("v" in r for r in records)
    for stored in records:
        read = codec.decode_record(stored)
        assert (read.seq, read.ts, read.cause) == (stored["seq"], stored["ts"], stored.get("cause"))
        if type(read.event).VERSION == 1:
            again = codec.record(read.event, seq=read.seq, ts=read.ts, cause=read.cause)
            assert again == {**stored, "v": 1}


def test_old_versions_are_upcast_in_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were `table_opened` at version 3, its field first `number`, then `tbl`: the records of
    versions 1 and 2 read through the upcasters, one version at a time."""
    monkeypatch.setattr(TableOpened, "VERSION", 3)
    monkeypatch.setitem(codec.UPCASTERS, ("table_opened", 1), lambda f: {"tbl": f["number"]})
    monkeypatch.setitem(codec.UPCASTERS, ("table_opened", 2), lambda f: {"table": f["tbl"]})
    assert codec.decode({"type": "table_opened", "number": 4}) == TableOpened(table=4)
    assert codec.decode({"type": "table_opened", "v": 2, "tbl": 5}) == TableOpened(table=5)
    assert codec.encode(TableOpened(table=6)) == {"type": "table_opened", "v": 3, "table": 6}
    monkeypatch.delitem(codec.UPCASTERS, ("table_opened", 1))
    with pytest.raises(RecordError, match="table_opened: no upcaster from version 1"):
        codec.decode({"type": "table_opened", "number": 4})


@pytest.mark.parametrize(
    ("stored", "complaint"),
    [
        ({"type": "table_opened", "v": 2, "table": 1}, "version 2 was written by a newer release"),
        ({"type": "table_exploded", "table": 1}, "no event type 'table_exploded'"),
        ({"table": 1}, "a record without a type"),
        ({"type": "table_opened"}, "table_opened: field table is missing"),
        ({"type": "table_opened", "table": 1, "chairs": 9}, "no field chairs in TableOpened"),
        ({"type": "table_opened", "table": True}, r"table_opened.table: expected an int"),
        ({"type": "table_opened", "table": "1"}, r"table_opened.table: expected an int"),
        (
            {"type": "hand_finished", "table": 1, "hand": 2, "button": 1, "players": [{}]},
            r"hand_finished.players\[0\]: field player is missing",
        ),
        ({"type": "table_opened", "table": 1.0}, r"table_opened.table: expected an int"),
        ({"type": "tournament_resumed", "paused_seconds": None}, "expected a number"),
    ],
)
def test_what_the_codec_cannot_read_is_refused_naming_the_field(
    stored: dict[str, Any], complaint: str
) -> None:
    with pytest.raises(RecordError, match=complaint):
        codec.decode(stored)


def test_a_field_added_with_a_default_reads_old_records_without_an_upcaster() -> None:
    """`hand_finished` gained the table's timings after release 1 began: records without them
    read with the defaults."""
    old = {"type": "hand_finished", "table": 1, "hand": 2, "button": 1, "players": []}
    assert codec.decode(old) == HandFinished(table=1, hand=2, button=1, players=())


def test_an_envelope_that_is_not_one_is_refused() -> None:
    body = {"type": "table_opened", "table": 1}
    for envelope, complaint in [
        ({"seq": 0, "ts": 1.0}, "seq 0 is not a position"),
        ({"seq": 1}, "ts None is not a time"),
        ({"seq": 1, "ts": 1.0, "cause": "x"}, "cause 'x' is not a seq"),
    ]:
        with pytest.raises(RecordError, match=complaint):
            codec.decode_record({**envelope, **body})


def test_an_event_class_with_an_envelope_field_is_refused() -> None:
    @dataclasses.dataclass(frozen=True, kw_only=True)
    class Clash(Event):
        EVENT_TYPE: typing.ClassVar[str] = "test_clash"
        seq: int

    try:
        with pytest.raises(RecordError, match="fields the envelope uses"):
            codec.event_types()
    finally:
        Clash.EVENT_TYPE = ""  # out of the registry again (the class lives on)
    assert "test_clash" not in codec.event_types()


# The types DESIGN.md "Contracts" lists itself (events.jsonl); every other is in docs/EVENTS.md.
DESIGN_TYPES = frozenset(
    [
        "addon",
        "break_started",
        "button_assigned",
        "final_table",
        "hand_finished",
        "hand_voided",
        "level_started",
        "node_lost",
        "phase_started",
        "play_started",
        "player_eliminated",
        "player_moved",
        "player_qualified",
        "player_seated",
        "prize_awarded",
        "rebuy",
        "refund",
        "table_closed",
        "table_opened",
        "table_restarted",
        "tournament_cancelled",
        "tournament_finished",
        "tournament_started",
    ]
)


def test_every_event_type_is_in_the_contract() -> None:
    """DESIGN.md lists the first event types; docs/EVENTS.md, part of the same contract, every
    type added since with its version: a new type without its row fails here."""
    listed = (Path(__file__).resolve().parent.parent / "docs" / "EVENTS.md").read_text()
    missing = [
        kind
        for kind in codec.event_types()
        if kind not in DESIGN_TYPES and f"`{kind}`" not in listed
    ]
    assert not missing, f"event types in neither DESIGN.md nor docs/EVENTS.md: {missing}"
