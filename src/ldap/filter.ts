// Values put into an LDAP search filter, escaped as RFC 4515 says: `*`, `(`, `)`, `\` and NUL
// become `\2a`, `\28`, `\29`, `\5c`, `\00`, so whatever a person types (`*)(uid=*`, `admin)(|(x=*`)
// is one value compared for equality and never widens the filter. Bytes beyond ASCII stay as
// they are (UTF-8 in the filter's string form, which RFC 4515 allows).
const SPECIAL: Record<string, string> = { '*': '\\2a', '(': '\\28', ')': '\\29', '\\': '\\5c', '\u0000': '\\00' };

export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\u0000]/g, (c) => SPECIAL[c]!);
}

/** The filter with each `{name}` placeholder replaced by its value, escaped. */
export function fillFilter(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? escapeFilterValue(values[name]!) : whole,
  );
}
