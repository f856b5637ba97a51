// Wire shapes of the access model: groups, per-folder rules, the explainer and the folder's
// "Who has access" (the UI imports them).
import { z } from 'zod';
import { LEVELS } from '../files/access.ts';

export const accessLevel = z.enum(LEVELS);
export const subjectKind = z.enum(['account', 'group', 'everyone']);

export const groupMember = z.object({
  id: z.string(),
  username: z.string(),
  /** The directory that keeps this membership at every sign-in (`oidc`, `ldap`); null: added by hand. */
  source: z.enum(['oidc', 'ldap']).nullable(),
});
export const group = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  members: z.array(groupMember),
});
export type Group = z.infer<typeof group>;
export const groupList = z.object({ groups: z.array(group) });
export const groupAnswer = z.object({ group });
export const groupRenamed = z.object({ group: z.object({ id: z.string(), name: z.string() }) });

export const groupName = z.object({ name: z.string().min(1).max(100) });
export const groupParams = z.object({ id: z.string().min(1) });
export const memberParams = z.object({ id: z.string().min(1), userId: z.string().min(1) });
export const memberInput = z.object({ userId: z.string().min(1) });

export const subject = z.object({ kind: subjectKind, id: z.string(), name: z.string() });
export const rule = z.object({
  id: z.string(),
  /** The folder, as a virtual path (`Photos`, `Family/Finances`). */
  path: z.string(),
  subject,
  level: accessLevel,
  /** false: the rule speaks only for its folder (hidden always reaches below). */
  inherit: z.boolean(),
});
export type AccessRuleWire = z.infer<typeof rule>;
export const ruleList = z.object({ rules: z.array(rule) });
export const ruleAnswer = z.object({ rule });
export const ruleInput = z.object({
  path: z.string().min(1).max(4096),
  subject: z.object({ kind: subjectKind, id: z.string().max(200).optional() }),
  level: accessLevel,
  inherit: z.boolean().optional(),
});
export const ruleParams = z.object({ id: z.string().min(1) });

export const abilities = z.object({
  see: z.boolean(),
  download: z.boolean(),
  write: z.boolean(),
  delete: z.boolean(),
  share: z.boolean(),
});
export const limit = z.enum([
  'volume-read-only',
  'storage-read-only',
  'not-writable-here',
  'read-token',
  'not-their-volume',
]);
const decision = {
  /** What the person has here: the rules' level, less what the volume or the token takes away. */
  level: accessLevel,
  /** What the rules alone give (the same as `level` unless `limit` says otherwise). */
  ruleLevel: accessLevel,
  /** What a request of theirs may do here (as the request itself is checked). */
  can: abilities,
  /**
   * `rule`: the rule below decides; `default`: no rule names the account here or above (manage);
   * `volume`: the volume takes away what the rules give (`limit` says how); `token`: the token
   * the question was asked with only reads.
   */
  decidedBy: z.enum(['rule', 'default', 'volume', 'token']),
  rule: rule.nullable(),
  /**
   * What beyond the rules takes something away (null: nothing): the volume is read-only, its
   * storage is, the host does not let Burrow write there, the token only reads, or the folder is
   * in none of the account's volumes (an account given assigned volumes sees only those, and an
   * assigned volume is its account's alone).
   */
  limit: limit.nullable(),
};
export const explanation = z.object({
  path: z.string(),
  account: z.object({ id: z.string(), username: z.string() }),
  ...decision,
});
export type Explanation = z.infer<typeof explanation>;
export const whoHasAccess = z.object({
  path: z.string(),
  accounts: z.array(z.object({ account: z.object({ id: z.string(), username: z.string() }), ...decision })),
  rules: z.array(rule),
  /** The groups a rule here may name. */
  groups: z.array(z.object({ id: z.string(), name: z.string() })),
});
export type WhoHasAccess = z.infer<typeof whoHasAccess>;
