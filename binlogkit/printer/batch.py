"""Received events printed in batches: `print -R` of both flavors.

Events that arrive one by one are walked together by the flavor's event loop
(and so by the C row-statement printer), in batches cut where no row statement
is open; with a limit of 1 byte (--stop-never) each event is shown as it comes.
"""

BATCH_BYTES = 1 << 18


class EventBatch:
    """`open_types`: the event types inside a row statement of the flavor;
    `loop_args`: what its printer's event_loop takes after the position."""

    def __init__(self, printer, reader, limit, open_types, loop_args=()):
        self.printer, self.reader, self.limit = printer, reader, limit
        self.open_types, self.loop_args = open_types, loop_args
        self.events, self.size, self.start = [], 0, 0

    def add(self, data, pos):
        if not self.events:
            self.start = pos
        self.events.append(data)
        self.size += len(data)
        if self.size >= self.limit and data[4] not in self.open_types:
            self.flush()

    def flush(self):
        if not self.events:
            return
        data = self.events[0] if len(self.events) == 1 else b"".join(self.events)
        self.events, self.size = [], 0
        self.reader.hold(data, self.start)
        self.printer.event_loop(self.reader, self.start, *self.loop_args)
        self.reader.hold(b"", self.start + len(data))
        self.shown()

    def shown(self):
        """What was printed goes out now when each event is shown as it comes."""
        if self.limit == 1:
            self.printer.flush()
            self.printer.out.flush()
