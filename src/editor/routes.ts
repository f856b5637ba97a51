// The text editor: read (ETag, If-None-Match 304 after the permission check, compressed over
// 32 KB) and save (editor/service.ts; If-Match refuses a save over a file changed since).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isNotModified } from '../http/conditional.ts';
import { reply, route } from '../http/route.ts';
import { sendWholeText } from '../http/send.ts';
import type { Editor } from './service.ts';
import { IF_MATCH, editorQuery, editorRead, editorSave, editorText, savedAnswer, type EditorText } from './wire.ts';

/** The text with its ETag (compressed when large), or 304 when the client's copy is current. */
export async function sendEditorText(
  req: IncomingMessage,
  res: ServerResponse,
  text: EditorText & { etag: string },
): Promise<void> {
  const { etag } = text;
  const headers = { ETag: etag, 'Cache-Control': 'private, no-cache' };
  if (isNotModified(req, { etag })) {
    res.writeHead(304, headers).end();
    return;
  }
  await sendWholeText(
    req,
    res,
    200,
    JSON.stringify({ content: text.content }),
    'application/json; charset=utf-8',
    headers,
  );
}

const readAnswers = {
  // Written by sendWholeText (compression), so the JSON is declared with its content type.
  200: { description: '`{ content }` with ETag', schema: editorText, contentType: 'application/json' },
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
      handler: async ({ caller, query, req, res }) => sendEditorText(req, res, await editor.read(caller, query.path)),
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
      handler: async ({ caller, body, req, res }) => sendEditorText(req, res, await editor.read(caller, body.path)),
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
