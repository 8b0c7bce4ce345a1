"""Record classes (`@record`): what binlogkit used `@dataclass` for, at a fraction of
the import cost.

`binlogkit print` is often run once per small file, so its start-up counts.  The
dataclasses module imports inspect (and with it ast, dis, tokenize) and spends
~0.3 ms per class; the event bodies, table maps and print state are ~40 classes.
`record` generates only `__init__` (one small compile per class, once it has made
COMPILE_AFTER instances with a generic one; `__repr__`, `__eq__` and `__hash__` are
shared functions over the class's field names), with the same semantics for what
binlogkit uses:

    @record                      # __slots__ by default; record(slots=False) keeps a __dict__
    class GtidBody:
        seq_no: int
        domain_id: int = 0
        plans: dict = field(default_factory=dict, compare=False, repr=False)

Fields are the class's annotations in order, after those of record bases;
defaults and `field(default_factory=...)` as in dataclasses; `frozen=True`
makes instances immutable and hashable; `eq` compares the `compare` fields of
two instances of the same class; a mutable record is unhashable, as a
dataclass is.  `replace(obj, **changes)` is dataclasses.replace, `fields(cls)`
the field names.  tests/test_record.py holds the two side by side.
"""
from operator import attrgetter, itemgetter

__all__ = ["record", "field", "replace", "fields", "FrozenInstanceError", "tuple_record"]

_MISSING = object()


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record."""


class field:
    """A field's options: default, default_factory, and whether eq/repr use it."""
    __slots__ = ("default", "default_factory", "compare", "repr")

    def __init__(self, *, default=_MISSING, default_factory=_MISSING, compare=True, repr=True):
        if default is not _MISSING and default_factory is not _MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.default, self.default_factory = default, default_factory
        self.compare, self.repr = compare, repr


def fields(cls_or_obj):
    """The field names, in order."""
    return cls_or_obj.__record_fields__


def replace(obj, **changes):
    """A copy of `obj` with `changes` (dataclasses.replace)."""
    values = {name: getattr(obj, name) for name in obj.__record_fields__}
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field(s) {', '.join(sorted(unknown))}")
    values.update(changes)
    return type(obj)(**values)


def record(cls=None, *, frozen=False, slots=True):
    """Class decorator (usable bare or with options)."""
    def wrap(cls):
        return _build(cls, frozen, slots)
    return wrap if cls is None else wrap(cls)


def _collect(cls):
    """[(name, field)] of the record bases, then of `cls`'s own annotations."""
    specs = {}
    for base in reversed(cls.__mro__[1:]):
        specs.update(getattr(base, "__record_specs__", {}))
    for name in cls.__dict__.get("__annotations__", {}):
        value = cls.__dict__.get(name, _MISSING)
        specs[name] = value if isinstance(value, field) else field(default=value)
    return specs


