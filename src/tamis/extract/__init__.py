"""Page text for the top results, fetched concurrently and safely, cut to one budget.

``extract_results`` fills the excerpts of a ranked result list; ``read_url`` reads one page
(``tamis read``). See ``docs/extraction.md`` for the settings and the statuses.
"""

from tamis.extract.core import extract_results, get_page, read_url
from tamis.extract.models import Page, ReadResponse

__all__ = ["Page", "ReadResponse", "extract_results", "get_page", "read_url"]
