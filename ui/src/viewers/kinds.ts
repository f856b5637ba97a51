// What a viewer can show for a kind (the lower-cased extension): the server's table
// (src/files/kinds.ts), so the viewers and /api/preview agree.
import {
  AUDIO_KINDS,
  MARKDOWN_KINDS,
  PICTURE_KINDS,
  PLAYABLE_VIDEO_KINDS,
  RENDITION_ONLY_KINDS,
  TEXT_KINDS,
} from '../../../src/files/kinds.ts';

export type ViewKind = 'image' | 'pdf' | 'video' | 'audio' | 'markdown' | 'text' | 'none';

/** Pictures the browser cannot draw (or must not run): always the server's rendition. */
export const RENDITION_ONLY = RENDITION_ONLY_KINDS;

export function viewKind(kind: string): ViewKind {
  if (PICTURE_KINDS.has(kind)) return 'image';
  if (kind === 'pdf') return 'pdf';
  if (PLAYABLE_VIDEO_KINDS.has(kind)) return 'video';
  if (AUDIO_KINDS.has(kind)) return 'audio';
  if (MARKDOWN_KINDS.has(kind)) return 'markdown';
  if (TEXT_KINDS.has(kind)) return 'text';
  return 'none';
}

export const isEditable = (kind: string) => TEXT_KINDS.has(kind) || kind === 'svg';
