"""A throwaway Milvus server for tests: the gRPC server binary `milvus-lite` ships, on a TCP port.

It speaks the same gRPC API as a Milvus standalone server, so a client given its
``http://127.0.0.1:PORT`` URI takes MedDiag's server code path (no Lite file of its own,
collections named per build, old builds dropped) rather than the Lite one.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from milvus_lite.server import Server
from pymilvus import MilvusClient, MilvusException

from tests.ports import free_port

START_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class MilvusServer:
    uri: str


@contextmanager
def milvus_grpc_server(root: Path) -> Iterator[MilvusServer]:
    """Serve a Milvus data file under `root` on a free loopback port; raise RuntimeError if it does not come up."""
    root.mkdir(parents=True, exist_ok=True)
    address = f"127.0.0.1:{free_port()}"
    server = Server(str(root / "server.db"), address=address)
    if not server.init() or not server.start():
        raise RuntimeError(f"the Milvus server binary did not start on {address}")
    uri = f"http://{address}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                MilvusClient(uri=uri, timeout=2.0).close()
                break
            except MilvusException as err:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the Milvus server on {address} did not answer: {err}") from err
                time.sleep(0.2)
        yield MilvusServer(uri)
    finally:
        server.stop()
