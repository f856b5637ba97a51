// The pieces of the access model the UI shows in two places (Administration → Permissions and a
// folder's "Who has access"): the words of each level, a rule list, and the form that sets a rule.
import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { ApiAnswer } from '../../../src/contract.ts';
import { ErrorNote } from '../components/common.tsx';
import { toast, toastError } from '../state/toasts.ts';
import './admin.css';

export type Rule = ApiAnswer<'GET /api/access/rules'>['rules'][number];
export type Level = Rule['level'];
type Explanation = ApiAnswer<'GET /api/access/explain'>;

export const LEVEL_WORDS: Record<Level, { name: string; says: string }> = {
  hidden: { name: 'Hidden', says: 'the folder does not exist for them' },
  view: { name: 'View', says: 'list and look, no download' },
  read: { name: 'Read', says: 'download too' },
  write: { name: 'Write', says: 'create, upload, change, rename, move in' },
  manage: { name: 'Manage', says: 'delete and share too, and change who has access' },
};
const LEVELS = Object.keys(LEVEL_WORDS) as Level[];

export function subjectWords(subject: Rule['subject']): string {
  if (subject.kind === 'everyone') return 'Everyone';
  return subject.kind === 'group' ? `Group ${subject.name}` : subject.name;
}

/** One line saying who decides: "Read — the rule for group Kids at Family/Photos", or the default. */
export function decisionWords(d: Pick<Explanation, 'level' | 'decidedBy' | 'rule'>): string {
  const level = `${LEVEL_WORDS[d.level].name} (${LEVEL_WORDS[d.level].says})`;
  if (!d.rule) return `${level}: no rule names them here or above, so every right, as without rules.`;
  return `${level}: the rule for ${subjectWords(d.rule.subject)} at “${d.rule.path}”${d.rule.inherit ? '' : ' (this folder only)'} decides.`;
}

export function RuleList({ rules, onChanged, here }: { rules: Rule[]; onChanged: () => void; here?: string }) {
  const remove = (r: Rule) =>
    api('DELETE /api/access/rules/:id', { params: { id: r.id } }).then(() => {
      toast('Rule removed');
      onChanged();
    }, toastError);
  if (rules.length === 0) return <p class="muted small">No rules: every account has every right here.</p>;
  return (
    <div class="table-wrap">
      <table class="data access-rules" aria-label="Rules">
        <thead>
          <tr>
            <th>Folder</th>
            <th>Who</th>
            <th>Level</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rules.map((r) => (
            <tr key={r.id}>
              <td dir="auto" data-label="Folder">
                {r.path}
                {here !== undefined && r.path !== here && <div class="muted small">inherited from above</div>}
                {!r.inherit && <div class="muted small">this folder only</div>}
              </td>
              <td dir="auto" data-label="Who">
                {subjectWords(r.subject)}
              </td>
              <td data-label="Level">
                <span class={`badge level-${r.level}`}>{LEVEL_WORDS[r.level].name}</span>
              </td>
              <td class="actions">
                <button
                  type="button"
                  class="small danger"
                  aria-label={`Remove the rule for ${subjectWords(r.subject)} at ${r.path}`}
                  onClick={() => void remove(r)}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Sets one rule: a folder (fixed or typed), who (everyone, a group, an account), a level, inherited or not. */
export function RuleForm({
  path: fixedPath,
  accounts,
  groups,
  onSaved,
}: {
  path?: string;
  accounts: { id: string; username: string }[];
  groups: { id: string; name: string }[];
  onSaved: () => void;
}) {
  const [path, setPath] = useState(fixedPath ?? '');
  const [who, setWho] = useState('everyone:');
  const [level, setLevel] = useState<Level>('read');
  const [inherit, setInherit] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const [kind, id] = who.split(':') as ['account' | 'group' | 'everyone', string];
    try {
      await api('PUT /api/access/rules', {
        body: { path: fixedPath ?? path, subject: kind === 'everyone' ? { kind } : { kind, id }, level, inherit },
      });
      setError(null);
      toast('Rule saved');
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="stack rule-form" onSubmit={submit} aria-label="Set a rule">
      <div class="form-grid">
        {fixedPath === undefined && (
          <label>
            Folder
            <input required placeholder="Family/Photos" value={path} onInput={(e) => setPath(e.currentTarget.value)} />
          </label>
        )}
        <label>
          Who
          <select value={who} onChange={(e) => setWho(e.currentTarget.value)}>
            <option value="everyone:">Everyone</option>
            {groups.length > 0 && (
              <optgroup label="Groups">
                {groups.map((g) => (
                  <option key={g.id} value={`group:${g.id}`}>
                    {g.name}
                  </option>
                ))}
              </optgroup>
            )}
            <optgroup label="Accounts">
              {accounts.map((a) => (
                <option key={a.id} value={`account:${a.id}`}>
                  {a.username}
                </option>
              ))}
            </optgroup>
          </select>
        </label>
        <label>
          Level
          <select value={level} onChange={(e) => setLevel(e.currentTarget.value as Level)}>
            {LEVELS.map((l) => (
              <option key={l} value={l}>
                {LEVEL_WORDS[l].name} — {LEVEL_WORDS[l].says}
              </option>
            ))}
          </select>
        </label>
        <label class="check">
          <input type="checkbox" checked={inherit} onChange={(e) => setInherit(e.currentTarget.checked)} /> Also for
          every folder below
        </label>
      </div>
      <ErrorNote error={error} />
      <div>
        <button class="primary">Set rule</button>
      </div>
    </form>
  );
}
