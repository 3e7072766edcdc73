"""Main content of the common documentation generators: the right node, code byte-exact with its language."""

import pytest

from skill3crawl.extract.content import extract_content

CODE = "def f(x):\n\treturn  x < 1  # tab, two spaces, <angle>\n"
CODE_HTML = "def f(x):\n\treturn  x &lt; 1  # tab, two spaces, &lt;angle&gt;\n"
PROSE = "<p>" + "This section describes how the configuration file controls the crawler in detail. " * 4 + "</p>"
CHROME = "<nav><p>Navigation menu entry that must never be part of the content extracted.</p></nav>"

PAGES = {
    "sphinx": f"""<html><head><link rel="stylesheet" href="_static/pygments.css"></head><body>{CHROME}
      <div class="document"><div class="documentwrapper"><div class="bodywrapper"><div class="body" role="main">
      <section id="x"><h1>Title<a class="headerlink" href="#x">¶</a></h1>{PROSE}
      <div class="highlight-python notranslate"><div class="highlight"><pre><span></span><span class="k">def</span> f(x):
\t<span class="k">return</span>  x &lt; 1  <span class="c1"># tab, two spaces, &lt;angle&gt;</span>
</pre></div></div></section></div></div></div>
      <div class="sphinxsidebar"><p>Sidebar text that is not part of the page content at all.</p></div></div></body></html>""",
    "readthedocs": f"""<html><body>{CHROME}<div class="wy-nav-content"><div class="rst-content">
      <div role="navigation"><p>Breadcrumbs are navigation, not the article body text.</p></div>
      <div role="main" class="document" itemscope="itemscope"><div itemprop="articleBody"><h1>Title</h1>{PROSE}
      <div class="highlight-python notranslate"><div class="highlight"><pre>{CODE_HTML}</pre></div></div></div></div>
      <footer><p>Footer text of the theme that is boilerplate and not content.</p></footer></div></div></body></html>""",
    "mkdocs-material": f"""<html><head><meta name="generator" content="mkdocs-1.6, mkdocs-material-9.5"></head><body>{CHROME}
      <div class="md-content" data-md-component="content"><article class="md-content__inner md-typeset"><h1>Title</h1>{PROSE}
      <div class="language-python highlight"><table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre><span></span><span class="normal">1</span>
<span class="normal">2</span></pre></div></td><td class="code"><div><pre><span></span><code>{CODE_HTML}</code></pre></div></td></tr></table></div>
      </article></div></body></html>""",
    "docusaurus": f"""<html><head><meta name="generator" content="Docusaurus v3.5.2"></head><body>{CHROME}
      <article><div class="theme-doc-markdown markdown"><header><h1>Title</h1></header>{PROSE}
      <div class="language-python codeBlockContainer"><pre class="prism-code language-python"><code class="codeBlockLines"><span class="token-line"><span class="token keyword">def</span> f(x):<br></span><span class="token-line">\treturn  x &lt; 1  # tab, two spaces, &lt;angle&gt;<br></span></code></pre>
      <button class="copyButton">Copy</button></div></div></article></body></html>""",
    "gitbook": f"""<html><head><meta name="generator" content="GitBook (7.0)"></head><body>{CHROME}<main>
      <header><h1>Title</h1></header><div data-testid="page.contentEditor">{PROSE}
      <pre><code class="language-python">{CODE_HTML}</code></pre></div>
      <div><p>Was this page helpful? Feedback widgets are not documentation content.</p></div></main></body></html>""",
}


@pytest.mark.parametrize("generator", sorted(PAGES))
def test_generator_content_node_and_exact_code(generator):
    out = extract_content(PAGES[generator], "https://docs.example.org/x.html")
    assert out["drop_reason"] is None
    assert out["code_blocks"] == [{"text": CODE, "language": "python"}], out["code_blocks"]
    text = "\n".join(out["excerpts"])
    assert "configuration file controls the crawler" in text
    assert "Navigation menu entry" not in text and "Sidebar text" not in text and "Footer text" not in text
    assert "Breadcrumbs" not in text and "Was this page helpful" not in text
    assert out["extractor"] == {"mkdocs-material": "mkdocs"}.get(generator, generator)
