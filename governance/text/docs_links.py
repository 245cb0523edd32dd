"""Links to mlgov's published documentation, in place of the repository paths the texts cite.

The messages, notes and remediations cite pages as repository paths (`docs/reference/costs.md`),
which do not exist in the repository of a team that runs mlgov on its own program. Where text
reaches a person (the PR comment, the plan's text and Markdown views, `--explain`) those paths
become links into the docs site: `MLGOV_DOCS_URL` or `--docs-url` (e.g. a team's own copy of
the site), else `DEFAULT_DOCS_URL`: mlgov's own site, which .github/workflows/docs.yml builds and
publishes to GitHub Pages from the default branch, and mkdocs.yml's `site_url`
(tests/docs/test_docs_site.py keeps the three in step; docs/reference/costs.md#docs-links tells
users). The site is built with `use_directory_urls: false`, so `reference/costs.md` is served as
`reference/costs.html`.
"""

from __future__ import annotations

import os
import re

DEFAULT_DOCS_URL = "https://mlgov.github.io/mlgov/"
DOCS_URL_ENV = "MLGOV_DOCS_URL"

# A cited page: `docs/PAGE.md`, an optional `#anchor` (escape.py may have put a zero-width
# character reference after `#`, and a backslash before the parentheses around the path).
_PAGE = re.compile(r"\bdocs/((?:[a-z0-9-]+/)?[a-z0-9-]+)\.md(?:#(?:&#8203;|\u200b)?([a-z0-9-]+))?")
_UNSAFE = re.compile(r"[\s<>()\[\]`\"'\\]")

_chosen: str | None = None


class DocsUrlError(ValueError):
    """A docs URL that cannot be linked safely (not http(s), or characters that break a link)."""


def checked(url: str) -> str:
    """`url` as the docs site's base (ending in `/`), or DocsUrlError saying what is wrong."""
    if not url.startswith(("https://", "http://")) or _UNSAFE.search(url) or len(url) > 500:
        raise DocsUrlError(
            f"{url[:100]!r} is not a docs site URL: an http(s) URL without spaces, quotes, "
            "brackets or parentheses (e.g. https://docs.example.com/mlgov/)"
        )
    return url if url.endswith("/") else url + "/"


def use_docs_url(url: str | None) -> None:
    """Link to this site from now on in this process (None: back to the env or the default)."""
    global _chosen
    _chosen = None if url is None else checked(url)


def docs_url() -> str:
    """The docs site's base URL: `--docs-url`, else MLGOV_DOCS_URL, else DEFAULT_DOCS_URL."""
    if _chosen is not None:
        return _chosen
    from_env = os.environ.get(DOCS_URL_ENV, "").strip()
    if from_env:
        try:
            return checked(from_env)
        except DocsUrlError:
            pass  # main() refuses it first (exit 2); here only the default is safe to link
    return DEFAULT_DOCS_URL


def doc_url(page: str, anchor: str | None = None) -> str:
    """The site's address of a page (`reference/costs`) and an optional anchor."""
    return f"{docs_url()}{page}.html" + (f"#{anchor}" if anchor else "")


def linked_text(text: str) -> str:
    """Plain text with each cited `docs/PAGE.md#anchor` replaced by the page's URL."""
    return _PAGE.sub(lambda m: doc_url(m.group(1), m.group(2)), text)


def linked_markdown(markdown: str) -> str:
    """Markdown (already escaped) with each cited page made a link into the docs site."""
    return _PAGE.sub(lambda m: f"[{m.group(1)}]({doc_url(m.group(1), m.group(2))})", markdown)
