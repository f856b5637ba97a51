// A folder's "Who has access" (administrators, and whoever a manage rule names there): every
// account's level at this folder with the rule that decides it, the rules in force here and
// above, and a form to set one here. Loaded on first use.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { ApiAnswer } from '../../../src/contract.ts';
import { Dialog, showDialog } from '../components/Dialog.tsx';
import { ErrorNote, Spinner } from '../components/common.tsx';
import { LEVEL_WORDS, RuleForm, RuleList, decisionWords } from '../admin/access-rules.tsx';
import { reload } from './model.ts';

type Who = ApiAnswer<'GET /api/access/who'>;

function WhoHasAccess({ path }: { path: string }) {
  const [who, setWho] = useState<Who | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    api('GET /api/access/who', { query: { path } }).then((a) => {
      setWho(a);
      setError(null);
    }, setError);
  useEffect(() => {
    void load();
  }, [path]);
  const changed = () => {
    void load();
    // The folder's own access may have changed for the one looking.
    void reload();
  };
  if (error) return <ErrorNote error={error} />;
  if (!who) return <Spinner />;
  return (
    <div class="stack who-has-access">
      <div class="table-wrap">
        <table class="data" aria-label="Accounts and their access">
          <thead>
            <tr>
              <th>Account</th>
              <th>Level</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {who.accounts.map((a) => (
              <tr key={a.account.id}>
                <td dir="auto">{a.account.username}</td>
                <td data-label="Level">
                  <span class={`badge level-${a.level}`}>{LEVEL_WORDS[a.level].name}</span>
                </td>
                <td class="small" dir="auto" data-label="Why">
                  {decisionWords(a)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>Rules here and above</h3>
      <RuleList rules={who.rules} here={who.path} onChanged={changed} />
      <h3>Set a rule on this folder</h3>
      <RuleForm path={who.path} accounts={who.accounts.map((a) => a.account)} groups={who.groups} onSaved={changed} />
    </div>
  );
}

export function openWhoHasAccess(path: string): void {
  showDialog((close) => (
    <Dialog title={`Who has access to ${path.slice(path.lastIndexOf('/') + 1)}`} onClose={close} wide>
      <WhoHasAccess path={path} />
    </Dialog>
  ));
}
