"""Which ``Host`` header values the server answers to: its defence against DNS rebinding.

A web page from another site can point a name it controls at 127.0.0.1 and then read a
local server as if it were its own origin; the browser still sends that name in the
``Host`` header. So the server answers only to names that are its own:

* an IP address literal (``127.0.0.1``, ``[::1]``, ``192.168.1.5``): a rebinding page's
  origin is always a name, never the literal;
* ``localhost`` and names under ``.localhost``;
* this machine's host name and fully qualified name;
* the address given to ``--host``;
* the names given to ``--allowed_hosts`` (``*`` allows every name, for a reverse proxy
  that rewrites nothing and is trusted).

Every other name gets a 403 that says how to allow it. Ports are not compared.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable

ANY = "*"


def host_name(header: str) -> str:
    """The name in a ``Host`` header, without port, brackets or a final dot, lowercased.

    Example:
        >>> host_name("[::1]:6006"), host_name("Example.COM.:80")
        ('::1', 'example.com')
    """
    value = header.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else value
    if value.count(":") == 1:  # name:port (a bare IPv6 literal has several colons)
        value = value.split(":", 1)[0]
    return value.rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def machine_names() -> set[str]:
    """This machine's host name and fully qualified name, lowercased (empty where unknown)."""
    names = set()
    for lookup in (socket.gethostname, socket.getfqdn):
        try:
            names.add(lookup().lower().rstrip("."))
        except OSError:
            continue
    names.discard("")
    return names


class HostCheck:
    """Decides whether a ``Host`` header names this server.

    Args:
        bind_host: The address the server binds (``--host``); a name there is allowed.
        extra: More names to allow (``--allowed_hosts``); ``*`` allows every name.
    """

    def __init__(self, bind_host: str = "localhost", extra: Iterable[str] = ()) -> None:
        extra_names = {host_name(name) for name in extra if name.strip()}
        self.allow_any = ANY in extra_names
        self.names = frozenset(
            {"localhost", host_name(bind_host), *machine_names(), *extra_names} - {ANY, ""}
        )

    def allows(self, header: str | None) -> bool:
        """Whether a request with this ``Host`` header (None: none sent) is answered.

        A request without a ``Host`` header (HTTP/1.0) is no browser's, and is answered.
        """
        if header is None or self.allow_any:
            return True
        name = host_name(header)
        return name in self.names or name.endswith(".localhost") or _is_ip(name)
