// The text of the formats the extractor reads from markup: HTML (what a reader sees, no script
// or style), RTF (body text only, Windows-1252 and Unicode escapes), an EPUB's spine order.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { documentKind, epubSpine, htmlText, rtfText } from '../../src/indexer/extract.ts';

test('documentKind: plain text is read by the walker, the rest by the extractor', () => {
  assert.is(documentKind('Notes.md'), 'text');
  assert.is(documentKind('Tax return 2024 (final).PDF'), 'pdf');
  assert.is(documentKind('Le Petit Prince.epub'), 'epub');
  assert.is(documentKind('Lettre à Zoé.rtf'), 'rtf');
  assert.is(documentKind('Saved page.html'), 'html');
  assert.is(documentKind('Budget 2025.xlsx'), 'office');
  assert.is(documentKind('holiday.jpg'), null);
});

test('htmlText: visible words, entities decoded after the tags are gone, script and style dropped', () => {
  const text = htmlText(
    '<!doctype html><html><head><title>t</title><style>.x{color:red}</style></head><body><h1>Caf&eacute; &amp; crème</h1>' +
      '<p>Price &lt;b&gt; 3&nbsp;€</p><script>var secret="gnome"</script><!-- hidden --><p>Zo&#233; &#x1F600;</p></body></html>',
  );
  assert.ok(text.includes('& crème'));
  assert.ok(text.includes('Price <b> 3 €'), text);
  assert.ok(text.includes('Zoé 😀'));
  assert.not.ok(text.includes('gnome'));
  assert.not.ok(text.includes('hidden'));
  assert.not.ok(text.includes('color'));
});

test('rtfText: body text only, with Windows-1252 and Unicode escapes', () => {
  const rtf =
    '{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times New Roman;}}{\\colortbl;\\red0\\green0\\blue0;}{\\*\\generator Writer;}' +
    "{\\info{\\title Secret title}}\\f0\\fs24 Ch\\'e8re Zo\\'e9,\\par Les \\u8220?tomates\\u8221? sont m\\u251?res.\\par}";
  const text = rtfText(rtf);
  assert.is(text, 'Chère Zoé,\nLes “tomates” sont mûres.');
});

test("epubSpine: the package's reading order, paths relative to the package document", () => {
  const opf =
    '<package><manifest><item id="c2" href="Text/ch%202.xhtml" media-type="application/xhtml+xml"/>' +
    '<item id="c1" href="Text/ch1.xhtml" media-type="application/xhtml+xml"/></manifest>' +
    '<spine><itemref idref="c1"/><itemref idref="c2"/></spine></package>';
  assert.equal(epubSpine('OEBPS/content.opf', opf), ['OEBPS/Text/ch1.xhtml', 'OEBPS/Text/ch 2.xhtml']);
});

test.run();
