// Search terms: parsing (bounds, hostile input), how close a name is, ordering, and the
// queries handed to FTS5 (always quoted: the term never becomes query syntax).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AppError } from '../../src/core/errors.ts';
import { compareNames, documentQuery, matchLine, nameTier, parseTerm, trigramPhrase } from '../../src/search/term.ts';

function refused(raw: string, code: string) {
  try {
    parseTerm(raw);
  } catch (err) {
    assert.instance(err, AppError);
    assert.is((err as AppError).status, 400);
    assert.is((err as AppError).code, code);
    return;
  }
  assert.unreachable(`${JSON.stringify(raw)} was accepted`);
}

test('terms need 3..200 characters, no control characters; patterns need a literal', () => {
  refused('ab', 'SEARCH_TERM_TOO_SHORT');
  refused('  ab  ', 'SEARCH_TERM_TOO_SHORT');
  refused('x'.repeat(201), 'SEARCH_TERM_TOO_LONG');
  refused('abc\u0000', 'SEARCH_TERM_INVALID');
  refused('***', 'SEARCH_PATTERN_TOO_BROAD');
  refused('*?*', 'SEARCH_PATTERN_TOO_BROAD');
  assert.is(parseTerm('日本語').kind, 'word');
  assert.is(parseTerm('  Report ').kind, 'word');
});

test('words: key lower-cased NFC, tokens are letters and digits', () => {
  const t = parseTerm('Cafe\u0301 Menu-2024');
  assert.is(t.kind, 'word');
  if (t.kind !== 'word') return;
  assert.is(t.key, 'café menu-2024');
  assert.equal(t.tokens, ['café', 'menu', '2024']);
});

test('patterns: * and ? over whole names, regex characters taken literally', () => {
  const t = parseTerm('scan*.pdf');
  assert.is(nameTier(t, 'scan-01.pdf'), 1);
  assert.is(nameTier(t, 'SCAN.PDF'), 1);
  assert.is(nameTier(t, 'scan-01.pdfx'), -1);
  assert.is(nameTier(t, 'xscan.pdf'), -1);
  const q = parseTerm('a+b?(1).txt');
  assert.is(nameTier(q, 'a+bc(1).txt'), 1);
  assert.is(nameTier(q, 'aabc(1).txt'), -1);
  if (t.kind === 'pattern') assert.is(t.longestLiteral, 'scan');
});

test('name tiers: exact (also without extension), prefix, word start, contains, none', () => {
  const t = parseTerm('report');
  assert.is(nameTier(t, 'Report'), 0);
  assert.is(nameTier(t, 'report.pdf'), 0);
  assert.is(nameTier(t, 'reports'), 1);
  assert.is(nameTier(t, 'annual-report.txt'), 2);
  assert.is(nameTier(t, 'misreported.txt'), 3);
  assert.is(nameTier(t, 'repo.txt'), -1);
});

test('ordering: tier, then shorter, then by name', () => {
  const items = [
    { tier: 3, name: 'x' },
    { tier: 1, name: 'reports-long' },
    { tier: 1, name: 'reports' },
    { tier: 0, name: 'report' },
    { tier: 1, name: 'reportb' },
    { tier: 1, name: 'reporta' },
  ];
  assert.equal(
    items.sort(compareNames).map((i) => i.name),
    ['report', 'reporta', 'reportb', 'reports', 'reports-long', 'x'],
  );
});

test('FTS5 queries are quoted phrases: hostile terms stay literal', () => {
  assert.is(trigramPhrase('say "hi"'), '"say ""hi"""');
  assert.is(trigramPhrase('ab'), null);
  assert.is(trigramPhrase('--pre=x'), '"--pre=x"');
  assert.is(documentQuery(parseTerm('quarterly report')), '"quarterly report"*');
  assert.is(documentQuery(parseTerm('%_"')), null, 'no letters or digits: no document query');
  assert.is(documentQuery(parseTerm('scan*.pdf')), null, 'patterns are for names only');
});

test('matchLine: first line with a word beginning with the term, 1-based, long lines cut around it', () => {
  const t = parseTerm('report');
  assert.equal(matchLine(t, 'first\nthe reportage is late\nreport'), {
    line: 'the reportage is late',
    lineNumber: 2,
    page: 1,
  });
  assert.is(matchLine(t, 'misreported only'), null);
  const long = `${'x '.repeat(200)}report here ${'y '.repeat(200)}`;
  const hit = matchLine(t, long)!;
  assert.ok(hit.line.includes('report here'));
  assert.ok(hit.line.length < 260);
});

test("matchLine: a paged text (a PDF's form feeds) gives the page, and the line's number in that page", () => {
  const t = parseTerm('garden');
  assert.equal(matchLine(t, 'Tax return 2024\nRefund due\fDeductions\nfor garden tools\nPage 2 of 2'), {
    line: 'for garden tools',
    lineNumber: 2,
    page: 2,
  });
});

test.run();
