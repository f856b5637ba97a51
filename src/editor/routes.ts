// The text editor: read (ETag, If-None-Match 304 after the permission check, compressed over
// 32 KB) and save (editor/service.ts; If-Match refuses a save over a file changed since).
import { reply, route, wholeText } from '../http/route.ts';
import type { Editor } from './service.ts';
import { IF_MATCH, editorQuery, editorRead, editorSave, editorText, savedAnswer } from './wire.ts';

const readAnswers = {
  // A wholeText reply (ETag, 304, compression).
  200: { description: '`{ content }` with ETag', schema: editorText },
  304: 'Unchanged',
  400: 'Over EDITOR_MAX_FILESIZE',
  415: 'Binary file',
} as const;

export function editorRoutes(editor: Editor, maxBytes: number) {
  return [
    route({
      method: 'GET',
      path: '/api/editor',
      access: 'account',
      summary: 'Read a text file for editing',
      tags: ['Editor'],
      query: editorQuery,
      responses: readAnswers,
      handler: async ({ caller, query }) => {
        const text = await editor.read(caller, query.path);
        return wholeText({ content: text.content }, text.etag);
      },
    }),
    route({
      method: 'POST',
      path: '/api/editor',
      access: 'account',
      scope: 'read',
      summary: 'Read a text file for editing (older clients)',
      tags: ['Editor'],
      body: editorRead,
      responses: readAnswers,
      handler: async ({ caller, body }) => {
        const text = await editor.read(caller, body.path);
        return wholeText({ content: text.content }, text.etag);
      },
    }),
    route({
      method: 'PUT',
      path: '/api/editor',
      access: 'account',
      summary: 'Save a text file in the encoding it already has (the replaced text is kept as a version)',
      tags: ['Editor'],
      body: editorSave,
      bodyLimit: maxBytes * 6 + 64 * 1024,
      requestHeaders: { 'If-Match': IF_MATCH },
      responses: {
        200: { description: '`{ success }` with the ETag the next read will carry', schema: savedAnswer },
        400: 'Over EDITOR_MAX_FILESIZE',
        412: 'EDITOR_CHANGED: If-Match does not match the file as it is now; nothing was written',
        415: 'Binary file',
      },
      handler: async ({ caller, body, req }) =>
        reply(
          200,
          { success: true },
          { ETag: (await editor.save(caller, body.path, body.content, req.headers['if-match'])).etag },
        ),
    }),
  ];
}
