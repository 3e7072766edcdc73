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
