// The questions operations ask: where to copy/move, and whether a delete may go ahead.
import { showDialog, confirmDialog } from '../components/Dialog.tsx';
import { FolderPicker } from '../components/FolderPicker.tsx';
import type { FileItem } from '../api/types.ts';
import { toastError } from '../state/toasts.ts';
import { formatBytes } from '../util.ts';
import type { DeleteImpact } from '../api/types.ts';
import { deleteImpact, deleteItems, refOf, transfer } from './actions.ts';
import { folderPath } from './model.ts';

export function copyMoveDialog(mode: 'copy' | 'move', items: FileItem[]): void {
  if (!items.length) return;
  showDialog((close) => (
    <FolderPicker
      title={`${mode === 'copy' ? 'Copy' : 'Move'} ${items.length === 1 ? `“${items[0]!.name}”` : `${items.length} items`} to…`}
      start={folderPath.value}
      confirm={mode === 'copy' ? 'Copy here' : 'Move here'}
      onClose={close}
      onPick={(dest) => {
        void transfer(mode, items.map(refOf), dest);
      }}
    />
  ));
}

function ImpactText({ impact, count }: { impact: DeleteImpact; count: number }) {
  const shares = impact.shareCount;
  const favs = impact.favoriteCount;
  const bytes = impact.totalBytes;
  return (
    <div class="stack">
      <p>
        {count === 1 ? 'This item goes' : `These ${count} items go`} to the trash
        {impact.fileCount || impact.dirCount
          ? ` (${impact.truncated ? 'at least ' : ''}${formatBytes(bytes)}${impact.fileCount ? `, ${impact.fileCount} file${impact.fileCount === 1 ? '' : 's'}` : ''})`
          : ''}
        . You can restore from the trash.
      </p>
      {(shares > 0 || favs > 0) && (
        <div class="warning" role="alert">
          <strong>Also removed for everyone:</strong>
          <ul>
            {shares > 0 && (
              <li>
                {shares} share link{shares === 1 ? '' : 's'}
                {impact.shares.length
                  ? `: ${impact.shares
                      .map((s) => s.label || s.sourcePath)
                      .filter(Boolean)
                      .slice(0, 5)
                      .join(', ')}`
                  : ''}
              </li>
            )}
            {favs > 0 && (
              <li>
                {favs} favourite{favs === 1 ? '' : 's'}
              </li>
            )}
          </ul>
        </div>
      )}
    </div>
  );
}

export async function confirmDelete(items: FileItem[]): Promise<void> {
  if (!items.length) return;
  let impact: DeleteImpact;
  try {
    impact = await deleteImpact(items);
  } catch (err) {
    toastError(err, 'Could not check what the delete affects');
    return;
  }
  const ok = await confirmDialog({
    title: items.length === 1 ? `Delete “${items[0]!.name}”?` : `Delete ${items.length} items?`,
    body: <ImpactText impact={impact} count={items.length} />,
    confirm: 'Move to trash',
    danger: true,
  });
  if (ok) await deleteItems(items);
}
