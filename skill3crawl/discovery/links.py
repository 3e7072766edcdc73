"""In-site link following: links of a page that stay on its host (and, optionally, under a path prefix)."""

from __future__ import annotations

from urllib.parse import urlsplit

from scrapy.linkextractors import LinkExtractor

# Not pages: skip downloads of binaries and media.
DENY_EXTENSIONS = [
    "7z", "avi", "bin", "bz2", "dmg", "doc", "docx", "exe", "gif", "gz", "ico", "iso", "jar", "jpeg", "jpg",
    "mov", "mp3", "mp4", "pdf", "png", "ppt", "pptx", "rar", "svg", "tar", "tgz", "webm", "webp", "whl",
    "xls", "xlsx", "xz", "zip", "css", "js", "woff", "woff2", "ttf",
]


def in_site_links(response, path_prefix: str = "") -> list[str]:
    host = urlsplit(response.url).hostname or ""
    # Host compared by hostname below (LinkExtractor.allow_domains compares netlocs, ports included).
    extractor = LinkExtractor(deny_extensions=DENY_EXTENSIONS, unique=True)
    out = []
    for link in extractor.extract_links(response):
        p = urlsplit(link.url)
        if p.hostname == host and p.path.startswith(path_prefix or "/"):
            out.append(link.url)
    return out
