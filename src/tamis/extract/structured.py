"""Pages whose markup tamis reads itself: forum threads (every post) and docs (code kept).

Trafilatura keeps only the first post of a thread whose posts are each an ``<article>``
(XenForo) and loses blank lines and languages in code blocks. So, before trafilatura:

- XenForo: ``article.message`` (author in ``data-author``), text in ``.message-body .bbWrapper``;
  XenForo 1: ``li.message[data-author]`` with ``.messageText``
- FluxBB/PunBB: ``div.blockpost`` with ``.postmsg``, author ``.postleft dt``
- Discourse: ``.topic-post .cooked``, or the crawler view ``.crawler-post`` with
  ``div.post[itemprop=text|articleBody]`` and the author in ``[itemprop=author] [itemprop=name]``;
  when neither is visible (the crawler view in ``<noscript>``), the app's preloaded JSON
- phpBB: ``div.post`` with ``.postbody .content``, author ``a.username(-coloured)``
- Invision Community: ``article.cPost`` with ``[data-role=commentContent]``, author
  ``.cAuthorPane_author``
- Lobsters: ``li.comments_subtree > div.comment`` with ``.comment_text``, and ``.story_text``
- Sphinx: ``[itemprop=articleBody]``, ``div.body``, ``[role=main]``, ``main`` or ``article``,
  with ``div.highlight pre``
- MkDocs (material and plain): ``article.md-content__inner``, or ``[role=main]`` with code

A thread comes out as one block per post, ``**author**:`` then the post's markdown, the
blocks between ``---`` rules.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import lxml.etree
import lxml.html
from lxml.html import HtmlElement

from tamis.extract.docs import is_docs_widget
from tamis.extract.markdown import Converter
from tamis.extract.signals import Signals, read_signals
from tamis.extract.visibility import PageNames, strip_hidden

POST_SKIP = ("bbCodeBlock-expandLink", "js-extraPhrases", "message-signature", "signature",
             "postsignature", "messageTextEndMarker",
             "post-menu-area", "topic-meta-data", "crawler-post-meta", "quote-controls",
             # a reply's quote of an earlier post: that post is in the thread already
             "bbCodeBlock--quote", "quote", "quotetitle", "quotecontent", "ipsQuote",
             "bbCodeQuote",
             # a link's preview card (XenForo unfurl, Discourse onebox): the linked page's
             # title and summary, not the poster's words
             "bbCodeBlock--unfurl", "onebox")
DOCS_SKIP = ("headerlink", "md-clipboard", "md-source-file", "md-content__button",
             "md-footer", "related", "sphinxsidebar", "rst-footer-buttons", "md-sidebar",
             "md-nav", "toc-backref", "viewcode-link", "copybtn")


def has_class(name: str) -> str:
    """XPath predicate: the element's class attribute has the token ``name``."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


@dataclass
class Post:
    author: str
    body: HtmlElement


def _first(element: HtmlElement, *paths: str) -> HtmlElement | None:
    for path in paths:
        found = element.xpath(path)
        if found:
            return found[0]
    return None


def _text(element: HtmlElement | None) -> str:
    return " ".join(element.text_content().split()) if element is not None else ""


def xenforo_posts(doc: HtmlElement) -> list[Post]:
    posts = xenforo1_posts(doc)
    if posts:
        return posts
    for article in doc.xpath(f"//article[{has_class('message')}]"):
        body = _first(article, f".//*[{has_class('message-body')}]//*[{has_class('bbWrapper')}]",
                      f".//*[{has_class('bbWrapper')}]")
        if body is None:
            continue
        author = article.get("data-author") or _text(_first(
            article, f".//*[{has_class('message-name')}]", f".//*[{has_class('username')}]"))
        posts.append(Post(author, body))
    return posts


def xenforo1_posts(doc: HtmlElement) -> list[Post]:
    """XenForo 1: ``li.message[data-author]``, text in ``.messageText``."""
    posts = []
    for item in doc.xpath(f"//li[{has_class('message')}][@data-author]"):
        body = _first(item, f".//*[{has_class('messageText')}]")
        if body is not None:
            posts.append(Post(item.get("data-author", "")[:80], body))
    return posts


