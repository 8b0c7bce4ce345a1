"""binlogkit._record.record against dataclasses.dataclass on the same classes."""
import dataclasses
import pickle

import pytest

from binlogkit._record import FrozenInstanceError, field, fields, record, replace


def make(decorate, field_fn, **options):
    @decorate(**options)
    class Body:
        type_code: int
        name: bytes = b""
        items: list = field_fn(default_factory=list)
        plans: dict = field_fn(default_factory=dict, compare=False, repr=False)

        def size(self):
            return len(self.name)
    return Body


def pairs():
    return [(make(record, field, **r), make(dataclasses.dataclass, dataclasses.field, **d))
            for r, d in [({}, {"slots": True}), ({"slots": False}, {}),
                         ({"frozen": True, "slots": False}, {"frozen": True})]]


@pytest.fixture(params=["generic", "compiled"])
def init_mode(request, monkeypatch):
    """Records bind arguments generically for their first instances, then compile
    __init__: both must behave as a dataclass's."""
    import binlogkit._record as module
    monkeypatch.setattr(module, "COMPILE_AFTER", 10 ** 9 if request.param == "generic" else 1)
    return request.param


@pytest.mark.parametrize("ours,theirs", pairs())
def test_same_behaviour_as_a_dataclass(ours, theirs, init_mode):
    for args, kw in [((1,), {}), ((2, b"x"), {"items": [1]}), ((), {"type_code": 3, "plans": {1: 2}})]:
        a, b = ours(*args, **kw), theirs(*args, **kw)
        assert repr(a).replace("make.<locals>.", "") == repr(b).replace("make.<locals>.", "")
        assert [getattr(a, n) for n in fields(a)] == [getattr(b, f.name)
                                                       for f in dataclasses.fields(b)]
        assert a.size() == b.size()
    assert ours(1, b"a", plans={1: 1}) == ours(1, b"a", plans={2: 2})     # plans not compared
    assert ours(1) != ours(2) and ours(1) != theirs(1)
    assert ours(1).items is not ours(1).items                             # a fresh list each
    for bad_args, bad_kw in [((), {}), ((1,), {"nosuch": 2}), ((1, b"", [], {}, 5), {}),
                             ((1,), {"type_code": 1})]:
        with pytest.raises(TypeError):
            ours(*bad_args, **bad_kw)
        with pytest.raises(TypeError):
            theirs(*bad_args, **bad_kw)


def test_slots_by_default_and_unhashable_when_mutable(init_mode):
    Body = make(record, field)
    assert not hasattr(Body(1), "__dict__")
    with pytest.raises(AttributeError):
        Body(1).other = 2
    with pytest.raises(TypeError):
        hash(Body(1))


def test_frozen_is_immutable_and_hashable(init_mode):
    Body = make(record, field, frozen=True, slots=False)
    body = Body(1, b"n", items=())
    with pytest.raises(FrozenInstanceError):
        body.name = b"m"
    with pytest.raises(AttributeError):         # FrozenInstanceError is an AttributeError
        del body.name
    assert hash(body) == hash(Body(1, b"n", items=(), plans={5: 5}))


def test_replace_and_inheritance(init_mode):
    @record(slots=False)
    class Base:
        delimiter: bytes = b"/*!*/;"
        maps: dict = field(default_factory=dict)

    @record(slots=False)
    class State(Base):
        server_id: int = 0

    state = State(server_id=5)
    assert fields(State) == ("delimiter", "maps", "server_id")
    assert repr(state).endswith("State(delimiter=b'/*!*/;', maps={}, server_id=5)")
    other = replace(state, server_id=6)
    assert other.server_id == 6 and other.delimiter == b"/*!*/;" and other.maps == {}
    assert State.delimiter == b"/*!*/;"         # plain defaults stay on the class, as in dataclasses
    with pytest.raises(TypeError):
        replace(state, nosuch=1)


def test_a_field_without_default_after_defaults_is_an_error():
    with pytest.raises(TypeError):
        @record
        class Bad:
            a: int = 0
            b: int


def test_picklable_at_module_level():
    assert pickle.loads(pickle.dumps(Module(1, "x"))) == Module(1, "x")


@record
class Module:
    a: int
    b: str = ""


def test_tuple_record_behaves_as_a_namedtuple():
    import collections
    import copy

    from binlogkit._record import tuple_record

    class Ours(tuple_record("Zone", "gmtoff isdst abbrev")):
        __slots__ = ()

    class Theirs(collections.namedtuple("Zone", "gmtoff isdst abbrev")):
        __slots__ = ()

    for cls in (Ours, Theirs):
        a = cls(3600, 1, "CEST")
        assert cls(3600, isdst=1, abbrev="CEST") == a == (3600, 1, "CEST")
        assert (a.gmtoff, a.isdst, a.abbrev, a[2]) == (3600, 1, "CEST", "CEST")
        assert a._replace(isdst=0) == (3600, 0, "CEST") and type(a._replace()) is cls
        assert a._asdict() == {"gmtoff": 3600, "isdst": 1, "abbrev": "CEST"}
        assert cls._fields == ("gmtoff", "isdst", "abbrev")
        copied = copy.deepcopy(a)       # the pickle protocol (__getnewargs__); local classes don't pickle
        assert copied == a and type(copied) is cls and hash(a) == hash((3600, 1, "CEST"))
        with pytest.raises(AttributeError):
            a.gmtoff = 0
        with pytest.raises(AttributeError):
            a.other = 0
        with pytest.raises(TypeError):
            cls(1, 2)
        with pytest.raises(TypeError):
            cls(1, 2, 3, abbrev="x")
        with pytest.raises(ValueError):
            a._replace(other=1)
    assert repr(Ours(0, 0, "UTC")) == "Ours(gmtoff=0, isdst=0, abbrev='UTC')"
    assert repr(Theirs(0, 0, "UTC")) == "Theirs(gmtoff=0, isdst=0, abbrev='UTC')"


def test_a_record_compiles_its_init_after_its_first_instances():
    from binlogkit import _record

    @record
    class Lazy:
        a: int
        b: int = 2

    stub = Lazy.__dict__["__init__"]
    for _ in range(_record.COMPILE_AFTER - 1):
        assert Lazy(1).b == 2 and Lazy.__dict__["__init__"] is stub
    assert Lazy(1, 3) == Lazy(a=1, b=3)
    assert Lazy.__dict__["__init__"] is not stub
    with pytest.raises(TypeError):
        @record
        class Bad:
            a: int = 1
            b: int
