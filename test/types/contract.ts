// The compile-time claims of http/route.ts and of the UI's typed client (ui/src/api/client.ts),
// pinned: every `@ts-expect-error` row below must fail to compile for the reason its comment
// gives (TypeScript reports an unused @ts-expect-error, so a claim that stops holding fails
// `npm run typecheck`); the rows without one must compile. Nothing here runs: the file is
// compiled by the typecheck (tsconfig.json includes test/), never by a test group.
import { z } from 'zod';
import { noContent, reply, route, wholeText, type RouteDef } from '../../src/http/route.ts';
import type { ApiAnswer, ApiKey } from '../../src/contract.ts';
import { api, apiFetch, apiPath, apiUrl } from '../../ui/src/api/client.ts';
import type { Features, TrashEntry } from '../../ui/src/api/types.ts';

const named = z.object({ name: z.string() });
const answers = { 200: { description: 'A name', schema: named }, 404: 'No such thing' };
const base = { summary: 'A row of the type test', tags: ['Test'] };

// ---- route(): the handler is checked against the row's own access, params and answers ----
export const rows: RouteDef[] = [
  route({
    ...base,
    method: 'GET',
    path: '/t/fits',
    access: 'account',
    responses: answers,
    handler: ({ caller }) => ({ name: caller.userId }),
  }),
  route({
    ...base,
    method: 'GET',
    path: '/t/wrong-type',
    access: 'account',
    responses: answers,
    // @ts-expect-error an answer field of the wrong type (name is a string)
    handler: () => ({ name: 42 }),
  }),
  route({
    ...base,
    method: 'GET',
    path: '/t/misspelt',
    access: 'account',
    responses: answers,
    // @ts-expect-error an answer without the declared field (nme for name)
    handler: () => ({ nme: 'Anna' }),
  }),
  route({
    ...base,
    method: 'GET',
    path: '/t/reply',
    access: 'account',
    responses: answers,
    // @ts-expect-error a reply(200, …) body is checked like a plain answer
    handler: () => reply(200, { name: null }),
  }),
  route({
    ...base,
    method: 'DELETE',
    path: '/t/no-content',
    access: 'account',
    responses: { 204: { description: 'Gone' } },
    handler: () => noContent(),
  }),
  route({
    ...base,
    method: 'GET',
    path: '/t/public',
    access: 'public',
    responses: answers,
    // @ts-expect-error caller.userId on a public row (the caller may be null)
    handler: ({ caller }) => ({ name: caller.userId }),
  }),
  route({
    ...base,
    method: 'GET',
    path: '/t/public-checked',
    access: 'public',
    responses: answers,
    handler: ({ caller }) => ({ name: caller?.userId ?? 'anonymous' }),
  }),
  route({
    ...base,
    method: 'GET',
    path: '/t/:id',
    access: 'account',
    responses: answers,
    // @ts-expect-error a path parameter the path does not declare (only :id)
    handler: ({ params }) => ({ name: params.other }),
  }),
  route({
    ...base,
    method: 'GET',
    path: '/t/:id/files/*',
    access: 'account',
    responses: answers,
    handler: ({ params }) => ({ name: `${params.id}/${params.path}` }),
  }),
  route({
    ...base,
    method: 'GET',
    path: '/t/:id/schema',
    access: 'account',
    // @ts-expect-error a params schema naming a parameter the path does not have
    params: z.object({ id: z.string(), other: z.string() }),
    responses: answers,
    handler: ({ params }) => ({ name: params.id }),
  }),
  route({
    ...base,
    method: 'POST',
    path: '/t/body',
    access: 'account',
    body: named,
    responses: answers,
    // @ts-expect-error a body field the schema does not have
    handler: ({ body }) => ({ name: body.title }),
  }),
  route({
    ...base,
    method: 'GET',
    path: '/t/share/:token/name',
    access: 'link',
    responses: answers,
    // A link row's handler holds its link: the holder's caller and the link's share, typed.
    handler: ({ link }) => ({ name: `${link.caller.userId} ${link.row.token}` }),
  }),
  route({
    ...base,
    method: 'GET',
    path: '/t/share/:token/wrong',
    access: 'link',
    responses: answers,
    // @ts-expect-error the held link's share has no such field
    handler: ({ link }) => ({ name: link.row.secret }),
  }),
  route({
    ...base,
    method: 'GET',
    path: '/t/not-a-link',
    access: 'account',
    responses: answers,
    // @ts-expect-error an account row holds no link
    handler: ({ link }) => ({ name: link.caller.userId }),
  }),
  route({
    ...base,
    method: 'GET',
    // @ts-expect-error a link row names its link (:token) in its path
    path: '/t/share/:id/name',
    access: 'link',
    responses: answers,
    handler: ({ params }) => ({ name: params.id }),
  }),
  route({
    ...base,
    method: 'GET',
    path: '/t/whole',
    access: 'account',
    responses: answers,
    // A whole text (compressed, 304 for its ETag) is checked against the 200 schema like any answer.
    handler: () => wholeText({ name: 'Readme.md' }, '"etag"'),
  }),
  route({
    ...base,
    method: 'GET',
    path: '/t/whole-wrong',
    access: 'account',
    responses: answers,
    // @ts-expect-error a whole text's body is checked too
    handler: () => wholeText({ content: 'Readme' }),
  }),
];