def fluxbb_posts(doc: HtmlElement) -> list[Post]:
    """FluxBB and PunBB: ``div.blockpost``, text in ``.postmsg``, author in ``.postleft dt``."""
    posts = []
    for block in doc.xpath(f"//div[{has_class('blockpost')}]"):
        body = _first(block, f".//*[{has_class('postmsg')}]")
        if body is not None:
            author = _text(_first(block, f".//*[{has_class('postleft')}]//dt"))
            posts.append(Post(author[:80], body))
    return posts


def discourse_posts(doc: HtmlElement) -> list[Post]:
    body_paths = (f".//*[{has_class('cooked')}]",
                  f".//div[{has_class('post')}][@itemprop='text' or @itemprop='articleBody']")
    author_paths = (".//*[@itemprop='author']//*[@itemprop='name']",
                    f".//*[{has_class('creator')}]", f".//*[{has_class('username')}]",
                    f".//*[{has_class('names')}]")
    posts = []
    containers = doc.xpath(f"//*[{has_class('topic-post')} or {has_class('crawler-post')}]")
    for container in containers:
        body = _first(container, *body_paths)
        if body is not None:
            posts.append(Post(_text(_first(container, *author_paths)), body))
    if posts:
        return posts
    bodies = doc.xpath(f"//div[{has_class('post')}][@itemprop='articleBody' or @itemprop='text']")
    return [Post("", body) for body in bodies]


MAX_PRELOADED_CHARS = 5_000_000
DISCOURSE_STATE_ID = "data-preloaded"


def discourse_app_posts(doc: HtmlElement) -> list[Post]:
    """Discourse's app state: the topic's posts as the browser's app renders them, from the
    JSON in ``div#data-preloaded[data-preloaded]`` (``topic_<id>`` -> ``post_stream.posts``:
    ``username``, ``cooked`` HTML). Read when the page's own post markup (the crawler view)
    is not visible: newer Discourse puts it in ``<noscript>``, which a browser does not show.
    Regular posts only (``post_type`` 1): "topic closed" notices and other small actions are
    not posts; nor are hidden or deleted ones."""
    node = _first(doc, f"//div[@id='{DISCOURSE_STATE_ID}'][@data-preloaded]")
    raw = node.get("data-preloaded", "") if node is not None else ""
    if not raw or len(raw) > MAX_PRELOADED_CHARS:
        return []
    try:
        state = json.loads(raw)
    except (ValueError, RecursionError):  # nested deeper than json reads: no state
        return []
    posts = []
    for key, value in state.items() if isinstance(state, dict) else ():
        if not key.startswith("topic_") or not isinstance(value, str):
            continue
        try:
            stream = json.loads(value)["post_stream"]["posts"]
        except (ValueError, KeyError, TypeError, RecursionError):
            continue
        for item in stream if isinstance(stream, list) else ():
            if not isinstance(item, dict) or item.get("post_type", 1) != 1 \
                    or item.get("hidden") or item.get("deleted_at"):
                continue
            cooked = item.get("cooked")
            if not isinstance(cooked, str) or not cooked.strip():
                continue
            try:
                body = lxml.html.fragment_fromstring(cooked, create_parent="div")
            except (lxml.etree.ParserError, ValueError):
                continue
            strip_hidden(body)
            posts.append(Post(str(item.get("username") or "")[:80], body))
    return posts


def phpbb_posts(doc: HtmlElement) -> list[Post]:
    posts = []
    for post in doc.xpath(f"//div[{has_class('post')}][.//*[{has_class('postbody')}]]"):
        body = _first(post, f".//*[{has_class('postbody')}]//*[{has_class('content')}]")
        if body is None:
            continue
        author = _text(_first(
            post, f".//a[{has_class('username')} or {has_class('username-coloured')}]",
            f".//*[{has_class('author')}]//strong", f".//*[{has_class('username')}]"))
        posts.append(Post(author, body))
    return posts


