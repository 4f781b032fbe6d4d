"""Why a value put in a returned mapping is certainly not a tensor.

Produces ``ValueFact.not_tensor``. The tables are what a rule about non-tensor
values rests on, so they are kept apart and short: only expressions whose
result is a non-tensor whatever their operands (a literal, a display, ``len()``,
``.tolist()``, ``.shape``) are listed; anything that might be a tensor gives "".
"""

from __future__ import annotations

import ast

from ppaux_lint.summarize.syntax import dotted

# Calls whose result is certainly not a tensor, whatever their argument.
_NON_TENSOR_CALLS = {
    "len": "an int (len())", "str": "a str", "repr": "a str", "int": "an int", "float": "a float",
    "bool": "a bool", "complex": "a complex", "list": "a list", "tuple": "a tuple", "dict": "a dict",
    "set": "a set", "frozenset": "a frozenset", "range": "a range", "bytes": "bytes",
}
# Methods whose result is certainly not a tensor, whatever their receiver.
_NON_TENSOR_METHODS = {
    "tolist": "a Python list (.tolist())", "item": "a Python number (.item())",
    "numpy": "a NumPy array (.numpy())", "size": "a torch.Size or int (.size())", "dim": "an int (.dim())",
    "numel": "an int (.numel())", "data_ptr": "an int (.data_ptr())", "keys": "a dict view (.keys())",
    "values": "a dict view (.values())", "items": "a dict view (.items())",
}
_NON_TENSOR_ATTRIBUTES = frozenset({"shape", "dtype", "device", "ndim"})
_DISPLAYS = {ast.List: "a list", ast.Tuple: "a tuple", ast.Set: "a set", ast.Dict: "a dict",
             ast.ListComp: "a list", ast.SetComp: "a set", ast.DictComp: "a dict",
             ast.GeneratorExp: "a generator", ast.Lambda: "a function"}


def not_tensor(value: ast.expr) -> str:
    """Why a value is certainly not a tensor, or "" when it might be one."""
    if isinstance(value, ast.Constant):
        if value.value is None or isinstance(value.value, bool):
            return f"the constant {value.value}"
        if isinstance(value.value, (str, bytes)):
            return "a string literal"
        return "a number literal" if isinstance(value.value, (int, float, complex)) else "a constant"
    if isinstance(value, ast.JoinedStr):
        return "a string literal"
    for kind, reason in _DISPLAYS.items():
        if isinstance(value, kind):
            return reason
    if isinstance(value, ast.Call):
        callee = dotted(value.func)
        if callee in _NON_TENSOR_CALLS:
            return _NON_TENSOR_CALLS[callee]
        if isinstance(value.func, ast.Attribute) and value.func.attr in _NON_TENSOR_METHODS:
            return _NON_TENSOR_METHODS[value.func.attr]
    if isinstance(value, ast.Attribute) and value.attr in _NON_TENSOR_ATTRIBUTES:
        return f"a tensor's .{value.attr}, not a tensor"
    return ""
