"""The version tamis reports: ``--version``, the service's health, recordings and cache keys
(a new version never reads an older one's cached answers or config snapshots)."""

__version__ = "0.1.0"