def invision_posts(doc: HtmlElement) -> list[Post]:
    """Invision Community: ``article.cPost``, text in ``[data-role=commentContent]``."""
    posts = []
    for article in doc.xpath(f"//article[{has_class('cPost')}]"):
        body = _first(article, ".//*[@data-role='commentContent']")
        if body is None:
            continue
        author = _text(_first(article, f".//*[{has_class('cAuthorPane_author')}]"))
        posts.append(Post(author[:80], body))
    return posts


def lobsters_posts(doc: HtmlElement) -> list[Post]:
    """Lobsters (the link aggregator's open-source software): the story's own text
    (``.story_text``, when it has one) and each comment of the tree, in page order: a
    ``div.comment`` in an ``li.comments_subtree``, its text in ``.comment_text`` and the
    author the byline's user link. A reply's own text only: its replies are in the list
    beside it, not inside it."""
    comments = doc.xpath(f"//li[{has_class('comments_subtree')}]/div[{has_class('comment')}]")
    if not comments:
        return []
    author_path = (f".//*[{has_class('byline')}]//a[starts-with(@href, '/~') or "
                   "starts-with(@href, '/u/')][normalize-space()]")
    posts = []
    story = _first(doc, f"//*[{has_class('story_text')}]")
    if story is not None:
        posts.append(Post(_text(_first(doc, f"//*[{has_class('story')}]{author_path[1:]}")),
                          story))
    for comment in comments:
        body = _first(comment, f".//*[{has_class('comment_text')}]")
        if body is not None:
            posts.append(Post(_text(_first(comment, author_path))[:80], body))
    return posts


SCHEMA_POST_TYPES = ("Question", "Answer", "DiscussionForumPosting", "Comment")


def _item_type(element: HtmlElement) -> str:
    return (element.get("itemtype") or "").rstrip("/").rsplit("/", 1)[-1]


def _is_qa_comment(item: HtmlElement) -> bool:
    """A ``Comment`` on a Q&A site's ``Question`` or ``Answer``: a remark under a post (Stack
    Exchange's comments), not a post. A ``Comment`` of a ``DiscussionForumPosting`` is a
    reply in a thread and stays."""
    if _item_type(item) != "Comment":
        return False
    owner = next((a for a in item.iterancestors() if a.get("itemtype")), None)
    return owner is not None and _item_type(owner) in ("Question", "Answer")


def _own_author(item: HtmlElement) -> str:
    """The name of the item's own ``author`` (not the author of a comment inside it): its
    ``itemprop=name`` (text, or ``content`` of a ``<meta>``), else the author's text."""
    for author in item.xpath(".//*[@itemprop='author']"):
        owner = next((a for a in author.iterancestors() if a.get("itemtype")), None)
        if owner is not item:
            continue
        names = author.xpath(".//*[@itemprop='name']")
        name = names[0] if names else author
        return " ".join((name.get("content") or name.text_content()).split())[:80]
    return ""


def schema_posts(doc: HtmlElement) -> list[Post]:
    """Posts marked up with schema.org (``Question``/``Answer``, ``DiscussionForumPosting``,
    ``Comment``): each item's own ``itemprop=text`` (or ``articleBody``), in page order."""
    test = " or ".join(f"substring(@itemtype, string-length(@itemtype) - {len(t) - 1}) = '{t}'"
                       for t in SCHEMA_POST_TYPES)
    posts = []
    for item in doc.xpath(f"//*[@itemtype][{test}]"):
        if _is_qa_comment(item):
            continue
        for body in item.xpath(".//*[@itemprop='text' or @itemprop='articleBody']"):
            owner = next((a for a in body.iterancestors() if a.get("itemtype")), None)
            if owner is item:
                posts.append(Post(_own_author(item), body))
                break
    return posts if len(posts) >= 2 else []


def render_thread(posts: list[Post]) -> str:
    """One block per post, in page order, between ``---`` rules: ``**author**:`` on its own
    line (when the page names one), then the post's markdown. No post numbers: a count from
    1 would be wrong on a thread's second page, and the order says it already."""
    converter = Converter(skip_classes=POST_SKIP)
    blocks = []
    for post in posts:
        text = converter.convert(post.body)
        if not text.strip():
            continue
        blocks.append(f"**{post.author}**:\n{text}" if post.author else text)
    return "\n\n---\n\n".join(blocks)


