// What a viewer can show for a kind (the lower-cased extension).
export type ViewKind = 'image' | 'pdf' | 'video' | 'audio' | 'markdown' | 'text' | 'none';

const IMAGE = new Set([
  'jpg',
  'jpeg',
  'png',
  'gif',
  'webp',
  'avif',
  'bmp',
  'ico',
  'svg',
  'tif',
  'tiff',
  'heic',
  'heif',
]);
const VIDEO = new Set(['mp4', 'm4v', 'mov', 'webm', 'mkv', 'ogv', '3gp']);
const AUDIO = new Set(['mp3', 'm4a', 'aac', 'wav', 'flac', 'ogg', 'oga', 'opus', 'weba']);
const MARKDOWN = new Set(['md', 'markdown']);
export const TEXT = new Set([
  'txt',
  'log',
  'csv',
  'tsv',
  'json',
  'xml',
  'html',
  'htm',
  'yaml',
  'yml',
  'ini',
  'conf',
  'cfg',
  'toml',
  'env',
  'properties',
  'js',
  'mjs',
  'cjs',
  'jsx',
  'ts',
  'tsx',
  'css',
  'scss',
  'less',
  'py',
  'rb',
  'go',
  'rs',
  'c',
  'h',
  'cpp',
  'hpp',
  'cc',
  'java',
  'kt',
  'cs',
  'php',
  'sh',
  'bash',
  'zsh',
  'fish',
  'ps1',
  'bat',
  'sql',
  'lua',
  'pl',
  'r',
  'swift',
  'dart',
  'vue',
  'svelte',
  'gitignore',
  'dockerfile',
  'makefile',
  'cmake',
  'gradle',
  'diff',
  'patch',
  'srt',
  'vtt',
  'tex',
  'rst',
  'adoc',
  'org',
  'nfo',
  'md',
  'markdown',
]);
/** Pictures the browser cannot draw (or must not run): always the server's rendition. */
export const RENDITION_ONLY = new Set(['svg', 'tif', 'tiff', 'heic', 'heif']);

export function viewKind(kind: string): ViewKind {
  if (IMAGE.has(kind)) return 'image';
  if (kind === 'pdf') return 'pdf';
  if (VIDEO.has(kind)) return 'video';
  if (AUDIO.has(kind)) return 'audio';
  if (MARKDOWN.has(kind)) return 'markdown';
  if (TEXT.has(kind)) return 'text';
  return 'none';
}

export const isEditable = (kind: string) => TEXT.has(kind) || kind === 'svg';
