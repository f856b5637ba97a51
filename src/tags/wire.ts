// Wire shapes of tags: an account's own words on files and folders.
import { z } from 'zod';
import { fileItem } from '../files/wire.ts';

export const TAG_MAX = 64;
export const tagName = z
  .string()
  .min(1)
  .max(TAG_MAX * 4)
  .describe(
    `A tag: 1 to ${TAG_MAX} characters, any letters, digits, spaces, emoji and signs but \`/\`, \`,\` and control characters; compared without case (NFC)`,
  );

export const tagGroup = z.object({ id: z.string(), name: z.string() });
export const tagSummary = z.object({
  name: z.string(),
  count: z.number().int().describe('How many files and folders this account tagged with it'),
  groups: z.array(tagGroup).describe("The account's groups it shares this tag's name with"),
});
export const groupTag = z.object({
  name: z.string(),
  groups: z.array(tagGroup).describe('The groups of this account where another member shares it'),
});
export const tagList = z.object({
  tags: z.array(tagSummary),
  groups: z.array(tagGroup).describe("The account's groups: where it may share its tags' names"),
  shared: z
    .array(groupTag)
    .describe(
      "Tags other members of this account's groups share, to reuse (their names only: the items they tagged stay theirs); the account's own tags are not repeated",
    ),
});
export type TagList = z.infer<typeof tagList>;

export const taggedItem = fileItem.extend({ tags: z.array(z.string()) });
export type TaggedItem = z.infer<typeof taggedItem>;
export const taggedFiles = z.object({
  tag: z.string(),
  items: z.array(taggedItem).describe('What carries the tag and the account may still see, by path'),
});
export type TaggedFiles = z.infer<typeof taggedFiles>;

export const pathTags = z.object({ path: z.string(), tags: z.array(z.string()) });
export type PathTags = z.infer<typeof pathTags>;
export const pathTagsList = z.object({ items: z.array(pathTags) });
export type PathTagsList = z.infer<typeof pathTagsList>;

export const applyBody = z.object({
  paths: z.array(z.string()).min(1).max(1000).describe('Files and folders (virtual paths)'),
  add: z.array(tagName).max(50).optional(),
  remove: z.array(tagName).max(50).optional(),
});
export type ApplyBody = z.infer<typeof applyBody>;

export const tagParams = z.object({ name: tagName });
export const tagGroupParams = z.object({ name: tagName, groupId: z.string().min(1).max(200) });
export const renameBody = z.object({ name: tagName });
