// What each kind of file is, by its kind (the lower-cased extension, src/files/items.ts): one
// table read by the server (which kinds /api/preview serves, which get thumbnails) and by the
// web interface (which viewer opens a file), so the two cannot drift. Pure: no Node imports.

/** Pictures: thumbnails and renditions from the image add-on; shown in the picture viewer. */
export const PICTURE_KINDS: ReadonlySet<string> = new Set([
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
/** Pictures the browser cannot draw (or must not run, SVG): the viewer always shows the server's rendition. */
export const RENDITION_ONLY_KINDS: ReadonlySet<string> = new Set(['svg', 'tif', 'tiff', 'heic', 'heif']);

/** Video a browser's player plays. */
export const PLAYABLE_VIDEO_KINDS: ReadonlySet<string> = new Set(['mp4', 'm4v', 'mov', 'webm', 'mkv', 'ogv', '3gp']);
/** All video: posters by ffmpeg when it is installed; streamed with Range, or converted (src/video). */
export const VIDEO_KINDS: ReadonlySet<string> = new Set([
  ...PLAYABLE_VIDEO_KINDS,
  'avi',
  'wmv',
  'mpg',
  'mpeg',
  'flv',
  'm2ts',
  'mts',
]);
export const AUDIO_KINDS: ReadonlySet<string> = new Set([
  'mp3',
  'm4a',
  'aac',
  'wav',
  'flac',
  'ogg',
  'oga',
  'opus',
  'weba',
]);
/** Pictures that carry EXIF (date taken, camera, GPS): read for the metadata answer and search. */
export const EXIF_KINDS: ReadonlySet<string> = new Set([
  'jpg',
  'jpeg',
  'tif',
  'tiff',
  'heic',
  'heif',
  'png',
  'webp',
  'avif',
]);
/** Audio whose tags are read (title, artist, album…). */
export const TAGGED_AUDIO_KINDS: ReadonlySet<string> = new Set([...AUDIO_KINDS, 'wma', 'aiff']);
/** Files whose facts search knows (date taken and camera, artist and album): the indexer reads them. */
export const SEARCH_FACT_KINDS: ReadonlySet<string> = new Set([...EXIF_KINDS, ...TAGGED_AUDIO_KINDS]);
export const MARKDOWN_KINDS: ReadonlySet<string> = new Set(['md', 'markdown']);
/** Text kinds `GET /api/preview` also serves inline (as sandboxed plain text). */
const PREVIEW_TEXT_KINDS: ReadonlySet<string> = new Set([
  ...MARKDOWN_KINDS,
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
  'toml',
]);
/** Text and code: the read-only viewer with syntax colours, and the editor. */
export const TEXT_KINDS: ReadonlySet<string> = new Set([
  ...PREVIEW_TEXT_KINDS,
  'cfg',
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
]);

/** Kinds `GET /api/preview` serves inline with their real Content-Type (others answer 415). */
export const PREVIEW_KINDS: ReadonlySet<string> = new Set([
  ...PICTURE_KINDS,
  ...VIDEO_KINDS,
  ...AUDIO_KINDS,
  'pdf',
  ...PREVIEW_TEXT_KINDS,
]);

/**
 * Kinds the thumbnail maker can draw (videos only when ffmpeg is installed, songs only when they
 * carry a cover: the thumbnail is then "" otherwise; never PDF).
 */
export const THUMBNAIL_KINDS: ReadonlySet<string> = new Set([...PICTURE_KINDS, ...VIDEO_KINDS, ...AUDIO_KINDS]);
