// Tags: GET rows read (an API token that may only read can list them), the rest change.
import { z } from 'zod';
import { route } from '../http/route.ts';
import { queryPath } from '../http/query.ts';
import type { Tags } from './service.ts';
import {
  applyBody,
  pathTags,
  pathTagsList,
  renameBody,
  tagGroupParams,
  tagList,
  tagName,
  tagParams,
  taggedFiles,
} from './wire.ts';

const TAGS = ['Tags'];

export function tagRoutes(tags: Tags) {
  return [
    route({
      method: 'GET',
      path: '/api/tags',
      access: 'account',
      summary: "This account's tags, with how many items carry each, and the tags its groups share",
      description:
        "`tags`: the account's own, each with the groups it shares the tag's name with; `shared`: tags other members of the account's groups share, to reuse (adding one spells it as shared). Never another account's items.",
      tags: TAGS,
      responses: { 200: { description: 'Tags by name', schema: tagList } },
      handler: ({ caller }) => tags.list(caller),
    }),
    route({
      method: 'GET',
      path: '/api/tags/files',
      access: 'account',
      summary: 'Everything this account tagged with a tag and may still see',
      description:
        'Items the account can no longer see (hidden by a rule, no longer assigned, gone) are left out; their tag stays.',
      tags: TAGS,
      query: z.object({ tag: tagName }),
      responses: {
        200: { description: 'The tag as spelled and its items, by path', schema: taggedFiles },
        400: 'Not a tag',
        401: 'Not signed in',
      },
      handler: ({ caller, query }) => tags.files(caller, query.tag),
    }),
    route({
      method: 'GET',
      path: '/api/tags/folder',
      access: 'account',
      summary: 'Tags of the items directly inside a folder',
      tags: TAGS,
      query: z.object({ path: queryPath('virtual', z.string()) }),
      responses: {
        200: { description: 'Tagged items of the folder with their tags', schema: pathTagsList },
        400: 'Not a folder or a bad path',
        404: 'No such folder',
      },
      handler: ({ caller, query }) => tags.inFolder(caller, query.path),
    }),
    route({
      method: 'GET',
      path: '/api/tags/item',
      access: 'account',
      summary: 'Tags of one file or folder',
      tags: TAGS,
      query: z.object({ path: queryPath('virtual', z.string()) }),
      responses: {
        200: { description: 'The item and its tags', schema: pathTags },
        400: 'A bad path or the top',
        404: 'No such item',
      },
      handler: ({ caller, query }) => tags.of(caller, query.path),
    }),
    route({
      method: 'POST',
      path: '/api/tags/apply',
      access: 'account',
      summary: 'Add and remove tags on several files and folders at once',
      description:
        'Every path is checked first; one that does not exist for the caller refuses the whole request and nothing changes. ' +
        'A tag the account already has keeps its spelling.',
      tags: TAGS,
      body: applyBody,
      responses: {
        200: { description: 'Each item with its tags now', schema: pathTagsList },
        400: 'Not a tag, no tag named, a bad path or the top',
        403: 'An API token that may only read',
        404: 'A path that does not exist',
      },
      handler: ({ caller, body }) => tags.apply(caller, body.paths, body.add, body.remove),
    }),
    route({
      method: 'PATCH',
      path: '/api/tags/:name',
      access: 'account',
      summary: 'Rename a tag on everything it is on (merging into a tag of the new name)',
      tags: TAGS,
      params: tagParams,
      body: renameBody,
      responses: {
        200: { description: 'The tags now', schema: tagList },
        400: 'Not a tag',
        404: 'No such tag',
      },
      handler: ({ caller, params, body }) => tags.rename(caller, params.name, body.name),
    }),
    route({
      method: 'DELETE',
      path: '/api/tags/:name',
      access: 'account',
      summary: 'Take a tag off everything it is on',
      tags: TAGS,
      params: tagParams,
      responses: { 200: { description: 'The tags now', schema: tagList }, 404: 'No such tag' },
      handler: ({ caller, params }) => tags.drop(caller, params.name),
    }),
    route({
      method: 'PUT',
      path: '/api/tags/:name/groups/:groupId',
      access: 'account',
      summary: "Share one of this account's tags (its name) with a group it is in",
      description:
        "The group's members see the tag in `shared` of GET /api/tags and reuse it on their own items; the items this account tagged stay its own. Again: nothing changes.",
      tags: TAGS,
      params: tagGroupParams,
      responses: {
        200: { description: 'The tags now', schema: tagList },
        400: 'Not a tag',
        403: 'An API token that may only read',
        404: 'No such tag, or not a group of this account',
      },
      handler: ({ caller, params }) => tags.share(caller, params.name, params.groupId),
    }),
    route({
      method: 'DELETE',
      path: '/api/tags/:name/groups/:groupId',
      access: 'account',
      summary: "Stop sharing one of this account's tags with a group",
      tags: TAGS,
      params: tagGroupParams,
      responses: {
        200: { description: 'The tags now', schema: tagList },
        400: 'Not a tag',
        403: 'An API token that may only read',
        404: 'This account does not share this tag with that group',
      },
      handler: ({ caller, params }) => tags.unshare(caller, params.name, params.groupId),
    }),
  ];
}
