"""Which decoded JSON values the site can serve, and why the others cannot.

Python's `json` reads more than the site can write back or show: `NaN` and
`Infinity` (not JSON, though `json.loads` accepts them), `1e999` (read as
infinity), strings holding a lone surrogate (no UTF-8 encodes one), and
nesting deep enough that copying, rendering or re-encoding the value runs
out of recursion. A value stored before the loader refused these, or written
by hand, must not take a page down; this is the test every stored block
passes before a page, an export or the admin sees it (see OrderedJSONField).
"""

import math
import re

# Deeper than any page file needs (the seed's deepest block is 4 levels), and
# far below the depth at which copying or re-encoding fails inside a request.
MAX_DEPTH = 100

_SURROGATE = re.compile("[\ud800-\udfff]")


def problem(value):
    """Why `value` cannot be served, or None when it can.

    Walks the value with a stack rather than recursion, so a value nested
    past Python's limit is measured, not crashed on.
    """
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            if depth >= MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels"
            for key, inner in item.items():
                pending.append((key, depth + 1))
                pending.append((inner, depth + 1))
        elif isinstance(item, list):
            if depth >= MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels"
            pending.extend((inner, depth + 1) for inner in item)
        elif isinstance(item, float) and not math.isfinite(item):
            return f"a number that is not finite ({item!r})"
        elif isinstance(item, str) and not item.isascii() and _SURROGATE.search(item):
            return "a string holding a lone surrogate, which no UTF-8 text can carry"
    return None
