"""Hostile URLs: only http(s), and only hosts that resolve to public addresses.

Every hop of a redirect chain is checked here before it is fetched. A host is refused when
ANY of its addresses is loopback, private, link-local, multicast, reserved, unspecified or
otherwise not global, unless the config allow-lists it (``extraction.allow_private_hosts``:
hostnames, IP addresses or CIDR ranges).

DNS rebinding: for plain http the request is sent to the address that was checked (the URL
is rewritten to the IP; the Host header keeps the name), so a second, different DNS answer is
never used. For https the hostname is kept so that the certificate is verified against it;
a rebound name then fails the TLS check instead of reaching an internal service.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from tamis.extract.models import ExtractError, failed

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class AllowList:
    """Hosts (lower-case names) and networks that may resolve to non-public addresses."""

    hosts: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, entries: Sequence[str]) -> AllowList:
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for entry in entries:
            text = entry.strip().lower().strip("[]")
            if not text:
                continue
            try:
                networks.append(ipaddress.ip_network(text, strict=False))
            except ValueError:
                hosts.add(text.rstrip("."))
        return cls(frozenset(hosts), tuple(networks))

    def allows_host(self, host: str) -> bool:
        return host.lower().rstrip(".") in self.hosts

    def allows_address(self, address: IPAddress) -> bool:
        return any(address in network for network in self.networks)


@dataclass(frozen=True)
class Target:
    """A checked URL: its parts and the addresses it may be fetched from."""

    url: str
    scheme: str
    host: str
    port: int
    addresses: tuple[str, ...]


def is_public(address: IPAddress) -> bool:
    """True for a globally routable unicast address (IPv4-mapped IPv6 judged as IPv4)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or not address.is_global
    )


def split_url(url: str) -> tuple[str, str, int]:
    """Scheme, host and port of an http(s) URL; raises ExtractError for anything else."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ExtractError(failed("InvalidURL"), f"not a valid URL: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ExtractError(failed("UnsupportedScheme"), f"only http and https are fetched, not"
                           f" {scheme}:" if scheme else "no scheme: give it as https://...")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise ExtractError(failed("InvalidURL"), "the URL has no host")
    return scheme, host, port or (443 if scheme == "https" else 80)


async def resolve(host: str, port: int) -> list[str]:
    """Every address the host resolves to, in resolver order (no duplicates)."""
    try:
        ipaddress.ip_address(host)
        return [host]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ExtractError(failed("DNSError"), f"cannot resolve {host}: {exc}") from None
    out: list[str] = []
    for info in infos:
        address = str(info[4][0]).split("%")[0]
        if address not in out:
            out.append(address)
    if not out:
        raise ExtractError(failed("DNSError"), f"{host} has no address")
    return out


async def check_url(url: str, allow: AllowList) -> Target:
    """Resolve and vet one hop. Raises ``ExtractError(failed:PrivateAddress)`` on refusal."""
    scheme, host, port = split_url(url)
    addresses = await resolve(host, port)
    if not allow.allows_host(host):
        for text in addresses:
            address = ipaddress.ip_address(text)
            if not is_public(address) and not allow.allows_address(address):
                where = f"{host} is" if host == text else f"{host} resolves to {text},"
                raise ExtractError(
                    failed("PrivateAddress"),
                    f"{where} a non-public address (allow it with"
                    " extraction.allow_private_hosts)",
                )
    return Target(url=url, scheme=scheme, host=host, port=port, addresses=tuple(addresses))


def pinned_url(target: Target, address: str) -> str:
    """The URL with its host replaced by ``address`` (http only; see the module docstring)."""
    parts = urlsplit(target.url)
    shown = f"[{address}]" if ":" in address else address
    netloc = f"{shown}:{parts.port}" if parts.port else shown
    return parts._replace(netloc=netloc).geturl()


def host_header(target: Target) -> str:
    """The Host header for a pinned request: the name, with the port when not the default."""
    name = f"[{target.host}]" if ":" in target.host else target.host
    default = 443 if target.scheme == "https" else 80
    return name if target.port == default else f"{name}:{target.port}"
