// Asking what to do with names that are taken, before an upload, a paste, a move or an
// extraction: keep both, skip or replace, one name at a time, with "do this for all". The server
// lists the taken names first (POST /api/files/conflicts, /api/archive/conflicts) and then
// applies each answer as the item's `conflict`; closing the dialog cancels the whole operation.
import { useState } from 'preact/hooks';
import type { FileItem } from '../api/types.ts';
import { formatBytes, formatDate } from '../util.ts';
import { Dialog, showDialog } from './Dialog.tsx';

export type ConflictChoice = 'rename' | 'skip' | 'replace';
export type ConflictVerb = 'upload' | 'copy' | 'move' | 'extract';

const DOING: Record<ConflictVerb, string> = {
  upload: 'Uploading',
  copy: 'Copying',
  move: 'Moving',
  extract: 'Extracting',
};
const CANCEL: Record<ConflictVerb, string> = {
  upload: 'Cancel upload',
  copy: 'Cancel copy',
  move: 'Cancel move',
  extract: 'Cancel extraction',
};

/** One taken name, as the server answered it, with what would arrive there. */
export interface ConflictAsk {
  /** The item's name, the path of an uploaded file inside the destination, or an archive entry's path. */
  name: string;
  existing: FileItem;
  /** Both files or both folders. */
  sameKind: boolean;
  canReplace: boolean;
  incoming?: { size?: number; isDirectory?: boolean; modified?: string | number };
}

const isFolder = (i: FileItem) => i.kind === 'directory';

/**
 * Asks about every conflict; resolves each name's answer, or null when the user cancelled (then
 * nothing is done at all).
 */
export function askConflicts(
  conflicts: ConflictAsk[],
  context: { verb: ConflictVerb; destination: string },
): Promise<Map<string, ConflictChoice> | null> {
  if (!conflicts.length) return Promise.resolve(new Map());
  return new Promise((resolve) => {
    showDialog((close) => (
      <ConflictDialog
        conflicts={conflicts}
        context={context}
        done={(answers) => {
          close();
          resolve(answers);
        }}
      />
    ));
  });
}

function ConflictDialog({
  conflicts,
  context,
  done,
}: {
  conflicts: ConflictAsk[];
  context: { verb: ConflictVerb; destination: string };
  done: (answers: Map<string, ConflictChoice> | null) => void;
}) {
  const [index, setIndex] = useState(0);
  const [answers] = useState(() => new Map<string, ConflictChoice>());
  const [forAll, setForAll] = useState(false);
  const current = conflicts[index]!;
  const left = conflicts.length - index;
  const folderName = context.destination.split('/').pop() || context.destination || 'this folder';
  const existingIsFolder = isFolder(current.existing);
  const incomingIsFolder = current.incoming?.isDirectory ?? (current.sameKind ? existingIsFolder : !existingIsFolder);

  const choose = (choice: ConflictChoice) => {
    const rest = forAll ? conflicts.slice(index) : [current];
    for (const c of rest)
      // "Replace for all" never replaces what this account may not replace: those keep both.
      answers.set(c.name, choice === 'replace' && !c.canReplace ? 'rename' : choice);
    if (forAll || index + 1 >= conflicts.length) done(answers);
    else {
      setIndex(index + 1);
      setForAll(false);
    }
  };

  const replaceNote = !current.canReplace
    ? 'You may not replace it here.'
    : existingIsFolder || incomingIsFolder !== existingIsFolder
      ? `The ${existingIsFolder ? 'folder' : 'file'} there goes to the trash (folders are not merged).`
      : 'The file there is kept as an earlier version.';
  const name = current.name.split('/').pop()!;

  return (
    <Dialog title={`“${name}” already exists`} onClose={() => done(null)}>
      <div class="stack conflict-dialog" data-conflict={current.name}>
        <p>
          {conflicts.length > 1 && (
            <span class="muted small conflict-count">
              {index + 1} of {conflicts.length}
              <br />
            </span>
          )}
          A {existingIsFolder ? 'folder' : 'file'} named <strong dir="auto">{name}</strong> is already in{' '}
          <strong dir="auto">{folderName}</strong>
          {context.verb === 'upload' && current.name.includes('/') && (
            <span class="muted small" dir="auto">
              {' '}
              ({current.name.split('/').slice(0, -1).join('/')})
            </span>
          )}
          .
        </p>
        <dl class="conflict-facts">
          <dt>There now</dt>
          <dd>
            {existingIsFolder ? 'Folder' : formatBytes(current.existing.size)}, modified{' '}
            {formatDate(current.existing.dateModified)}
          </dd>
          {current.incoming && (
            <>
              <dt>{DOING[context.verb]}</dt>
              <dd>
                {incomingIsFolder ? 'Folder' : formatBytes(current.incoming.size ?? 0)}
                {current.incoming.modified !== undefined &&
                  `, modified ${formatDate(new Date(current.incoming.modified).toISOString())}`}
              </dd>
            </>
          )}
        </dl>
        <div class="conflict-choices">
          <button type="button" class="primary" autoFocus onClick={() => choose('rename')}>
            Keep both
            <span class="small">The new one gets a numbered name</span>
          </button>
          <button type="button" onClick={() => choose('skip')}>
            Skip
            <span class="small">Leave this one as it is</span>
          </button>
          <button type="button" disabled={!current.canReplace} onClick={() => choose('replace')}>
            Replace
            <span class="small">{replaceNote}</span>
          </button>
        </div>
        {left > 1 && (
          <label class="check">
            <input type="checkbox" checked={forAll} onChange={(e) => setForAll(e.currentTarget.checked)} />
            Do this for all {left} conflicts
          </label>
        )}
        <div class="actions">
          <button type="button" onClick={() => done(null)}>
            {CANCEL[context.verb]}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
