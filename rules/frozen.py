"""A faster constructor for the frozen value classes the state machine builds at every action.

``@dataclass(frozen=True, slots=True)`` writes an ``__init__`` that sets each field
through ``object.__setattr__`` (the class's own ``__setattr__`` refuses), several times
slower than setting a slot: an action and its events cost microseconds before any rule
runs. :func:`direct_init` replaces that ``__init__`` by one that fills the slots through
their descriptors. Nothing else changes: the class stays frozen (assigning a field
still raises ``FrozenInstanceError``), and its fields, equality, hash, repr, pickling
and ``dataclasses.replace`` are the dataclass's own.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

_T = TypeVar("_T")


def direct_init(cls: type[_T]) -> type[_T]:
    """Give the frozen slots dataclass ``cls`` an ``__init__`` that sets its slots directly.

    Raises ``TypeError`` for a class it does not fit: not a frozen dataclass with slots,
    or with a field that has a default factory or is left out of ``__init__``, or a
    ``__post_init__`` (those need the dataclass's own constructor). Plain defaults are
    kept.
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass with slots")
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if hasattr(cls, "__post_init__") or any(
            not f.init or f.default_factory is not dataclasses.MISSING for f in fields):
        raise TypeError(f"{cls.__name__} needs the dataclass constructor")
    names = [f.name for f in fields]
    namespace: dict[str, Any] = {f"_set_{name}": cls.__dict__[name].__set__ for name in names}
    signature = []
    for f in fields:
        if f.default is dataclasses.MISSING:
            signature.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            signature.append(f"{f.name}=_default_{f.name}")
    body = "".join(f"    _set_{name}(self, {name})\n" for name in names) or "    pass\n"
    # The names are the class's field names (identifiers): the source is fixed by them.
    # Compiled first, then run as a code object: CPython marks a KeyboardInterrupt that
    # escapes ``exec`` of a string as unhandled at exit (a death by SIGINT) even when the
    # program handles it.
    source = f"def __init__(self, {', '.join(signature)}):\n{body}"
    exec(compile(source, f"<frozen {cls.__qualname__}>", "exec"), namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(cls.__init__.__annotations__)
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
