// Search results: names first, then documents that contain the term with the matching line.
import { useEffect, useState } from 'preact/hooks';
import { get, joinPath } from '../api/client.ts';
import type { SearchAnswer, SearchItem } from '../api/types.ts';
import { ErrorNote, Icon, Spinner } from '../components/common.tsx';
import { revealName } from '../folder/model.ts';
import { filesUrl, location, navigate } from '../state/router.ts';
import { iconFor } from '../util.ts';

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
  const open = () => {
    if (dir) navigate(filesUrl(joinPath(item.path, item.name)));
    else { revealName.value = item.name; navigate(filesUrl(item.path)); }
  };
  return (
    <li>
      <Icon name={dir ? 'folder' : iconFor(item.name.slice(item.name.lastIndexOf('.') + 1).toLowerCase())} />
      <div class="grow">
        <button type="button" class="link" dir="auto" onClick={open}><span class="result-name"><Highlight text={item.name} term={term} /></span></button>
        <div class="where" dir="auto">{item.path || 'Top'}{item.matchLineNumber ? ` · line ${item.matchLineNumber}` : ''}</div>
        {item.matchLine && <code class="match-line" dir="auto"><Highlight text={item.matchLine} term={term} /></code>}
      </div>
      {!dir && <button type="button" class="small" onClick={() => { revealName.value = item.name; navigate(filesUrl(item.path)); }}>Open folder</button>}
    </li>
  );
}

export default function Search() {
  const q = location.value.query.get('q') ?? '';
  const scope = location.value.query.get('path') ?? '';
  const [answer, setAnswer] = useState<SearchAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setAnswer(null); setError(null);
    if (q.trim().length < 3) return;
    let live = true;
    setBusy(true);
    const params = new URLSearchParams({ q, limit: '200' });
    if (scope) params.set('path', scope);
    get<SearchAnswer>(`/api/search?${params}`).then((a) => { if (live) setAnswer(a); }, (err) => { if (live) setError(err); }).finally(() => { if (live) setBusy(false); });
    return () => { live = false; };
  }, [q, scope]);
  const names = answer?.items.filter((i) => !i.matchLine && !i.matchLineNumber) ?? [];
  const content = answer?.items.filter((i) => i.matchLine || i.matchLineNumber) ?? [];
  return (
    <section class="page">
      <h1>Search{q ? <> for “<span dir="auto">{q}</span>”</> : ''}{scope ? <span class="muted"> in {scope}</span> : ''}</h1>
      {q.trim().length < 3 && <p class="muted">Type at least three characters in the search box. <code>*</code> and <code>?</code> make a name pattern.</p>}
      {busy && <Spinner label="Searching" />}
      <ErrorNote error={error} />
      {answer && !answer.items.length && <p class="muted">Nothing found.</p>}
      {names.length > 0 && <><h2>Names</h2><ul class="results" aria-label="Name matches">{names.map((i) => <Result key={`n${i.path}/${i.name}`} item={i} term={q} />)}</ul></>}
      {content.length > 0 && <><h2>In documents</h2><ul class="results" aria-label="Content matches">{content.map((i) => <Result key={`c${i.path}/${i.name}`} item={i} term={q} />)}</ul></>}
      {answer?.truncated && <p class="muted small">The search ran out of time before it looked everywhere; narrow it to a folder for the rest.</p>}
    </section>
  );
}
