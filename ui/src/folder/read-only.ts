// Why a folder is read-only, as its banner says it: the explainer's answer (GET
// /api/access/explain) tells a read-only volume or storage — the volume's own, which no rule
// lifts — from a rule that gives the person no more than read; without an answer yet (or in a
// link), what the listing's access says.
import type { ApiAnswer } from '../../../src/contract.ts';
import type { Access } from '../api/types.ts';

export type Explanation = ApiAnswer<'GET /api/access/explain'>;

const LEVEL_NAMES: Record<Explanation['level'], string> = {
  hidden: 'Hidden',
  view: 'View',
  read: 'Read',
  write: 'Write',
  manage: 'Manage',
};

function subjectWords(subject: NonNullable<Explanation['rule']>['subject']): string {
  if (subject.kind === 'everyone') return 'everyone';
  return subject.kind === 'group' ? `group ${subject.name}` : subject.name;
}

export function readOnlyWords(a: Pick<Access, 'readOnly'>, e: Explanation | null): string {
  switch (e?.limit) {
    case 'volume-read-only':
      return 'Read-only volume: the administrator serves this whole volume read-only, whatever the rules give.';
    case 'storage-read-only':
      return "Read-only storage: the volume's disk is mounted read-only, whatever the rules give.";
    case 'not-writable-here':
      return 'Read-only here: the host does not let the server write in this folder, whatever the rules give.';
    case 'read-token':
      return 'Read-only: the token in use only reads.';
  }
  if (e?.rule && (e.level === 'view' || e.level === 'read'))
    return `Read-only by a rule: the rule for ${subjectWords(e.rule.subject)} at “${e.rule.path}” gives you ${LEVEL_NAMES[e.level]}.`;
  if (a.readOnly === 'storage') return 'Read-only (the storage is mounted read-only).';
  if (a.readOnly === 'permission') return 'Read-only (the server may not write here).';
  return a.readOnly ? 'Read-only (your access is read-only).' : 'Read-only.';
}
