// Addresses of a file's bytes for the viewers (server-side: src/previews/routes.ts).
import { api, apiUrl } from '../api/client.ts';

export const previewUrl = (path: string) => apiUrl('GET /api/preview', { query: { path } });
export const rawUrl = (path: string) => apiUrl('GET /api/raw', { query: { path } });
export const downloadUrl = (path: string) => apiUrl('GET /api/download/*', { params: { path } });

/** A screen-sized rendition (WebP, EXIF orientation applied) or '' when the server has none. */
export async function renditionUrl(path: string, size: number): Promise<string> {
  const a = await api('GET /api/thumbnails/*', { params: { path }, query: { size: Math.round(size) } });
  return a.thumbnail ?? '';
}