def _key(names):
    """obj -> the tuple of its `names` (attrgetter gives a bare value for one name)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _repr(self):
    values = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_shown__)
    return f"{type(self).__qualname__}({values})"


def _eq(self, other):
    if other.__class__ is self.__class__:
        return self.__record_key__(self) == other.__record_key__(other)
    return NotImplemented


def _hash(self):
    return hash(self.__record_key__(self))


def _frozen_setattr(self, name, value):
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name):
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _init_source(specs, frozen, env):
    """`__init__`'s source: the only generated method (the hot one); the field order
    was checked when the class was built (_check_order)."""
    params, body = [], []
    for name, spec in specs.items():
        if spec.default is not _MISSING:
            env[f"_d_{name}"] = spec.default
            params.append(f"{name}=_d_{name}")
            value = name
        elif spec.default_factory is not _MISSING:
            env[f"_f_{name}"] = spec.default_factory
            params.append(f"{name}=_MISSING")
            value = f"_f_{name}() if {name} is _MISSING else {name}"
        else:
            params.append(name)
            value = name
        body.append(f"    _setattr(self, {name!r}, {value})" if frozen
                    else f"    self.{name} = {value}")
    return "\n".join([f"def __init__(self, {', '.join(params)}):", *(body or ["    pass"])])


def _compile_init(specs, frozen, qualname):
    env = {"_MISSING": _MISSING, "_setattr": object.__setattr__}
    exec(_init_source(specs, frozen, env), env)     # noqa: S102  (generated here, as dataclasses does)
    init = env["__init__"]
    init.__qualname__ = f"{qualname}.__init__"
    return init


COMPILE_AFTER = 16      # instances a record makes with the generic __init__ before compiling one


def _lazy_init(specs, frozen, qualname):
    """An `__init__` that binds its arguments generically for the class's first
    COMPILE_AFTER instances, then compiles the real one and puts it in its place: a
    small run compiles no record (start-up counts), a long one gets the fast one."""
    def __init__(self, *args, **kwargs):
        made[0] += 1
        if made[0] < COMPILE_AFTER:
            _generic_init(self, specs, frozen, qualname, args, kwargs)
            return
        init = _compile_init(specs, frozen, qualname)
        owner[0].__init__ = init
        init(self, *args, **kwargs)
    owner, made = [None], [0]
    __init__.__qualname__ = f"{qualname}.__init__"
    return __init__, owner


def _generic_init(self, specs, frozen, qualname, args, kwargs):
    """What the generated __init__ does, over the specs (the same errors)."""
    if len(args) > len(specs):
        raise TypeError(f"{qualname}.__init__() takes {len(specs) + 1} positional arguments "
                        f"but {len(args) + 1} were given")
    values = dict(zip(specs, args))
    for name, value in kwargs.items():
        if name not in specs:
            raise TypeError(f"{qualname}.__init__() got an unexpected keyword argument {name!r}")
        if name in values:
            raise TypeError(f"{qualname}.__init__() got multiple values for argument {name!r}")
        values[name] = value
    missing = [name for name, spec in specs.items() if name not in values
               and spec.default is _MISSING and spec.default_factory is _MISSING]
    if missing:
        raise TypeError(f"{qualname}.__init__() missing {len(missing)} required argument(s): "
                        + ", ".join(repr(name) for name in missing))
    set_field = object.__setattr__ if frozen else setattr
    for name, spec in specs.items():
        if name in values:
            value = values[name]
        elif spec.default is not _MISSING:
            value = spec.default
        else:
            value = spec.default_factory()
        set_field(self, name, value)


def _check_order(specs):
    """A field without a default after one with: the TypeError dataclasses raises at
    class creation."""
    seen_default = False
    for name, spec in specs.items():
        if spec.default is not _MISSING or spec.default_factory is not _MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {name!r} follows default argument")


def _build(cls, frozen, slots):
    specs = _collect(cls)
    names = tuple(specs)
    _check_order(specs)
    init, owner = _lazy_init(specs, frozen, cls.__qualname__)
    attrs = {key: value for key, value in cls.__dict__.items()
             if key not in names and key not in ("__dict__", "__weakref__")}
    attrs.update(__init__=init, __repr__=_repr, __eq__=_eq, __record_fields__=names,
                 __record_specs__=specs, __match_args__=names,
                 __record_shown__=tuple(n for n in names if specs[n].repr),
                 __record_key__=staticmethod(_key([n for n in names if specs[n].compare])))
    if frozen:
        attrs.update(__setattr__=_frozen_setattr, __delattr__=_frozen_delattr, __hash__=_hash)
    else:
        attrs["__hash__"] = None
    if not slots:       # as dataclasses: plain defaults stay readable on the class
        attrs.update({n: spec.default for n, spec in specs.items()
                      if n in cls.__dict__ and spec.default is not _MISSING})
    else:
        inherited = set()
        for base in cls.__mro__[1:]:
            inherited.update(getattr(base, "__slots__", ()))
        attrs["__slots__"] = tuple(n for n in names if n not in inherited)
    built = owner[0] = type(cls)(cls.__name__, cls.__bases__, attrs)
    return built


def tuple_record(typename, field_names, defaults=()):
    """A base class like collections.namedtuple(typename, field_names, defaults=...), for
    the tuples `print` makes at start-up (collections, or typing for NamedTuple, and the
    class source namedtuple compiles cost it milliseconds): fields by name and index,
    positional or keyword construction, defaults for the last fields, `_fields`,
    `_field_defaults`, `_replace`, `_asdict`, the same repr, pickling."""
    names = tuple(field_names.replace(",", " ").split())
    defaults = tuple(defaults)
    if len(defaults) > len(names):
        raise TypeError("got more default values than field names")
    field_defaults = dict(zip(names[len(names) - len(defaults):], defaults))
    required = len(names) - len(defaults)

    def __new__(cls, *args, **kwargs):
        if kwargs:
            args = _bind_tuple(typename, names, args, kwargs, field_defaults)
        elif len(args) != len(names):
            if not required <= len(args) < len(names):
                raise TypeError(f"{typename}() takes {len(names)} arguments ({len(args)} given)")
            args += defaults[len(args) - required:]
        return tuple.__new__(cls, args)

    namespace = {
        "__slots__": (), "__new__": __new__, "_fields": names, "__match_args__": names,
        "_field_defaults": field_defaults,
        "__repr__": _tuple_repr, "_replace": _tuple_replace, "_asdict": _tuple_asdict,
        "__getnewargs__": _tuple_getnewargs,
    }
    for index, name in enumerate(names):
        namespace[name] = property(itemgetter(index), doc=f"Alias for field number {index}")
    return type(typename, (tuple,), namespace)


def _bind_tuple(typename, names, args, kwargs, field_defaults):
    if len(args) > len(names):
        raise TypeError(f"{typename}() takes {len(names)} arguments ({len(args)} given)")
    values = list(args)
    for name in names[len(args):]:
        if name in kwargs:
            values.append(kwargs.pop(name))
        elif name in field_defaults:
            values.append(field_defaults[name])
        else:
            raise TypeError(f"{typename}() missing argument {name!r}")
    if kwargs:
        raise TypeError(f"{typename}() got unexpected or repeated argument(s) {sorted(kwargs)}")
    return values


def _tuple_repr(self):
    values = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
    return f"{type(self).__name__}({values})"


def _tuple_replace(self, **changes):
    values = [changes.pop(name, value) for name, value in zip(self._fields, self)]
    if changes:
        raise ValueError(f"Got unexpected field names: {list(changes)!r}")
    return type(self)(*values)


def _tuple_asdict(self):
    return dict(zip(self._fields, self))


def _tuple_getnewargs(self):
    return tuple(self)
