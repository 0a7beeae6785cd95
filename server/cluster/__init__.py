"""The cluster (issue 17): one room across many processes on one Redis.

A process started with ``--redis URL --node NAME --public-url ws://HOST:PORT/ws`` joins the
room's directory (:class:`~server.cluster.directory.Directory`): its lease, its tables with
their lobby entries; the lobby, ``moved`` and the placement of new tables read this
process's cached copy of it; a spectator may watch any listed table from any process
(:mod:`server.cluster.spectate`: the owner's public stream over Redis pub/sub). Without
``--public-url`` nothing of this package runs. Its parts (the directory, the subscriptions,
the saved states, "where is table X", moves, failover, the spectators' relay) each have one
owner and see one another through the ports of :mod:`server.cluster.ports`.
Keys: :mod:`server.cluster.keys` (and docs/architecture.md).
"""

from server.cluster.directory import Directory, NodeInfo, RoomCopy

__all__ = ["Directory", "NodeInfo", "RoomCopy"]
