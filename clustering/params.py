"""Parameter checks in scikit-learn's style: each parameter lists the values it allows
(``_parameter_constraints``), and a value outside them is a clear error at fit time."""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any, ClassVar, Self


class InvalidParameterError(ValueError, TypeError):
    """A parameter's value is not one it allows (scikit-learn raises the same kind)."""


class NotFittedError(ValueError, AttributeError):
    """The model is used before it was fitted or loaded."""


@dataclass(frozen=True, slots=True)
class Interval:
    """Numbers of ``kind`` (``Integral`` or ``Real``) from ``low`` to ``high`` (None:
    unbounded); ``closed`` says which ends belong: "both", "left", "right", "neither"."""

    kind: type
    low: float | None
    high: float | None
    closed: str = "both"

    def allows(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, self.kind):
            return False
        lo = -math.inf if self.low is None else self.low
        hi = math.inf if self.high is None else self.high
        above = value >= lo if self.closed in ("both", "left") else value > lo
        below = value <= hi if self.closed in ("both", "right") else value < hi
        return above and below

    def __str__(self) -> str:
        kind = "an int" if self.kind is Integral else "a float"
        left = "[" if self.closed in ("both", "left") and self.low is not None else "("
        right = "]" if self.closed in ("both", "right") and self.high is not None else ")"
        lo = "-inf" if self.low is None else self.low
        hi = "inf" if self.high is None else self.high
        return f"{kind} in the range {left}{lo}, {hi}{right}"


@dataclass(frozen=True, slots=True)
class InstancesOf:
    """Instances of ``kind``; ``sequence``: a list or tuple of them."""

    kind: type
    sequence: bool = False

    def allows(self, value: Any) -> bool:
        if self.sequence:
            return isinstance(value, list | tuple) and all(isinstance(v, self.kind) for v in value)
        if self.kind is not bool and isinstance(value, bool):
            return False
        return isinstance(value, self.kind)

    def __str__(self) -> str:
        name = self.kind.__name__
        return f"a list or tuple of {name}" if self.sequence else f"an instance of {name!r}"


def _allows(rule: Any, value: Any) -> bool:
    if rule is None or isinstance(rule, str):
        return value is None if rule is None else isinstance(value, str) and value == rule
    return bool(rule.allows(value))


def _describe(rule: Any) -> str:
    return "None" if rule is None else repr(rule) if isinstance(rule, str) else str(rule)


def validate_params(
    owner: str, params: Mapping[str, Any], constraints: Mapping[str, Sequence[Any]]
) -> None:
    """Raise :class:`InvalidParameterError` naming the first parameter whose value
    none of its rules (an Interval, an InstancesOf, a literal string or None) allows."""
    for name, rules in constraints.items():
        value = params[name]
        if any(_allows(rule, value) for rule in rules):
            continue
        described = [_describe(r) for r in rules]
        allowed = (
            ", ".join(described[:-1]) + " or " + described[-1] if described[1:] else (described[0])
        )
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} must be {allowed}. Got {value!r} instead."
        )


class ParamsMixin:
    """``get_params``, ``set_params`` and a short ``repr`` from the parameters of
    ``__init__`` (stored there as given), and their check against the class's
    ``_parameter_constraints``: what scikit-learn's ``BaseEstimator`` gives, without
    importing scikit-learn (``sklearn.base.clone`` works on it)."""

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {}

    @classmethod
    def _param_names(cls) -> list[str]:
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> Self:
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                    f"Valid parameters are: {valid!r}."
                )
            setattr(self, name, value)
        return self

    def _validate_params(self) -> None:
        validate_params(type(self).__name__, self.get_params(), self._parameter_constraints)

    def __repr__(self) -> str:
        defaults = inspect.signature(type(self).__init__).parameters
        shown = [
            f"{name}={value!r}"
            for name, value in self.get_params().items()
            if value is not defaults[name].default and value != defaults[name].default
        ]
        return f"{type(self).__name__}({', '.join(shown)})"
