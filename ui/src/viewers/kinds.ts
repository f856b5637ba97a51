// What a viewer can show for a kind (the lower-cased extension): the server's table
// (src/files/kinds.ts), so the viewers and /api/preview agree.
import {
  AUDIO_KINDS,
  MARKDOWN_KINDS,
  PICTURE_KINDS,
  RENDITION_ONLY_KINDS,
  TEXT_KINDS,
  VIDEO_KINDS,
} from '../../../src/files/kinds.ts';

export type ViewKind = 'image' | 'pdf' | 'video' | 'audio' | 'markdown' | 'text' | 'none';

/** Pictures the browser cannot draw (or must not run): always the server's rendition. */
export const RENDITION_ONLY = RENDITION_ONLY_KINDS;

export function viewKind(kind: string): ViewKind {
  if (PICTURE_KINDS.has(kind)) return 'image';
  if (kind === 'pdf') return 'pdf';
  if (VIDEO_KINDS.has(kind)) return 'video';
  if (AUDIO_KINDS.has(kind)) return 'audio';
  if (MARKDOWN_KINDS.has(kind)) return 'markdown';
  if (TEXT_KINDS.has(kind)) return 'text';
  return 'none';
}

export const isEditable = (kind: string) => TEXT_KINDS.has(kind) || kind === 'svg';

/**
 * Whether the browser's own PDF viewer shows a PDF in a frame here. Not on phones and tablets
 * (a coarse pointer): Android Chrome has no viewer (`pdfViewerEnabled` false) and iOS Safari's
 * shows only the first page. `localStorage['burrow.pdfViewer']` = `pdfjs` or `browser` decides
 * instead (tests, and a person who prefers one).
 */
export function browserShowsPdf(): boolean {
  let forced: string | null = null;
  try {
    forced = localStorage.getItem('burrow.pdfViewer');
  } catch {
    /* storage refused */
  }
  if (forced === 'pdfjs') return false;
  if (forced === 'browser') return true;
  return navigator.pdfViewerEnabled === true && matchMedia('(pointer: fine)').matches;
}
