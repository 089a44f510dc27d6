"""A fake `adb` executable for tests: a tiny script that forwards its argv to a server thread.

The script is what `AdbEnv` runs (through subprocess, exactly like the real binary), so argument
quoting, exit codes, stdout/stderr and timeouts are exercised for real. State lives in the server
(in the test process), so it persists between invocations at the cost of one unix-socket round
trip. The script imports only the standard library to start fast.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import stat
import sys
import tempfile
import threading
from collections.abc import Callable
from types import TracebackType

# handler(argv without the program name, stdin bytes) -> (returncode, stdout, stderr, sleep_sec)
Handler = Callable[[list[str], bytes], tuple[int, bytes, bytes, float]]

_CLIENT = r"""#!{python} -SE
import base64, json, os, socket, sys, time
SOCKET = {socket_path!r}

def main():
    data = b""  # stdin is not forwarded: nothing AdbEnv runs reads it
    request = json.dumps({{"argv": sys.argv[1:], "stdin": base64.b64encode(data).decode()}})
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(SOCKET)
    except OSError:
        sys.stderr.write("* cannot connect to daemon at fake adb socket\n")
        return 1
    conn.sendall(request.encode() + b"\n")
    chunks = []
    while True:
        chunk = conn.recv(1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    reply = json.loads(b"".join(chunks))
    if reply.get("sleep"):
        time.sleep(reply["sleep"])
    sys.stdout.buffer.write(base64.b64decode(reply["stdout"]))
    sys.stderr.buffer.write(base64.b64decode(reply["stderr"]))
    sys.stdout.flush()
    return reply["rc"]

sys.exit(main())
"""


class FakeAdbServer:
    """Serves `handler` on a unix socket and writes the `adb` script that talks to it.

    Use as a context manager; `adb_path` is the executable to configure as `env.adb.adb_path`.
    """

    def __init__(self, handler: Handler, directory: str | None = None):
        self._handler = handler
        self._tmp = tempfile.TemporaryDirectory(prefix="fake_adb_", dir=directory)
        self.directory = self._tmp.name
        self.socket_path = os.path.join(self.directory, "adb.sock")
        self.adb_path = os.path.join(self.directory, "adb")
        self.calls: list[list[str]] = []
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    def start(self) -> FakeAdbServer:
        with open(self.adb_path, "w", encoding="utf-8") as handle:
            handle.write(_CLIENT.format(python=sys.executable, socket_path=self.socket_path))
        os.chmod(self.adb_path, os.stat(self.adb_path).st_mode | stat.S_IXUSR)
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(self.socket_path)
        self._sock.listen(16)
        self._thread = threading.Thread(target=self._serve, name="fake-adb", daemon=True)
        self._thread.start()
        return self

    def _serve(self) -> None:
        assert self._sock is not None
        while not self._stopping.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            buffer = b""
            while not buffer.endswith(b"\n"):
                chunk = conn.recv(1 << 16)
                if not chunk:
                    return
                buffer += chunk
            request = json.loads(buffer)
            argv = list(request["argv"])
            self.calls.append(argv)
            try:
                rc, out, err, sleep = self._handler(argv, base64.b64decode(request["stdin"]))
            except Exception as exc:  # a bug in the fake must show up in the test, not hang it
                rc, out, err, sleep = 99, b"", f"fake adb crashed: {exc!r}\n".encode(), 0.0
            reply = {
                "rc": rc,
                "stdout": base64.b64encode(out).decode(),
                "stderr": base64.b64encode(err).decode(),
                "sleep": sleep,
            }
            with contextlib.suppress(OSError):  # the client was killed (a timeout test)
                conn.sendall(json.dumps(reply).encode())

    def stop(self) -> None:
        self._stopping.set()
        if self._sock is not None:
            self._sock.close()
        self._tmp.cleanup()

    def __enter__(self) -> FakeAdbServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
