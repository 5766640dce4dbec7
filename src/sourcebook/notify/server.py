"""Run the service under uvicorn, with its sender in a thread beside it."""

from __future__ import annotations

import socket
import threading

import uvicorn

from sourcebook.notify.app import create_app
from sourcebook.notify.service import Service


def make_server(service: Service, host: str, port: int) -> uvicorn.Server:
    config = uvicorn.Config(
        create_app(service),
        host=host,
        port=port,
        log_config=None,
        access_log=False,
        lifespan="off",
        proxy_headers=True,
        server_header=False,
        timeout_graceful_shutdown=5,
        limit_concurrency=500,
    )
    return uvicorn.Server(config)


def run(
    service: Service,
    host: str,
    port: int,
    *,
    sender: bool = True,
    sockets: list[socket.socket] | None = None,
) -> None:
    """Serve until interrupted; the sender delivers meanwhile where `sender`."""
    server = make_server(service, host, port)
    if sender:
        service.start_sender()
    try:
        server.run(sockets=sockets)
    finally:
        service.stop_sender()


class InThread:
    """The service on a socket already bound, in a thread of this process (for `serve`)."""

    def __init__(self, service: Service, sock: socket.socket):
        self.service = service
        self.sock = sock
        host, port = sock.getsockname()[:2]
        self.server = make_server(service, host, port)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, name="notify", daemon=True
        )

    def start(self) -> None:
        self.service.start_sender()
        self.thread.start()

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.service.stop_sender()
        self.sock.close()


def bound_socket(host: str, port: int) -> socket.socket:
    """A listening socket on `host`:`port` (0: any free port)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock
