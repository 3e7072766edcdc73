"""lxml → markdown for excerpts: the shapes documentation pages use."""

import lxml.html
import pytest

from skill3crawl.extract.fastmd import to_markdown


@pytest.mark.parametrize(
    "html, md",
    [
        ("<div><h2>Title <a class='x' href='#t'>¶</a></h2><p>Text with <code>x = 1</code> and <em>em</em>.</p></div>",
         "## Title ¶\n\nText with `x = 1` and *em*."),
        ("<div><p>See <a href='https://e.org/a'>the docs</a> and <strong>bold</strong></p></div>",
         "See [the docs](https://e.org/a) and **bold**"),
        ("<div><ul><li>one</li><li><p>two</p><p>more</p></li></ul><ol><li>a</li><li>b</li></ol></div>",
         "- one\n\n- two\n\nmore\n\n1. a\n\n2. b"),
        ("<div><dl><dt>json.dumps(obj)</dt><dd><p>Serialize <em>obj</em>.</p></dd></dl></div>",
         "json.dumps(obj)\n\nSerialize *obj*."),
        ("<div><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table></div>", "| k | v |\n\n| a | 1 |"),
        ("<div>loose text <b>x</b><p>para</p>tail</div>", "loose text **x**\n\npara\n\ntail"),
        ("<div><p>a<br>b</p><pre>code</pre><script>x()</script><blockquote>quote</blockquote></div>", "a b\n\n> quote"),
        # what a reader sees: a superscript is a word of its own, a spacer span a space
        ("<div><p>Class SwitchBootstraps<sup>PREVIEW</sup> holds bootstraps.</p></div>",
         "Class SwitchBootstraps PREVIEW holds bootstraps."),
        # a footnote's number, a link around a superscript: a word of its own too; a plain link is not
        ("<div><p>setting macros<a id='D20' href='#FOOT20'><sup>20</sup></a> in a file, see<a href='#x'>here</a>.</p></div>",
         "setting macros 20 in a file, seehere."),
        ("<div><p>f(<em><span>t</span><span>:</span><span class='w'> </span><span>Union</span></em>)</p></div>", "f(*t: Union*)"),
    ],
)
def test_to_markdown(html, md):
    assert to_markdown(lxml.html.fragment_fromstring(html)) == md


_DROP = ".//pre|.//script|.//style|.//nav|.//*[contains(@class,'headerlink')]"


@pytest.mark.parametrize(
    "html",
    [
        "<div><h2>Title<a class='headerlink' href='#t'>¶</a></h2><p>Text</p></div>",
        "<div><h2>Title<a class='headerlink' href='#t'>¶</a> after</h2></div>",  # a tail joined to the text before
        "<div><p>a <b>b</b> tail<pre>x</pre> more <i>c</i></p></div>",  # a tail joined to the previous element's tail
        "<div><pre>first</pre>then text<p>p</p></div>",  # no previous element, no parent text
        "<div>lead<pre>first</pre>then<script>s()</script>and<style>x{}</style>end</div>",  # consecutive drops
        "<div><nav><a class='headerlink'>¶</a>n<pre>p</pre></nav>tail<p>x</p></div>",  # drops inside a drop
        "<div><p>x<!-- c -->after comment<pre>y</pre>z</p></div>",  # a comment as the previous sibling
        "<div><p>keep</p></div>",  # nothing to drop
        "<div><pre>a</pre><pre>b</pre><pre>c</pre></div>",  # only drops, no tails
    ],
)
def test_dropped_is_drop_tree_on_a_copy_and_restores_the_tree(html):
    import copy

    from lxml import etree

    from skill3crawl.extract.content import dropped

    find = etree.XPath(_DROP)
    root = lxml.html.fragment_fromstring(html)
    node = root  # a content node inside a page: its parent and tail must stay as they were too
    page = lxml.html.fragment_fromstring("<section>before</section>")
    page.append(node)
    node.tail = "node tail"
    before = etree.tostring(page)
    elements = list(page.iter())
    expected = copy.deepcopy(node)
    for el in expected.xpath(_DROP):
        el.drop_tree()
    with dropped(node, find):
        assert etree.tostring(node, with_tail=False) == etree.tostring(expected, with_tail=False)
        assert to_markdown(node) == to_markdown(expected)
    assert etree.tostring(page) == before
    assert all(a is b for a, b in zip(list(page.iter()), elements, strict=True))  # the same elements, in order


def test_dropped_restores_the_tree_when_the_block_raises():
    from lxml import etree

    from skill3crawl.extract.content import dropped

    node = lxml.html.fragment_fromstring("<div>a<pre>b</pre>c<nav>d</nav>e</div>")
    before = etree.tostring(node)
    with pytest.raises(RuntimeError), dropped(node, etree.XPath(_DROP)):
        raise RuntimeError("in the block")
    assert etree.tostring(node) == before