def sphinx_main(doc: HtmlElement, signals: Signals, classes: set[str]) -> HtmlElement | None:
    """``classes``: the page's class tokens; no ``<pre>`` or no ``headerlink`` token, no
    code block with its permalinks to look for."""
    if "sphinx" not in signals.generator and not (
            signals.code_blocks and "headerlink" in classes
            and doc.xpath("//div[contains(@class, 'highlight')]//pre")
            and doc.xpath(f"//a[{has_class('headerlink')}]")):
        return None
    return _first(doc, "//*[@itemprop='articleBody']", f"//div[{has_class('body')}]",
                  "//*[@role='main']", "//main", "//article")


def mkdocs_main(doc: HtmlElement, signals: Signals, classes: set[str]) -> HtmlElement | None:
    if "md-content__inner" in classes:
        found = _first(doc, f"//article[{has_class('md-content__inner')}]")
        if found is not None:
            return found
    if "mkdocs" in signals.generator:
        return _first(doc, "//*[@role='main']", "//main")
    return None


# Each forum reader, with the class tokens one of which its markup must have (None: no
# class to look for). A page without any of them skips the reader's XPath scans: one pass
# over the page's class attributes is cheaper than a scan per reader.
FORUMS: tuple[tuple[str, Callable[[HtmlElement], list[Post]], frozenset[str] | None], ...] = (
    ("xenforo", xenforo_posts, frozenset({"message"})),
    ("discourse", discourse_posts, frozenset({"topic-post", "crawler-post", "post"})),
    ("discourse-app", discourse_app_posts, None),
    ("phpbb", phpbb_posts, frozenset({"postbody"})),
    ("fluxbb", fluxbb_posts, frozenset({"blockpost"})),
    ("invision", invision_posts, frozenset({"cPost"})),
    ("lobsters", lobsters_posts, frozenset({"comments_subtree"})),
    ("schema-posts", schema_posts, None))
DOCS: tuple[tuple[str, Callable[[HtmlElement, Signals, set[str]], HtmlElement | None]], ...] = (
    ("mkdocs", mkdocs_main), ("sphinx", sphinx_main))


class DocsConverter(Converter):
    """The converter for docs readers: also skips the page's docs widgets (feedback boxes,
    language and version pickers, back-to-top links: ``docs.is_docs_widget``)."""

    def _skip(self, element: HtmlElement) -> bool:
        return super()._skip(element) or is_docs_widget(element)


_CLASS_VALUES = lxml.etree.XPath("//@class", smart_strings=False)  # strings, no parents
_ID_VALUES = lxml.etree.XPath("//@id", smart_strings=False)


def _has_post_type(item_types: tuple[str, ...]) -> bool:
    """Whether an ``itemtype`` ends with a post type: else ``schema_posts`` finds none."""
    return any(value.endswith(SCHEMA_POST_TYPES) for value in item_types)


def extract_structured(doc: HtmlElement, signals: Signals | None = None,
                       seen: PageNames | None = None) -> tuple[str, str] | None:
    """(kind, markdown) for a forum thread or a docs page tamis recognises, else None;
    ``signals``: ``read_signals(doc)`` when the caller has it; ``seen``: the class and id
    values of the page, or more (``strip_hidden`` gives them): they only rule readers out,
    a value of an element cut since makes one look in vain."""
    if signals is None:
        signals = read_signals(doc)
    if seen is None:
        seen = PageNames(set(_CLASS_VALUES(doc)), set(_ID_VALUES(doc)))
    classes = set(" ".join(seen.classes).split())
    for kind, find_posts, needs in FORUMS:
        if needs is not None and needs.isdisjoint(classes):
            continue
        if kind == "schema-posts" and not _has_post_type(signals.item_types):
            continue
        if kind == "discourse-app" and DISCOURSE_STATE_ID not in seen.ids:
            continue
        posts = find_posts(doc)
        if posts:
            text = render_thread(posts)
            if text:
                return kind, text
    for kind, find_main in DOCS:
        main = find_main(doc, signals, classes)
        if main is not None:
            text = DocsConverter(skip_classes=DOCS_SKIP).convert(main)
            if text:
                return kind, text
    return None
