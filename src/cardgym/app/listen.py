"""Which Host names a cardgym HTTP server answers to, and whether it may listen beyond this machine:
the ``--host``/``--public``/``--allow-host`` rule of ``cardgym serve`` (`cardgym.web.check_host`) and
``cardgym mcp --http``. In `cardgym.app`, below `cardgym.web`, so that both commands share it."""

from __future__ import annotations

import ipaddress
import sys


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` serves this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, public: bool, allow_host, command: str, what: str) -> list:
    """The Host names besides the loopback ones that the server answers to: ``allow_host`` and a
    non-loopback ``host`` itself. Binding beyond loopback without ``public`` ends the command (exit 2,
    naming ``command`` and ``what`` it serves)."""
    allowed = list(allow_host or [])
    if is_loopback(host) and host.strip("[]").lower() not in ("127.0.0.1", "localhost", "::1"):
        allowed.append(host)  # another loopback address (127.0.0.2): the URL printed must answer
    if not is_loopback(host):
        if not public:
            print(f"{command}: --host {host} serves other machines too: {what} has no accounts and no "
                  "encryption; add --public to do it anyway (and --allow-host NAME for the name other machines "
                  "use to reach it)", file=sys.stderr)
            raise SystemExit(2)
        print(f"{command}: warning: listening on {host}, beyond this machine: anyone who can reach it can start "
              "games; requests must name one of the allowed hosts", file=sys.stderr)
        try:
            if not ipaddress.ip_address(host.strip("[]")).is_unspecified:
                allowed.append(host)
        except ValueError:
            allowed.append(host)
    return allowed


__all__ = ["allowed_hosts", "is_loopback"]
