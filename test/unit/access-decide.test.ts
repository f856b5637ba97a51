// The access model's one decision (access/decide.ts): at one folder the lowest level among the
// rules naming a person by account or group wins (a deny beats an allow), and everyone's rule
// there speaks for everyone else — so "the group writes, everyone else: hidden" at a volume's
// root is a volume for that group.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide, snapshotOf, type Rule } from '../../src/access/decide.ts';

const rule = (path: string, subjectKind: Rule['subjectKind'], subjectId: string, level: Rule['level']): Rule => ({
  id: `${path}|${subjectKind}|${subjectId}`,
  path,
  subjectKind,
  subjectId,
  level,
  inherit: true,
});
const members = [
  { groupId: 'parents', userId: 'pia' },
  { groupId: 'kids', userId: 'pia' },
  { groupId: 'kids', userId: 'kid' },
];

test('everyone hidden beside a group allowed at one folder: the group writes, everyone else sees nothing', () => {
  const s = snapshotOf(
    [
      rule('Finances 2025 & Taxes', 'group', 'parents', 'write'),
      rule('Finances 2025 & Taxes', 'everyone', '', 'hidden'),
    ],
    members,
  );
  assert.is(decide(s, 'pia', 'Finances 2025 & Taxes/a.txt').level, 'write');
  assert.is(decide(s, 'pia', 'Finances 2025 & Taxes').rule?.subjectKind, 'group');
  assert.is(decide(s, 'kid', 'Finances 2025 & Taxes').level, 'hidden');
  assert.is(decide(s, 'kid', 'Finances 2025 & Taxes/deep/b.txt').rule?.subjectKind, 'everyone');
});

test('among the rules naming a person the deny still wins: a group hidden beats a group or account allowed', () => {
  const s = snapshotOf(
    [
      rule('Home', 'group', 'parents', 'write'),
      rule('Home', 'group', 'kids', 'hidden'),
      rule('Home', 'everyone', '', 'read'),
      rule('Home/Allowance', 'account', 'kid', 'read'),
      rule('Home/Allowance', 'group', 'kids', 'view'),
    ],
    members,
  );
  assert.is(decide(s, 'pia', 'Home').level, 'hidden', 'in both groups: the deny');
  assert.is(decide(s, 'someone', 'Home').level, 'read', 'named by no group: everyone');
  assert.is(decide(s, 'kid', 'Home/Allowance').level, 'view');
  // A group rule that does not inherit leaves everyone's hidden to speak below it.
  const t = snapshotOf(
    [{ ...rule('Box', 'group', 'parents', 'write'), inherit: false }, rule('Box', 'everyone', '', 'hidden')],
    members,
  );
  assert.is(decide(t, 'pia', 'Box').level, 'write');
  assert.is(decide(t, 'pia', 'Box/inside').level, 'hidden');
});

test.run();