// ---- the UI's client: calls name a row of the table, with its own input and answer ----
export async function calls(signal: AbortSignal) {
  const created = await api('POST /api/files/folder', { body: { path: 'Documents/Taxes 2024', name: 'Q&A #1' } });
  const folder: string = created.item.name;

  // @ts-expect-error a body field the row does not take (nam for name)
  await api('POST /api/files/folder', { body: { path: 'Documents', nam: 'Reports' } });
  // @ts-expect-error a body without a required field
  await api('POST /api/files/folder', { body: { path: 'Documents' } });

  const listing = await api('GET /api/browse/*', { params: { path: 'Music/Ärzte & Co' } }, { signal });
  const names: string[] = listing.items.map((i) => i.name);
  // @ts-expect-error a field the answer does not have
  void listing.entries;

  // @ts-expect-error a path that is not in the table
  await api('GET /api/browse-everything');
  // @ts-expect-error the right path with a method the table does not have for it
  await api('PUT /api/trash');

  // @ts-expect-error a path with parameters needs them
  await api('GET /api/browse/*');
  // @ts-expect-error a parameter the path does not have
  await api('DELETE /api/shares/:id', { params: { id: 'x', token: 'y' } });
  await api('DELETE /api/shares/:id', { params: { id: 'x' } });

  const found = await api('GET /api/search', { query: { q: 'Morning Tune', limit: 200 } });
  const hits: number = found.items.length;
  // @ts-expect-error a query field the row does not read
  await api('GET /api/search', { query: { term: 'x' } });

  // A row whose answer is bytes is read through apiFetch / apiUrl, never as JSON.
  // @ts-expect-error GET /api/raw answers bytes
  await api('GET /api/raw', { query: { path: 'Photos/a.jpg' } });
  const raw: Response = await apiFetch('GET /api/raw', { query: { path: 'Photos/a.jpg' } });
  const href: string = apiUrl('GET /api/download/*', { params: { path: 'Photos/Summer 2024' } });
  // @ts-expect-error the query of a raw row is typed too
  apiUrl('GET /api/raw', { query: { file: 'Photos/a.jpg' } });

  const trashSize: number | null = (null as unknown as ApiAnswer<'GET /api/trash'>).items[0]!.size;
  const key: ApiKey = 'GET /api/trash';

  // The UI's wire types are the server's: a trash entry's size may be unknown (null).
  const entry = null as unknown as TrashEntry;
  // @ts-expect-error TrashEntry.size is number | null, as the server answers it
  const entrySize: number = entry.size;
  // The features' sections are the server's too.
  const features = null as unknown as Features;
  const uploads: boolean | undefined = features.uploads?.chunked;
  // @ts-expect-error a section field the server does not send
  void features.uploads?.resumable;

  // A row that reads the request itself may be sent nothing (a TUS creation); its body is still typed.
  await apiFetch('POST /api/upload/tus');
  // @ts-expect-error a stream row takes bytes or a form, not an object
  await apiFetch('POST /api/upload/tus', { body: { name: 'a' } });
  // apiPath names a row of the table only.
  const tus: string = apiPath('POST /api/upload/tus');
  // @ts-expect-error a path that is not in the table
  apiPath('POST /api/upload/tusd');
  return { folder, names, hits, raw, href, trashSize, key, entrySize, uploads, tus };
}
