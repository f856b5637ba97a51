// One search, sent by every client's encoding (names.ts CLIENTS), must find exactly the same names.
import * as assert from 'uvu/assert';
import { CLIENTS } from './names.ts';

export interface SearchCase {
  fields: [string, string][];
  /** The names found, in any order (compared in NFC). */
  want: string[];
}

export async function everyClientFinds(serverUrl: string, cookie: string, cases: SearchCase[]): Promise<void> {
  for (const client of CLIENTS)
    for (const c of cases) {
      const sent = await client.send(`${serverUrl}/api/search`, c.fields, { headers: { cookie } });
      const body = sent.body.toString('utf8');
      assert.is(sent.status, 200, `${client.name} ${sent.query}: ${body}`);
      const got = JSON.parse(body)
        .items.map((i: { name: string }) => i.name.normalize('NFC'))
        .sort();
      assert.equal(got, [...c.want].sort(), `${client.name} ${sent.query}`);
    }
}
