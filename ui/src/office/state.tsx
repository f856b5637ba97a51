// Which document is open in an office editor (small, in the first page's bundle; the editor page
// itself loads on first use). ONLYOFFICE wins when both integrations open an extension, as in
// the native client.
import { signal } from '@preact/signals';
import { Lazy } from '../components/Lazy.tsx';
import { filesUrl, navigate } from '../state/router.ts';
import { features } from '../state/session.ts';

export type OfficeKind = 'onlyoffice' | 'wopi';
export interface OfficeDocument {
  path: string;
  name: string;
  kind: OfficeKind;
  mode: 'edit' | 'view';
}
export const officeOpen = signal<OfficeDocument | null>(null);

const extensionOf = (name: string) => (/\.([^.]+)$/.exec(name)?.[1] ?? '').toLowerCase();

/** The editor that opens this file name, or null. */
export function officeKindFor(name: string): OfficeKind | null {
  const ext = extensionOf(name);
  if (!ext) return null;
  const f = features.value;
  if (f.onlyoffice?.enabled && f.onlyoffice.extensions.includes(ext)) return 'onlyoffice';
  if (f.collabora?.enabled && f.collabora.extensions.includes(ext)) return 'wopi';
  return null;
}

export function openInOfficeEditor(path: string, name: string, canWrite: boolean): void {
  const kind = officeKindFor(name);
  if (kind) officeOpen.value = { path, name, kind, mode: canWrite ? 'edit' : 'view' };
}

export function OfficeHost() {
  return officeOpen.value ? (
    <Lazy
      load={() => import('./OfficeEditor.tsx')}
      props={{
        doc: officeOpen.value,
        onClose: () => {
          // The document has an address (viewers/state.tsx): Back off its own entry, else to its folder.
          const doc = officeOpen.value;
          officeOpen.value = null;
          if (history.state?.burrowViewer) history.back();
          else if (doc) navigate(filesUrl(doc.path), { keepScroll: true });
        },
      }}
    />
  ) : null;
}
