"""The registry's decoder guard: each call reaches the module's function of the moment."""

from __future__ import annotations

import types

import pytest

from tbkit.plugins.guarded import GuardedDecoder


def _module(**functions: object) -> types.ModuleType:
    module = types.ModuleType("fake_decoder")
    for name, function in functions.items():
        setattr(module, name, function)
    return module


def test_a_function_replaced_in_the_module_is_the_one_called() -> None:
    module = _module(decode=lambda array: "first")
    guard = GuardedDecoder("fake", module)
    decode = guard.decode
    assert decode(0) == "first"
    module.decode = lambda array: "second"
    assert guard.decode(0) == "second" and decode(0) == "second"


def test_a_function_the_module_gets_later_is_guarded_too() -> None:
    module = _module()
    guard = GuardedDecoder("fake", module)
    assert not hasattr(guard, "check")

    def check(content: bytes) -> None:
        raise KeyError(content)

    module.check = check
    with pytest.raises(ValueError, match=r"the fake decoder failed \(KeyError"):
        guard.check(b"x")


def test_value_errors_pass_and_others_become_value_errors() -> None:
    def decode(array: object) -> object:
        raise (ValueError("own message") if array == "value" else RecursionError())

    guard = GuardedDecoder("fake", _module(decode=decode, migrate=decode))
    with pytest.raises(ValueError, match=r"^own message$"):
        guard.decode("value")
    with pytest.raises(ValueError, match=r"the fake decoder failed \(RecursionError"):
        guard.migrate("other")


def test_a_function_set_on_the_guard_shadows_the_module() -> None:
    guard = GuardedDecoder("fake", _module(decode=lambda array: "module"))
    guard.decode = lambda array: "patched"  # type: ignore[method-assign]
    assert guard.decode(0) == "patched"
