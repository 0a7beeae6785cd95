"""A quicker ``__init__`` for the engine's frozen, slotted dataclasses (events, options).

A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``
(its own ``__setattr__`` refuses), the slow, generic path; :func:`quick_init` swaps in one
that writes each slot through its member descriptor.  Same parameters, defaults and values;
the instances stay frozen (assignment still raises), equal, hashable and printable as before.
Only for dataclasses with ``slots=True``, no ``__post_init__``, no ``InitVar`` and no field
left out of ``__init__``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """Replace the frozen dataclass ``cls``'s ``__init__`` (see the module docstring)."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    assert "__slots__" in cls.__dict__ and not hasattr(cls, "__post_init__")
    ns: dict[str, Any] = {}
    params, body = [], []
    for f in fields:
        assert f.init and not f.kw_only and f.default_factory is dataclasses.MISSING
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            ns[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
        ns[f"_s_{f.name}"] = cls.__dict__[f.name].__set__  # the slot's member descriptor
        body.append(f"    _s_{f.name}(self, {f.name})\n")
    src = f"def __init__(self, {', '.join(params)}) -> None:\n{''.join(body)}"
    exec(src, ns)  # noqa: S102 (the source is built from the class's own field names)
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
