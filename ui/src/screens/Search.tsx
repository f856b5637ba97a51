// Search results: names first, then documents that contain the term with the matching line.
// The search answer names each match only, so size and date (and the thumbnail) come from the
// metadata route, asked for rows as they scroll into view, or for all of them to sort by. Sorting
// by date taken is the server's (it knows what every photo says, not only the ones shown).
import { signal } from '@preact/signals';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, joinPath, queryString } from '../api/client.ts';
import type { Metadata, SearchAnswer, SearchItem } from '../api/types.ts';
import { ErrorNote, Spinner } from '../components/common.tsx';
import { OpenFolderButton, Thumb } from '../folder/rows.tsx';
import { filesUrl, location, navigate } from '../state/router.ts';
import { openAtAddress } from '../viewers/state.tsx';
import { collator, formatBytes, formatDate } from '../util.ts';
import { THUMBNAIL_KINDS } from '../../../src/files/kinds.ts';
import { fieldText, parseQuery, withoutField, type FieldName, type ParsedQuery } from '../../../src/search/fields.ts';
import { tagVocabulary } from '../tags/tags.tsx';

const FIELD_LABELS: Record<FieldName, string> = {
  kind: 'Kind',
  ext: 'Type',
  size: 'Size',
  modified: 'Modified',
  taken: 'Taken',
  camera: 'Camera',
  artist: 'Artist',
  album: 'Album',
  tag: 'Tag',
  in: 'In',
};
const year = new Date().getFullYear();
/** What each "Add a filter" list offers: the value as written after `name:`, and its label. */
const OFFERS: { name: FieldName; label: string; options: [string, string][] }[] = [
  {
    name: 'kind',
    label: 'Kind',
    options: [
      ['photo', 'Photos'],
      ['video', 'Videos'],
      ['audio', 'Music and audio'],
      ['document', 'Documents'],
      ['pdf', 'PDF'],
      ['archive', 'Archives'],
      ['folder', 'Folders'],
    ],
  },
  {
    name: 'modified',
    label: 'Modified',
    options: [
      [`>=${year}`, `This year (${year})`],
      [`${year - 1}`, `Last year (${year - 1})`],
      [`<${year - 1}`, `Before ${year - 1}`],
    ],
  },
  {
    name: 'size',
    label: 'Size',
    options: [
      ['<1MB', 'Under 1 MB'],
      ['>10MB', 'Over 10 MB'],
      ['>100MB', 'Over 100 MB'],
      ['>1GB', 'Over 1 GB'],
    ],
  },
];

/** The query with one more field, as the box writes it. */
const withField = (q: string, name: FieldName, value: string) => `${q.trim()} ${fieldText(name, value)}`.trim();

