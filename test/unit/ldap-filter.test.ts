// RFC 4515 escaping of what a person types into the directory's search filter: the filter's
// special characters become hex escapes, so no input adds a term, a wildcard or a parenthesis.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { escapeFilterValue, fillFilter } from '../../src/ldap/filter.ts';
import { rdnValue } from '../../src/ldap/directory.ts';

test('special characters are escaped; everything else stays as typed', () => {
  assert.is(escapeFilterValue('*)(uid=*'), '\\2a\\29\\28uid=\\2a');
  assert.is(escapeFilterValue('bob)(|(uid=bob'), 'bob\\29\\28|\\28uid=bob');
  assert.is(escapeFilterValue('a\\b\u0000c'), 'a\\5cb\\00c');
  assert.is(escapeFilterValue('jörg.müller 🐻 & +#%'), 'jörg.müller 🐻 & +#%');
});

test('placeholders are filled with escaped values; unknown ones stay', () => {
  assert.is(
    fillFilter('(&(uid={username})(!(employeeType=disabled)))', { username: 'x)(uid=*' }),
    '(&(uid=x\\29\\28uid=\\2a)(!(employeeType=disabled)))',
  );
  assert.is(fillFilter('(member={dn})', { dn: 'cn=A (B)\\, C,ou=g' }), '(member=cn=A \\28B\\29\\5c, C,ou=g)');
  assert.is(fillFilter('(x={other})', { username: 'u' }), '(x={other})');
});

test("a DN's first value is its group name", () => {
  assert.is(rdnValue('cn=Staff,ou=groups,dc=example,dc=org'), 'Staff');
  assert.is(rdnValue('CN=Eltern\\, Kinder,OU=Groups,DC=corp'), 'Eltern, Kinder');
  assert.is(rdnValue('cn=Caf\\c3\\a9,ou=g'), 'Café');
});

test.run();
