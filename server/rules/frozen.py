"""Quicker construction of the engine's frozen, slotted dataclasses (events, options).

A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``
(its own ``__setattr__`` refuses), the slow, generic path; :func:`quick_init` swaps in one
that writes each slot through its member descriptor.  Same parameters, defaults and values;
the instances stay frozen (assignment still raises), equal, hashable and printable as before.
Only for dataclasses with ``slots=True``, no ``__post_init__``, no ``InitVar`` and no field
left out of ``__init__``.

:func:`maker` goes further for the engine's hottest constructions (a turn's options, the
events of every action): a plain function with the class's parameters that fills an instance
of a writable twin class (the same slots, so the same memory layout) with ordinary attribute
stores, then turns it into an instance of the frozen class (``__class__`` assignment, allowed
between classes of the same layout).  It skips ``type.__call__`` and the frozen class's
``__setattr__`` altogether; the object it returns is exactly the one the class would build.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def _signature(cls: type, ns: dict[str, Any]) -> list[str]:
    """The ``__init__`` parameters of the dataclass ``cls`` (defaults bound in ``ns``)."""
    assert "__slots__" in cls.__dict__ and not hasattr(cls, "__post_init__")
    params = []
    for f in dataclasses.fields(cls):
        assert f.init and not f.kw_only and f.default_factory is dataclasses.MISSING
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            ns[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
    return params


def quick_init(cls: type[T]) -> type[T]:
    """Replace the frozen dataclass ``cls``'s ``__init__`` (see the module docstring)."""
    ns: dict[str, Any] = {}
    params = _signature(cls, ns)
    body = []
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        ns[f"_s_{f.name}"] = cls.__dict__[f.name].__set__  # the slot's member descriptor
        body.append(f"    _s_{f.name}(self, {f.name})\n")
    src = f"def __init__(self, {', '.join(params)}) -> None:\n{''.join(body)}"
    exec(src, ns)  # noqa: S102 (the source is built from the class's own field names)
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def maker(cls: type[T]) -> type[T]:
    """A function building ``cls`` instances from ``cls``'s own parameters, faster than
    calling ``cls`` (see the module docstring).  It is typed as ``cls`` so that its calls are
    checked against ``cls``'s parameters; use it only to build instances."""
    twin = type(f"_Writable{cls.__name__}", (), {"__slots__": cls.__dict__["__slots__"]})
    ns: dict[str, Any] = {"_twin": twin, "_cls": cls}
    params = _signature(cls, ns)
    body = "".join(f"    new.{f.name} = {f.name}\n"
                   for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    src = (f"def make_{cls.__name__}({', '.join(params)}):\n    new = _twin()\n{body}"
           "    new.__class__ = _cls\n    return new\n")
    exec(src, ns)  # noqa: S102 (the source is built from the class's own field names)
    make: type[T] = ns[f"make_{cls.__name__}"]
    return make
