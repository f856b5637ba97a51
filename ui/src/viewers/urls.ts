// Addresses of a file's bytes for the viewers (server-side: src/previews/routes.ts).
import { encodePath, get } from '../api/client.ts';

export const previewUrl = (path: string) => `/api/preview?path=${encodeURIComponent(path)}`;
export const rawUrl = (path: string) => `/api/raw?path=${encodeURIComponent(path)}`;
export const downloadUrl = (path: string) => `/api/download/${encodePath(path)}`;

/** A screen-sized rendition (WebP, EXIF orientation applied) or '' when the server has none. */
export async function renditionUrl(path: string, size: number): Promise<string> {
  const a = await get<{ thumbnail: string }>(`/api/thumbnails/${encodePath(path)}?size=${Math.round(size)}`);
  return a.thumbnail ?? '';
}
