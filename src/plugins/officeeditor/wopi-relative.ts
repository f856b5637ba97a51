// WOPI PutRelativeFile: the editor's "save as" — a new file beside the document, under a name
// the editor suggests (ours to adjust: numbered when taken) or one it requires (refused when
// taken unless it asks to overwrite, with a free name offered). Overwriting keeps the replaced
// content as a version and respects the target's locks: a WOPI lock and another account's
// WebDAV lock answer WOPI's lock mismatch.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../core/errors.ts';
import { assertPlainName, candidateName, placeFile, splitName } from '../../files/names.ts';
import { joinVirtual } from '../../files/paths.ts';
import { replaceKeepingVersion, writeTemporary } from './content.ts';
import { decodeUtf7, encodeUtf7 } from './tokens.ts';
import {
  assertNoOtherDoorLock,
  drain,
  fileIdOf,
  folderWritable,
  header,
  issueFileToken,
  lockConflict,
  recordSave,
  wopiSrcOf,
  type WopiAnswer,
  type WopiBody,
  type WopiDeps,
  type WopiFile,
  type WopiHeaders,
} from './wopi-file.ts';

/** The name a target asks for: a suggestion (ours to adjust) or a relative target (exact). */
function targetOf(w: WopiFile, headers: WopiHeaders): { suggested: string } | { relative: string } {
  const suggested = header(headers, 'X-WOPI-SuggestedTarget');
  const relative = header(headers, 'X-WOPI-RelativeTarget');
  if ((suggested === undefined) === (relative === undefined))
    throw new AppError('WOPI_BAD_TARGET', 'Send exactly one of X-WOPI-SuggestedTarget and X-WOPI-RelativeTarget.');
  // A relative target that starts with a dot (".docx", what an editor sends for "save as
  // .docx") would be a hidden file of that name: it is taken as a suggestion instead — the
  // source's name with that extension, numbered when taken.
  if (relative !== undefined && !decodeUtf7(relative).trim().startsWith('.')) {
    const name = decodeUtf7(relative).trim();
    try {
      assertPlainName(name, 'file name');
    } catch (err) {
      throw new AppError('WOPI_BAD_TARGET', (err as Error).message, {
        headers: {
          'X-WOPI-ValidRelativeTarget': encodeUtf7(
            `${splitName(path.basename(w.file.realPath)).stem} (1)${path.extname(w.file.realPath)}`,
          ),
        },
      });
    }
    return { relative: name };
  }
  const s = decodeUtf7((suggested ?? relative)!).trim();
  // An extension alone keeps the current name.
  const name = (s.startsWith('.') ? splitName(path.basename(w.file.realPath)).stem + s : s).replace(/[/\\\0]/g, '_');
  assertPlainName(name, 'suggested name');
  return { suggested: name };
}

export async function putRelativeFile(
  deps: WopiDeps,
  w: WopiFile,
  headers: WopiHeaders,
  body: WopiBody,
): Promise<WopiAnswer> {
  let target: ReturnType<typeof targetOf>;
  let parent: Awaited<ReturnType<typeof folderWritable>>;
  try {
    target = targetOf(w, headers);
    parent = await folderWritable(deps, w);
    if (!parent) throw new AppError('READ_ONLY', 'You may not create files in this folder.');
  } catch (err) {
    drain(body);
    throw err;
  }
  const dir = path.dirname(w.file.realPath);
  const temp = await writeTemporary(deps.journal, dir, parent.space.root, body, deps.maxFileSize);
  let finalName: string;
  try {
    if ('suggested' in target) {
      finalName = await placeFile(temp.path, dir, target.suggested);
      deps.changes.emit({ type: 'created', path: path.join(dir, finalName), isDirectory: false });
    } else {
      const name = target.relative;
      const at = path.join(dir, name);
      const overwrite = /^true$/i.test(header(headers, 'X-WOPI-OverwriteRelativeTarget') ?? '');
      const existing = await fsp.lstat(at).catch(() => null);
      if (existing && !overwrite) {
        let n = 1;
        while (n < 1000 && (await fsp.lstat(path.join(dir, candidateName(name, n))).catch(() => null))) n++;
        throw new AppError('EXISTS', 'A file with that name exists.', {
          headers: { 'X-WOPI-ValidRelativeTarget': encodeUtf7(candidateName(name, n)) },
        });
      }
      if (existing) {
        if (!existing.isFile()) throw new AppError('EXISTS', 'A folder or link has that name.');
        const targetFile = await deps.resolver.resolveInside(w.caller, joinVirtual(parent.virtualPath, name), {
          mustExist: true,
        });
        const held = deps.locks.current(fileIdOf(deps, targetFile));
        if (held !== '') throw lockConflict(held, 'The file to replace is locked.');
        assertNoOtherDoorLock(deps, w.caller, targetFile);
        await replaceKeepingVersion(temp, at, deps.versions, w.caller.username);
        deps.changes.emit({ type: 'modified', path: at });
      } else {
        // The name was free a moment ago; claim it exclusively (never over one created meanwhile).
        await fsp.link(temp.path, at).catch((err) => {
          throw err.code === 'EEXIST'
            ? new AppError('EXISTS', 'A file with that name was just created.', {
                headers: { 'X-WOPI-ValidRelativeTarget': encodeUtf7(candidateName(name, 1)) },
              })
            : err;
        });
        await fsp.unlink(temp.path);
        deps.changes.emit({ type: 'created', path: at, isDirectory: false });
      }
      finalName = name;
    }
  } catch (err) {
    await fsp.rm(temp.path, { force: true });
    throw err;
  } finally {
    temp.settled();
  }
  const created = await deps.resolver.resolveInside(w.caller, joinVirtual(parent.virtualPath, finalName), {
    mustExist: true,
  });
  recordSave(deps, w.caller, created, true);
  const issued = await issueFileToken(deps, w.caller, created, true);
  return {
    status: 200,
    headers: {},
    json: {
      Name: finalName,
      Url: `${wopiSrcOf(deps, issued.fileId)}?access_token=${encodeURIComponent(issued.token)}`,
    },
  };
}
