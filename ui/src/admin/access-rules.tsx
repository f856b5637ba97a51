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

/** What the volume or the token takes away from what the rules give, as a sentence's end. */
const LIMIT_WORDS: Record<NonNullable<Explanation['limit']>, string> = {
  'volume-read-only': 'the volume is read-only',
  'storage-read-only': "the volume's storage is read-only",
  'not-writable-here': 'the host does not let Burrow write in this folder',
  'read-token': 'the token asking only reads',
  'not-their-volume': 'this volume is not one of theirs (an account given assigned volumes sees only those)',
};

/** What a request of theirs may do here, as a list: "see, download and share". */
export function abilityWords(can: Explanation['can']): string {
  const words = (['see', 'download', 'write', 'delete', 'share'] as const).filter((k) => can[k]);
  if (words.length === 0) return 'nothing';
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** The rules' part: "the rule for group Kids at “Family/Photos” decides", or the default. */
function ruleWords(d: Pick<Explanation, 'rule'>): string {
  if (!d.rule) return 'no rule names them here or above, so every right, as without rules';
  return `the rule for ${subjectWords(d.rule.subject)} at “${d.rule.path}”${d.rule.inherit ? '' : ' (this folder only)'} decides`;
}

/**
 * One line saying what decides: "Read — the rule for group Kids at Family/Photos", the default,
 * or what the volume or the token takes away from what the rules give.
 */
export function decisionWords(
  d: Pick<Explanation, 'level' | 'ruleLevel' | 'decidedBy' | 'rule' | 'limit' | 'can'>,
): string {
  const level = `${LEVEL_WORDS[d.level].name} (${LEVEL_WORDS[d.level].says})`;
  if (d.limit === 'not-their-volume') return `${level}: ${LIMIT_WORDS[d.limit]}.`;
  if (d.limit)
    return `${LEVEL_WORDS[d.level].name}: ${LIMIT_WORDS[d.limit]}, so they may ${abilityWords(d.can)}; the rules give ${LEVEL_WORDS[d.ruleLevel].name} (${ruleWords(d)}).`;
  return `${level}: ${ruleWords(d)}.`;
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
