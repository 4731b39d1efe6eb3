"""Players and their outboxes.

A :class:`Player` outlives its connections: it has a server-wide id, a name and a secret
token that brings it back after a dropped connection (the server keeps only the token's
digest: :mod:`.tokens`). While connected it has an
:class:`Outbox`, the bounded queue of messages waiting to be written to its socket.
Everything here runs in the server's one trio thread, so no locks are needed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from rummyhall.protocol import MAX_SERVER_FRAME, Message, TokenBucket, encode_message

from .names import name_key
from .tokens import digest, matches, new_token


class Prepared:
    """Push messages encoded once, for many connections (table updates, events, turns).

    Only messages a server may push to any connection in the READY state are prepared;
    they take one place in an outbox, and their bytes are written as they are.
    """

    __slots__ = ("charged", "data", "messages", "work")

    def __init__(self, *messages: Message) -> None:
        self.messages = messages
        self.charged = False  # a reply for one connection: its size costs that one's rate
        self.work = 0  # rate tokens it costs besides its size (a record page's reading)
        if len(messages) == 1:
            self.data = encode_message(messages[0].to_wire(), MAX_SERVER_FRAME)
        else:
            self.data = b"".join(encode_message(m.to_wire(), MAX_SERVER_FRAME)
                                 for m in messages)

    @classmethod
    def answer(cls, *messages: Message, work: int = 0) -> Prepared:
        """Messages for one connection that together answer one request (a resync's
        events), encoded at once and charged as one reply: their whole size costs that
        connection's rate, as a snapshot of the same size would, and ``work`` tokens
        more (what making it cost beyond its bytes)."""
        prepared = cls(*messages)
        prepared.charged, prepared.work = True, work
        return prepared

    @classmethod
    def reply(cls, frame: bytes) -> Prepared:
        """A reply for one connection, already encoded as a whole frame from parts kept
        between requests (the lobby's pages of tables); charged like any reply."""
        prepared = cls()
        prepared.data, prepared.charged = frame, True
        return prepared


Outgoing = Message | Prepared


class OutputBudget:
    """The bytes waiting to be written to every connection, and the bound on their sum.

    Each :class:`Outbox` adds what it queues and takes off what its socket took. When the
    sum would pass ``limit`` the connection with the most bytes waiting is closed as a
    slow consumer (its bytes are dropped), as many times as it takes: so the server's
    memory for output is bounded whatever the clients do, and the clients that read are
    the last to pay.
    """

    __slots__ = ("limit", "outboxes", "total")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self.outboxes: set[Outbox] = set()  # those with bytes waiting

    def shed(self, adding: int, outbox: Outbox) -> bool:
        """Close the largest outboxes until ``adding`` more bytes fit (or none is left);
        False if ``outbox``, the one adding them, was closed too."""
        while self.total + adding > self.limit and self.outboxes:
            max(self.outboxes, key=lambda o: o.pending).overflow()
        return not outbox.closed


class Outbox:
    """A connection's queue of outgoing bytes, bounded in bytes.

    :meth:`put` encodes a message at once (through ``encode``, the connection's own
    protocol state) and never blocks or writes: the first message queued since the last
    write hands the outbox to ``schedule`` (the hall's :class:`~.flusher.Flusher`), which
    calls :meth:`flush` once per turn of the event loop, so the messages of one action
    share one system call.

    ``pending`` counts the bytes queued or taken but not yet on the wire. A message that
    would take it past ``limit`` closes the connection through ``on_overflow`` (a slow
    consumer is dropped, never waited on), unless nothing else waits. :meth:`offer` is
    for what a lagging reader can do without (lobby updates, chat): it is dropped, not
    queued, once more than ``lag`` bytes would wait, so it never costs a connection its
    place.
    """

    __slots__ = ("_budget", "_encode", "_flush", "_lag", "_limit", "_on_overflow",
                 "_schedule", "chunks", "closed", "dropped", "pending", "scheduled")

    def __init__(self, limit: int, budget: OutputBudget, *,
                 encode: Callable[[Outgoing], bytes], on_overflow: Callable[[], None],
                 flush: Callable[[], None], schedule: Callable[[Outbox], None],
                 lag: int | None = None) -> None:
        self._limit = limit
        self._lag = limit // 4 if lag is None else lag
        self._budget = budget
        self._encode = encode
        self._on_overflow = on_overflow
        self._flush = flush
        self._schedule = schedule
        self.chunks: list[bytes] = []
        self.pending = 0
        self.dropped = 0  # messages offered and dropped (lagging)
        self.closed = False
        self.scheduled = False  # handed to the flusher, or waiting for the socket to drain

    @property
    def lagging(self) -> bool:
        """More than ``lag`` bytes wait: offered messages are dropped."""
        return self.pending > self._lag

    def put(self, message: Outgoing) -> bool:
        """Queue ``message``; False (and the connection is being closed) if it cannot."""
        if self.closed:
            return False
        data = self._encode(message)
        if not data:
            return True  # nothing of it may be sent now (the conversation is over)
        size = len(data)
        if self.pending and self.pending + size > self._limit:
            # (with nothing waiting a message always goes, however large: a client that
            # keeps up is never closed for the size of what it was sent)
            self.overflow()
            return False
        budget = self._budget
        if budget.total + size > budget.limit and not budget.shed(size, self):
            return False
        self._add(data, size)
        return True

    def offer(self, message: Outgoing) -> bool:
        """Queue ``message`` unless it would make this connection lag or the server's
        output is nearly full; True if queued."""
        if self.closed or self.pending > self._lag \
                or self._budget.total + self._lag > self._budget.limit:
            self.dropped += 1
            return False
        data = self._encode(message)
        if self.pending and self.pending + len(data) > self._lag:
            self.dropped += 1
            return False
        if data:
            self._add(data, len(data))
        return True

    def _add(self, data: bytes, size: int) -> None:
        self.chunks.append(data)
        if not self.pending:
            self._budget.outboxes.add(self)
        self.pending += size
        self._budget.total += size
        if not self.scheduled:
            self.scheduled = True
            self._schedule(self)

    def take(self) -> bytes:
        """The queued bytes, oldest first, in one string (still ``pending`` until
        :meth:`written`); the next :meth:`put` schedules again."""
        chunks, self.chunks = self.chunks, []
        self.scheduled = False
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def discard(self) -> bool:
        """Drop the queued bytes not yet taken (they may not be sent); True if any were."""
        chunks, self.chunks = self.chunks, []
        size = sum(map(len, chunks))
        self.pending -= size
        self._budget.total -= size
        if not self.pending:
            self._budget.outboxes.discard(self)
        return bool(chunks)

    def written(self, size: int) -> None:
        """``size`` bytes went to the socket."""
        self.pending -= size
        self._budget.total -= size
        if not self.pending:
            self._budget.outboxes.discard(self)

    def flush(self) -> None:
        """Write the queued bytes as far as the socket takes them now (the flusher)."""
        self._flush()

    def close(self) -> None:
        """Accept no more messages (those queued are still written)."""
        self.closed = True

    def release(self) -> None:
        """Drop every byte still waiting (the connection is over) and accept no more."""
        self.closed = True
        self.chunks = []
        self._budget.total -= self.pending
        self.pending = 0
        self._budget.outboxes.discard(self)

    def overflow(self) -> None:
        """Close the connection as a slow consumer; its waiting bytes are dropped."""
        self.release()
        self._on_overflow()


class Player:
    """Somebody (a person, a remote bot, a spectator tool) known to this server."""

    def __init__(self, player_id: int, name: str, kind: str, token_digest: str) -> None:
        self.id = player_id
        self.name = name
        self.kind = kind
        self.token_digest = token_digest  # never the token itself
        self.outbox: Outbox | None = None
        self.tables: set[int] = set()  # tables where this player sits or watches
        self.gone_since: float | None = None  # when its last connection ended
        #: Its connection gets every table's updates (the lobby_updates request; each new
        #: connection starts with them on), else only those of self.tables.
        self.lobby_updates = True
        #: Tables whose lobby updates this connection missed while it lagged (owed to it).
        self.missed_updates: set[int] = set()
        #: False while it holds its name only on loan: taken while the name's owner was
        #: away and held nothing; the owner takes it back (docs/protocol.md, section 4).
        self.owns_name = True
        #: The host muted its chat until then (the server's clock; 0: not muted). A mute
        #: lasts while the server runs.
        self.muted_until = 0.0
        #: Its chat's own rate (settings chat_per_second, chat_burst: a line reaches every
        #: listener, so it costs the server many times what another request does); made
        #: at its first line.
        self.chat_bucket: TokenBucket | None = None
        #: Its connection's welcome nonce (proofs of table codes are keyed over it) and
        #: address (wrong codes are counted by address): set at each admission.
        self.nonce = ""
        self.address = ""

    @property
    def connected(self) -> bool:
        return self.outbox is not None and not self.outbox.closed

    def send(self, message: Outgoing) -> bool:
        """Queue a message if connected; False when it could not be queued."""
        return self.outbox.put(message) if self.outbox is not None else False

    def offer(self, message: Outgoing) -> bool:
        """Queue a message a lagging reader can do without (see :meth:`Outbox.offer`)."""
        return self.outbox.offer(message) if self.outbox is not None else False

    def __repr__(self) -> str:
        return f"Player({self.id}, {self.name!r}, {self.kind})"


class PlayerRegistry:
    """Every player this server knows, by id, by token (its digest) and by name.

    A name belongs to one player at a time, its *holder*: found in O(1), case-folded. Who
    may take a name from its holder is the hall's rule (docs/protocol.md, section 4).
    """

    def __init__(self) -> None:
        self._by_id: dict[int, Player] = {}
        self._by_token: dict[str, Player] = {}
        self._holders: dict[str, Player] = {}  # name key -> the player holding it
        self._next_id = 1

    def new(self, name: str, kind: str) -> tuple[Player, str]:
        """A new player holding ``name``, and its fresh secret token (128 random bits),
        which is not kept."""
        token = new_token()
        player = Player(self._next_id, name, kind, digest(token))
        self._next_id += 1
        self._add(player)
        return player, token

    def restore(self, player_id: int, name: str, kind: str, token_digest: str,
                owns_name: bool = True) -> Player:
        """Bring back a player known from an earlier run of the server."""
        player = Player(player_id, name, kind, token_digest)
        player.owns_name = owns_name
        self._add(player)
        self._next_id = max(self._next_id, player_id + 1)
        return player

    def _add(self, player: Player) -> None:
        self._by_id[player.id] = player
        self._by_token[player.token_digest] = player
        self._holders.setdefault(name_key(player.name), player)

    def holder(self, name: str) -> Player | None:
        """The player that holds ``name`` (any case), or None."""
        return self._holders.get(name_key(name))

    def claim(self, player: Player, name: str) -> Player | None:
        """``player`` holds ``name`` from now on (and no longer its old one); the player
        that held it before, if another."""
        self._unname(player)
        player.name = name
        folded = name_key(name)
        before = self._holders.get(folded)
        self._holders[folded] = player
        return before if before is not player else None

    def _unname(self, player: Player) -> None:
        folded = name_key(player.name)
        if self._holders.get(folded) is player:
            del self._holders[folded]

    def by_token(self, token: str) -> Player | None:
        """The player whose token this is, or None."""
        player = self._by_token.get(digest(token))
        # (the digest found equals the one asked for; compared again in constant time so
        # that no timing of the lookup can tell how close a guess came)
        if player is not None and matches(token, player.token_digest):
            return player
        return None

    def get(self, player_id: int) -> Player | None:
        return self._by_id.get(player_id)

    def forget(self, player: Player) -> None:
        """Drop a player who is gone and has nothing to come back to (the lobby decides):
        its token no longer resumes anything, its name is free (whoever holds it on loan
        owns it now)."""
        self._by_id.pop(player.id, None)
        self._by_token.pop(player.token_digest, None)
        self._unname(player)
        holder = self._holders.get(name_key(player.name))
        if holder is not None and player.owns_name:
            holder.owns_name = True

    def connected(self) -> Iterator[Player]:
        return (p for p in self._by_id.values() if p.connected)

    def __iter__(self) -> Iterator[Player]:
        """Every player known (connected or not)."""
        return iter(list(self._by_id.values()))

    def gone(self) -> list[Player]:
        """The players not connected, those gone longest first."""
        away = [p for p in self._by_id.values() if not p.connected and p.gone_since is not None]
        away.sort(key=lambda p: p.gone_since or 0.0)
        return away

    def __len__(self) -> int:
        return len(self._by_id)
