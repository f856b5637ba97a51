// A name's stem and extension, in a module of its own with no imports, so the web interface
// proposes the same names the server makes (a new zip's default name).

/** Extensions that belong together: `backup.tar.gz` becomes `backup (1).tar.gz`. */
const DOUBLE_EXTENSIONS = /\.tar\.(gz|bz2|xz|zst|lz|lzma|z)$/i;

/** Splits `name` into the part numbered and the extension kept (`.bashrc` has no extension). */
export function splitName(name: string): { stem: string; ext: string } {
  const double = DOUBLE_EXTENSIONS.exec(name);
  if (double && double.index > 0) return { stem: name.slice(0, double.index), ext: name.slice(double.index) };
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return { stem: name, ext: '' };
  return { stem: name.slice(0, dot), ext: name.slice(dot) };
}
