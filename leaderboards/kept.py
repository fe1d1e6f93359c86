"""What a process keeps of what it read, bounded by size, the least recently used dropped first.

Kept in the process, not a shared cache: objects and arrays to use, not text
to send, which unpickling would cost much of reading them again. Callers key
what they keep by the versions it was read at, so a change is never served
from what was kept before it. Threads share what is kept and only read it.
"""

import threading
from collections import OrderedDict


class Kept:
    """Up to `max_size` (rows, numbers: the caller's unit) of entries; one larger is never kept."""

    def __init__(self, max_size):
        self.max_size = max_size
        self._lock = threading.Lock()
        self._entries = OrderedDict()  # key -> (size, data)
        self._size = 0

    def get(self, key):
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, key, data, size):
        if size > self.max_size:
            return
        with self._lock:
            former = self._entries.pop(key, None)
            if former is not None:
                self._size -= former[0]
            self._entries[key] = (size, data)
            self._size += size
            while self._size > self.max_size:
                _, (dropped, _) = self._entries.popitem(last=False)
                self._size -= dropped

    def clear(self):
        with self._lock:
            self._entries.clear()
            self._size = 0
