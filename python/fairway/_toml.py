"""A scenario given as a dict, written as TOML text for fairway to read.

Only what scenario files use: tables, arrays of tables (`link`, `flow`), and values that are
strings, numbers, booleans or arrays of them.
"""

import json
import math

# Arrays and inline tables nested deeper than this are refused: no scenario key needs more
# than a few levels, and Python's own limit would end the conversion with a RecursionError.
MAX_DEPTH = 32


def value(v, where="value", depth=0):
    """One TOML value: a string, a number, a boolean, or an array (inline tables for dicts)."""
    if depth > MAX_DEPTH:
        raise ValueError(f"{where}: nested deeper than {MAX_DEPTH} levels")
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        # TOML's integers are 64-bit (TOML 1.0, "Integer").
        if not -(2**63) <= v < 2**63:
            raise ValueError(f"{where}: {v} is beyond TOML's 64-bit integers")
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{where}: {v} is not a number a scenario can hold")
        return repr(v)
    if isinstance(v, str):
        # A JSON string is a TOML basic string (the same escapes), but for the characters JSON
        # leaves raw and TOML does not allow: DEL and the C1 controls are escaped by
        # ensure_ascii, with every other non-ASCII character.
        return json.dumps(v, ensure_ascii=True)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x, where, depth + 1) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key(k)} = {value(x, where + '.' + str(k), depth + 1)}" for k, x in v.items()) + " }"
    raise TypeError(f"{where}: {type(v).__name__} is not a TOML value (a string, number, boolean, list or dict)")


def key(k):
    k = str(k)
    if k and all(c.isalnum() and c.isascii() or c in "-_" for c in k):
        return k
    return json.dumps(k, ensure_ascii=True)


def dumps(scenario):
    """The TOML text of a scenario dict: scalars first, then each table, then each array of tables."""
    if not isinstance(scenario, dict):
        raise TypeError(f"a scenario dict, not {type(scenario).__name__}")
    if any(not isinstance(k, str) for k in scenario):
        bad = next(k for k in scenario if not isinstance(k, str))
        raise TypeError(f"a scenario's keys are strings, not {type(bad).__name__} {bad!r:.60}")
    lines = []
    tables = []
    for k, v in scenario.items():
        if isinstance(v, dict):
            tables.append((k, v, False))
        elif isinstance(v, (list, tuple)) and v and all(isinstance(x, dict) for x in v):
            tables.append((k, v, True))
        else:
            lines.append(f"{key(k)} = {value(v, str(k))}")
    for k, v, many in tables:
        for i, t in enumerate(v if many else [v]):
            lines.append("")
            lines.append(f"[[{key(k)}]]" if many else f"[{key(k)}]")
            where = f"{k}[{i}]" if many else str(k)
            for kk, vv in t.items():
                lines.append(f"{key(kk)} = {value(vv, where + '.' + str(kk))}")
    return "\n".join(lines) + "\n"
