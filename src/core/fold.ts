// How names people type are compared where letter case must not matter — account names, emails,
// group names: compatibility-composed (NFKC: a name typed decomposed, or in full-width letters,
// is the same name) and lower-cased in every script (JÖRG and jörg alike; ß and SS not, as
// PostgreSQL's `nocase` collation and case-insensitive file systems compare). SQLite's own
// NOCASE folds ASCII alone, so the stores compare with this where both databases must agree.

/** A name as compared. */
export function foldName(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}