/** The fields of the query as chips (× takes one out) and lists that add one. */
function FilterChips({ q, parsed, scope }: { q: string; parsed: ParsedQuery | null; scope: string }) {
  const go = (next: string) => navigate(`/search?${queryString({ q: next, path: scope || undefined })}`);
  const tags = tagVocabulary.value;
  return (
    <div class="search-filters" role="group" aria-label="Filters">
      {parsed?.fields.map((f) => (
        <span key={`${f.name}:${f.value}`} class="tag-chip filter-chip">
          <span dir="auto">
            {FIELD_LABELS[f.name]}: {f.value}
          </span>
          <button
            type="button"
            class="chip-remove"
            aria-label={`Remove filter ${FIELD_LABELS[f.name]}: ${f.value}`}
            onClick={() => go(withoutField(q, f))}
          >
            ×
          </button>
        </span>
      ))}
      {[
        ...OFFERS,
        ...(tags.length ? [{ name: 'tag' as const, label: 'Tag', options: tags.map((t) => [t.name, t.name]) }] : []),
      ].map((offer) => (
        <select
          key={offer.name}
          aria-label={`Add a filter: ${offer.label}`}
          value=""
          onChange={(e) => {
            const v = e.currentTarget.value;
            if (v) go(withField(q, offer.name, v));
          }}
        >
          <option value="">{offer.label}…</option>
          {offer.options.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      ))}
    </div>
  );
}

type Order = 'relevance' | 'name' | 'size' | 'modified' | 'taken';
const fullOf = (i: SearchItem) => joinPath(i.path, i.name);
/** Metadata of results by full path; `null` while asked or when it could not be read. */
const meta = signal<Record<string, Metadata | null>>({});
const asked = new Set<string>();

async function loadMeta(paths: string[]): Promise<void> {
  const todo = paths.filter((p) => !asked.has(p));
  todo.forEach((p) => asked.add(p));
  // A few at a time: a page of 200 results must not open 200 requests at once.
  for (let i = 0; i < todo.length; i += 6) {
    const batch = todo.slice(i, i + 6);
    const got = await Promise.all(
      batch.map((p) => api('GET /api/metadata/*', { params: { path: p } }).catch(() => null)),
    );
    meta.value = { ...meta.value, ...Object.fromEntries(batch.map((p, k) => [p, got[k]])) };
  }
}

function Highlight({ text, term }: { text: string; term: string }) {
  const t = term.replace(/[*?]/g, '').toLowerCase();
  if (!t) return <>{text}</>;
  const out = [];
  let rest = text;
  for (let guard = 0; guard < 50; guard++) {
    const i = rest.toLowerCase().indexOf(t);
    if (i < 0) break;
    out.push(rest.slice(0, i), <mark>{rest.slice(i, i + t.length)}</mark>);
    rest = rest.slice(i + t.length);
  }
  out.push(rest);
  return <>{out}</>;
}

function Result({ item, term }: { item: SearchItem; term: string }) {
  const dir = item.kind === 'dir';
  const full = fullOf(item);
  const row = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (asked.has(full)) return;
    const io = new IntersectionObserver((seen) => {
      if (seen.some((s) => s.isIntersecting)) {
        io.disconnect();
        void loadMeta([full]);
      }
    });
    io.observe(row.current!);
    return () => io.disconnect();
  }, [full]);
  const m = meta.value[full];
  const ext = item.name.includes('.') ? item.name.slice(item.name.lastIndexOf('.') + 1).toLowerCase() : 'unknown';
  const asItem = {
    name: item.name,
    path: item.path,
    kind: dir ? 'directory' : ext,
    size: m?.size ?? 0,
    dateModified: m?.dateModified ?? '',
    supportsThumbnail: !dir && THUMBNAIL_KINDS.has(ext),
  };
  // A folder opens; a file opens at its own address (the viewer, or its office editor), and Back
  // or Close comes back to these results. "Open folder" shows it in its folder.
  const open = () => (dir ? navigate(filesUrl(full)) : openAtAddress(full));
  return (
    <li ref={row} data-name={item.name}>
      <Thumb item={asItem} size={32} />
      <div class="grow">
        <button type="button" class="link" dir="auto" onClick={open}>
          <span class="result-name">
            <Highlight text={item.name} term={term} />
          </span>
        </button>
        <div class="where" dir="auto">
          {item.path || 'Top'}
          {/* A PDF's passage is told by its page; a text's by its line. */}
          {item.matchPage ? ` · page ${item.matchPage}` : item.matchLineNumber ? ` · line ${item.matchLineNumber}` : ''}
        </div>
        {item.matchLine && (
          <code class="match-line" dir="auto">
            <Highlight text={item.matchLine} term={term} />
          </code>
        )}
      </div>
      <div class="meta muted">
        {m ? (
          <>
            {!dir && <span class="size">{formatBytes(m.size)}</span>}
            <span class="date">{formatDate(m.dateModified)}</span>
            {/* EXIF's date taken is the camera's clock (no zone): shown as written. */}
            {m.image?.dateTaken && <span class="taken">Taken {m.image.dateTaken.replace('T', ' ').slice(0, 16)}</span>}
          </>
        ) : (
          ''
        )}
      </div>
      {!dir && <OpenFolderButton path={item.path} name={item.name} />}
    </li>
  );
}

function ordered(list: SearchItem[], order: Order): SearchItem[] {
  // Relevance and date taken: as the server answered.
  if (order === 'relevance' || order === 'taken') return list;
  const m = meta.value;
  const by = (i: SearchItem) =>
    order === 'size' ? (m[fullOf(i)]?.size ?? -1) : Date.parse(m[fullOf(i)]?.dateModified ?? '') || 0;
  // Size and date: largest and newest first; name: A to Z.
  return [...list].sort((a, b) =>
    order === 'name' ? collator.compare(a.name, b.name) : by(b) - by(a) || collator.compare(a.name, b.name),
  );
}

