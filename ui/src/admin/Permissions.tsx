// Administration → Permissions: every rule of the access model, a form to set one, and the
// explainer — "what can this account do at this folder, and which rule decides".
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { ApiAnswer } from '../../../src/contract.ts';
import { ErrorNote } from '../components/common.tsx';
import { RuleForm, RuleList, decisionWords, type Rule } from './access-rules.tsx';
import './admin.css';

type Explanation = ApiAnswer<'GET /api/access/explain'>;

function Explainer({ accounts }: { accounts: { id: string; username: string }[] }) {
  const [userId, setUserId] = useState('');
  const [path, setPath] = useState('');
  const [answer, setAnswer] = useState<Explanation | null>(null);
  const [error, setError] = useState<unknown>(null);
  const ask = async (e: Event) => {
    e.preventDefault();
    try {
      setAnswer(await api('GET /api/access/explain', { query: { path, userId: userId || accounts[0]?.id } }));
      setError(null);
    } catch (err) {
      setAnswer(null);
      setError(err);
    }
  };
  return (
    <form class="stack" onSubmit={ask} aria-label="Explain access">
      <div class="form-grid">
        <label>
          Account
          <select value={userId} onChange={(e) => setUserId(e.currentTarget.value)}>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.username}
              </option>
            ))}
          </select>
        </label>
        <label>
          Folder
          <input required placeholder="Family/Finances" value={path} onInput={(e) => setPath(e.currentTarget.value)} />
        </label>
      </div>
      <div>
        <button>Explain</button>
      </div>
      <ErrorNote error={error} />
      {answer && (
        <p class="notice explanation" role="status" dir="auto">
          <strong>{answer.account.username}</strong> at “{answer.path}”: {decisionWords(answer)}
        </p>
      )}
    </form>
  );
}

export function Permissions() {
  const [rules, setRules] = useState<Rule[] | null>(null);
  const [accounts, setAccounts] = useState<{ id: string; username: string }[]>([]);
  const [groups, setGroups] = useState<{ id: string; name: string }[]>([]);
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    Promise.all([
      api('GET /api/access/rules', {}).then((a) => setRules(a.rules)),
      api('GET /api/users').then((a) => setAccounts(a.users)),
      api('GET /api/access/groups').then((a) => setGroups(a.groups)),
    ]).then(() => setError(null), setError);
  useEffect(() => {
    void load();
  }, []);
  return (
    <div class="stack">
      <p class="muted small">
        A rule gives an account, a group or everyone a level at a folder, and at every folder below unless a nearer rule
        says otherwise. At one folder the lowest level among the rules that name a person wins. Where no rule names a
        person, they have every right.
      </p>
      <h2>Rules</h2>
      <ErrorNote error={error} />
      {rules && <RuleList rules={rules} onChanged={() => void load()} />}
      <h2>New rule</h2>
      <RuleForm accounts={accounts} groups={groups} onSaved={() => void load()} />
      <h2>Explain</h2>
      <Explainer accounts={accounts} />
    </div>
  );
}
