// The name of a new zip, shared with the web interface (which proposes it before asking the
// server): one item gives its name (a file without its extension), several the folder's.
import { splitName } from '../files/name-split.ts';

/** `name` with `.zip` added unless it ends so already. */
export const zipName = (name: string) => (/\.zip$/i.test(name) ? name : `${name}.zip`);

/** The default name (before `.zip`) of a zip of `items` made in the folder named `folderName`. */
export function defaultZipStem(items: { name: string; isDirectory: boolean }[], folderName: string): string {
  if (items.length === 1) {
    const { name, isDirectory } = items[0]!;
    return isDirectory ? name : splitName(name).stem || name;
  }
  return folderName || 'archive';
}
