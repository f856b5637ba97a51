// The editor rows as app.ts mounts them.
import type { Capability } from '../http/capability.ts';
import { editorRoutes } from './routes.ts';
import { createEditor, type EditorDeps } from './service.ts';

export function createEditorCapability(deps: EditorDeps): Capability {
  return { routes: editorRoutes(createEditor(deps), deps.maxBytes) };
}
