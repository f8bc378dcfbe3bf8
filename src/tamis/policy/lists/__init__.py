"""Community lists (uBlacklist, uBlock Origin / Adblock Plus, hosts files, domain lists)
as policy: parsed faithfully, compiled into one fast matcher, fetched only on request."""

from tamis.policy.lists.load import ListStatus, load_lists
from tamis.policy.lists.matcher import ListMatch, ListMatcher
from tamis.policy.lists.parse import detect_format, parse_list

__all__ = ["ListMatch", "ListMatcher", "ListStatus", "detect_format", "load_lists",
           "parse_list"]