export default function Search() {
  const q = location.value.query.get('q') ?? '';
  const scope = location.value.query.get('path') ?? '';
  // The answer with the query and folder it answers: one for an earlier query is never shown
  // (between a new query and its effect, the page would show the list from before).
  const [answered, setAnswered] = useState<{ q: string; scope: string; taken: boolean; answer: SearchAnswer } | null>(
    null,
  );
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [order, setOrder] = useState<Order>('relevance');
  const byTaken = order === 'taken';
  const answer =
    answered && answered.q === q && answered.scope === scope && answered.taken === byTaken ? answered.answer : null;
  // The same reading of the query as the server's (search/fields.ts): chips, and whether to ask.
  let parsed: ParsedQuery | null = null;
  let fieldError: unknown = null;
  try {
    parsed = parseQuery(q);
  } catch (err) {
    fieldError = err;
  }
  const askable = parsed !== null && (parsed.text.length >= 3 || (parsed.fields.length > 0 && parsed.text === ''));
  useEffect(() => {
    if ((order === 'size' || order === 'modified') && answer) void loadMeta(answer.items.map(fullOf));
  }, [order, answer]);
  useEffect(() => {
    setAnswered(null);
    setError(null);
    if (!askable) return;
    let live = true;
    setBusy(true);
    api('GET /api/search', {
      query: { q, limit: 200, ...(scope ? { path: scope } : {}), ...(byTaken ? { sort: 'taken' } : {}) },
    })
      .then(
        (a) => {
          if (live) setAnswered({ q, scope, taken: byTaken, answer: a });
        },
        (err) => {
          if (live) setError(err);
        },
      )
      .finally(() => {
        if (live) setBusy(false);
      });
    return () => {
      live = false;
    };
  }, [q, scope, byTaken]);
  const names = ordered(answer?.items.filter((i) => !i.matchLine && !i.matchLineNumber) ?? [], order);
  const content = ordered(answer?.items.filter((i) => i.matchLine || i.matchLineNumber) ?? [], order);
  return (
    <section class="page">
      <h1>
        Search
        {q ? (
          <>
            {' '}
            for “<span dir="auto">{q}</span>”
          </>
        ) : (
          ''
        )}
        {scope ? <span class="muted"> in {scope}</span> : ''}
      </h1>
      <FilterChips q={q} parsed={parsed} scope={scope} />
      <ErrorNote error={fieldError} />
      {!askable && !fieldError && (
        <p class="muted">
          Type at least three characters in the search box, or choose a filter. <code>*</code> and <code>?</code> make a
          name pattern; <code>kind:photo</code>, <code>ext:pdf</code>, <code>size:&gt;100MB</code>,{' '}
          <code>modified:&lt;2024-06</code>, <code>taken:2025</code>, <code>camera:pixel</code>,{' '}
          <code>artist:"Nina Simone"</code>, <code>tag:receipts</code>, <code>in:"Family Photos"</code> and{' '}
          <code>"a phrase"</code> narrow it.
        </p>
      )}
      {busy && <Spinner label="Searching" />}
      <ErrorNote error={error} />
      {answer && !answer.items.length && <p class="muted">Nothing found.</p>}
      {((answer && answer.items.length > 1) || byTaken) && (
        <label class="sort-by">
          Sort by{' '}
          <select aria-label="Sort results" value={order} onChange={(e) => setOrder(e.currentTarget.value as Order)}>
            <option value="relevance">Relevance</option>
            <option value="name">Name</option>
            <option value="size">Size (largest first)</option>
            <option value="modified">Date (newest first)</option>
            <option value="taken">Date taken (photos, newest first)</option>
          </select>
        </label>
      )}
      {names.length > 0 && (
        <>
          <h2>Names</h2>
          <ul class="results search-results" aria-label="Name matches">
            {names.map((i) => (
              <Result key={`n${i.path}/${i.name}`} item={i} term={q} />
            ))}
          </ul>
        </>
      )}
      {content.length > 0 && (
        <>
          <h2>In documents</h2>
          <ul class="results search-results" aria-label="Content matches">
            {content.map((i) => (
              <Result key={`c${i.path}/${i.name}`} item={i} term={q} />
            ))}
          </ul>
        </>
      )}
      {answer?.truncated && (
        <p class="muted small">
          The search ran out of time before it looked everywhere; narrow it to a folder for the rest.
        </p>
      )}
    </section>
  );
}
