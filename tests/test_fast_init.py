"""``eqsat.fast_init``: the direct ``__init__`` of bulk-made frozen dataclasses gives the same
instances as the dataclass's own."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from eqsat.egraph.view import ENode
from eqsat.fast_init import fast_init
from eqsat.ir import Node, Type
from eqsat.milp import Cand


@fast_init
@dataclasses.dataclass(frozen=True, slots=True)
class _Slotted:
    a: int
    b: tuple[int, ...]


@fast_init
@dataclasses.dataclass(frozen=True)
class _Plain:
    a: int
    b: str


@dataclasses.dataclass(frozen=True, slots=True)
class _Reference:
    a: int
    b: tuple[int, ...]


@pytest.mark.parametrize("cls", [_Slotted, _Plain])
def test_instances_are_the_dataclass_ones(cls: type) -> None:
    x = cls(1, (2,)) if cls is _Slotted else cls(1, "b")
    y = cls(a=1, b=(2,)) if cls is _Slotted else cls(a=1, b="b")
    assert x == y and hash(x) == hash(y)
    assert repr(x).startswith(cls.__name__ + "(a=1, b=")
    assert pickle.loads(pickle.dumps(x)) == x
    assert copy.copy(x) == x
    assert dataclasses.replace(x, a=3).a == 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.a = 5
    with pytest.raises(TypeError):
        cls(1)


def test_the_init_is_replaced() -> None:
    # the dataclass's own ``__init__`` goes through ``object.__setattr__`` per field
    for cls in (Node, Type, ENode, Cand, _Slotted, _Plain):
        assert "__setattr__" not in cls.__init__.__code__.co_names, cls
    assert "__setattr__" in _Reference.__init__.__code__.co_names


def test_project_classes_behave_as_before() -> None:
    t = Type((4,), "i16", True)
    n = Node("add", (1, 2), (), t)
    assert n == Node(op="add", args=(1, 2), attrs=(), type=Type((4,), "i16", True))
    assert n.type.slots == 4
    e = ENode("Add", 3, (1, 2), (), True)
    assert e == ENode("Add", 3, (1, 2), (), True) and {e: 1}[ENode("Add", 3, (1, 2), (), True)] == 1
    c = Cand(1, 2.0, (3,), "max", 0.0, 7)
    assert dataclasses.replace(c, cost=1.0) == Cand(1, 1.0, (3,), "max", 0.0, 7)


def test_refuses_what_it_cannot_keep() -> None:
    with pytest.raises(TypeError, match="not a frozen dataclass"):
        @fast_init
        @dataclasses.dataclass
        class _Mutable:
            a: int

    with pytest.raises(TypeError, match="defaults"):
        @fast_init
        @dataclasses.dataclass(frozen=True)
        class _Defaults:
            a: int = 0

    with pytest.raises(TypeError, match="__post_init__"):
        @fast_init
        @dataclasses.dataclass(frozen=True)
        class _Post:
            a: int

            def __post_init__(self) -> None:
                pass


def test_pickled_as_a_call_with_the_fields() -> None:
    t = Type((4,), "i16", True)
    n = Node("add", (1, 2), (), t)
    assert n.__reduce__() == (Node, ("add", (1, 2), (), t))
    assert ENode("Add", 3, (1, 2), (), True).__reduce__() == (ENode, ("Add", 3, (1, 2), (), True))
    c = Cand(1, 2.0, (3,), "max", 0.0, 7)
    assert pickle.loads(pickle.dumps(c)) == c
    # one type shared by many nodes is pickled once (the pickler's memo)
    nodes = [Node("extract", (0,), (k,), Type((), "i16", True)) for k in range(50)]
    s = t.scalar()
    shared = [Node("extract", (0,), (k,), s) for k in range(50)]
    back = pickle.loads(pickle.dumps(shared))
    assert back == nodes and len({id(x.type) for x in back}) == 1
