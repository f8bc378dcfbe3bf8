"""Pages whose markup tamis reads itself: forum threads (every post) and docs (code kept).

Trafilatura keeps only the first post of a thread whose posts are each an ``<article>``
(XenForo) and loses blank lines and languages in code blocks. So, before trafilatura:

- XenForo: ``article.message`` (author in ``data-author``), text in ``.message-body .bbWrapper``
- Discourse: ``.topic-post .cooked``, or the crawler view ``.crawler-post`` with
  ``div.post[itemprop=text|articleBody]`` and the author in ``[itemprop=author] [itemprop=name]``
- phpBB: ``div.post`` with ``.postbody .content``, author ``a.username(-coloured)``
- Invision Community: ``article.cPost`` with ``[data-role=commentContent]``, author
  ``.cAuthorPane_author``
- Sphinx: ``[itemprop=articleBody]``, ``div.body``, ``[role=main]``, ``main`` or ``article``,
  with ``div.highlight pre``
- MkDocs (material and plain): ``article.md-content__inner``, or ``[role=main]`` with code

A thread comes out as one block per post, ``**author** (#n):`` then the post's markdown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lxml.html import HtmlElement

from tamis.extract.markdown import Converter

POST_SKIP = ("bbCodeBlock-expandLink", "js-extraPhrases", "message-signature", "signature",
             "post-menu-area", "topic-meta-data", "crawler-post-meta", "quote-controls",
             # a reply's quote of an earlier post: that post is in the thread already
             "bbCodeBlock--quote", "quote", "quotetitle", "quotecontent", "ipsQuote")
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
    posts = []
    for article in doc.xpath(f"//article[{has_class('message')}]"):
        body = _first(article, f".//*[{has_class('message-body')}]//*[{has_class('bbWrapper')}]",
                      f".//*[{has_class('bbWrapper')}]")
        if body is None:
            continue
        author = article.get("data-author") or _text(_first(
            article, f".//*[{has_class('message-name')}]", f".//*[{has_class('username')}]"))
        posts.append(Post(author, body))
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


SCHEMA_POST_TYPES = ("Question", "Answer", "DiscussionForumPosting", "Comment")


def schema_posts(doc: HtmlElement) -> list[Post]:
    """Posts marked up with schema.org (``Question``/``Answer``, ``DiscussionForumPosting``,
    ``Comment``): each item's own ``itemprop=text`` (or ``articleBody``), in page order."""
    test = " or ".join(f"substring(@itemtype, string-length(@itemtype) - {len(t) - 1}) = '{t}'"
                       for t in SCHEMA_POST_TYPES)
    posts = []
    for item in doc.xpath(f"//*[@itemtype][{test}]"):
        for body in item.xpath(".//*[@itemprop='text' or @itemprop='articleBody']"):
            owner = next((a for a in body.iterancestors() if a.get("itemtype")), None)
            if owner is item:
                author = _first(item, ".//*[@itemprop='author']//*[@itemprop='name']",
                                ".//*[@itemprop='author']")
                if author is not None and next((a for a in author.iterancestors()
                                                if a.get("itemtype") and a is not author
                                                and a.get("itemprop") != "author"),
                                               None) is not item:
                    author = None
                posts.append(Post(_text(author)[:80] if author is not None else "", body))
                break
    return posts if len(posts) >= 2 else []


def render_thread(posts: list[Post]) -> str:
    converter = Converter(skip_classes=POST_SKIP)
    blocks = []
    for number, post in enumerate(posts, start=1):
        text = converter.convert(post.body)
        if not text.strip():
            continue
        who = f"**{post.author}** (#{number}):" if post.author else f"**#{number}**:"
        blocks.append(f"{who}\n{text}")
    return "\n\n".join(blocks)


def _generator(doc: HtmlElement) -> str:
    return " ".join(doc.xpath("//meta[@name='generator']/@content")).lower()


def sphinx_main(doc: HtmlElement) -> HtmlElement | None:
    has_code = bool(doc.xpath("//div[contains(@class, 'highlight')]//pre"))
    if "sphinx" not in _generator(doc) and not (
            has_code and doc.xpath(f"//a[{has_class('headerlink')}]")):
        return None
    return _first(doc, "//*[@itemprop='articleBody']", f"//div[{has_class('body')}]",
                  "//*[@role='main']", "//main", "//article")


def mkdocs_main(doc: HtmlElement) -> HtmlElement | None:
    found = _first(doc, f"//article[{has_class('md-content__inner')}]")
    if found is not None:
        return found
    if "mkdocs" in _generator(doc):
        return _first(doc, "//*[@role='main']", "//main")
    return None


FORUMS: tuple[tuple[str, Callable[[HtmlElement], list[Post]]], ...] = (
    ("xenforo", xenforo_posts), ("discourse", discourse_posts), ("phpbb", phpbb_posts),
    ("invision", invision_posts), ("schema-posts", schema_posts))
DOCS: tuple[tuple[str, Callable[[HtmlElement], HtmlElement | None]], ...] = (
    ("mkdocs", mkdocs_main), ("sphinx", sphinx_main))


def extract_structured(doc: HtmlElement) -> tuple[str, str] | None:
    """(kind, markdown) for a forum thread or a docs page tamis recognises, else None."""
    for kind, find_posts in FORUMS:
        posts = find_posts(doc)
        if posts:
            text = render_thread(posts)
            if text:
                return kind, text
    for kind, find_main in DOCS:
        main = find_main(doc)
        if main is not None:
            text = Converter(skip_classes=DOCS_SKIP).convert(main)
            if text:
                return kind, text
    return None
