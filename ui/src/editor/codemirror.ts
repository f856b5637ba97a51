// CodeMirror 6 set up for Burrow: line numbers, search/replace (Ctrl/Cmd+F, and the panel's
// replace field), syntax colours chosen by extension (each language its own lazy chunk),
// read-only for the viewer. Loaded only with the editor or the text viewer.
import { basicSetup } from 'codemirror';
import { indentWithTab } from '@codemirror/commands';
import {
  defaultHighlightStyle,
  HighlightStyle,
  StreamLanguage,
  syntaxHighlighting,
  type StreamParser,
} from '@codemirror/language';
import { openSearchPanel } from '@codemirror/search';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { tags as t } from '@lezer/highlight';

export { openSearchPanel };
export type { EditorView };

const legacy = (load: () => Promise<StreamParser<unknown>>) => async () => StreamLanguage.define(await load());

const LANGUAGES: Record<string, () => Promise<Extension>> = {
  js: async () => (await import('@codemirror/lang-javascript')).javascript(),
  mjs: async () => (await import('@codemirror/lang-javascript')).javascript(),
  cjs: async () => (await import('@codemirror/lang-javascript')).javascript(),
  jsx: async () => (await import('@codemirror/lang-javascript')).javascript({ jsx: true }),
  ts: async () => (await import('@codemirror/lang-javascript')).javascript({ typescript: true }),
  tsx: async () => (await import('@codemirror/lang-javascript')).javascript({ typescript: true, jsx: true }),
  json: async () => (await import('@codemirror/lang-json')).json(),
  css: async () => (await import('@codemirror/lang-css')).css(),
  scss: async () => (await import('@codemirror/lang-css')).css(),
  html: async () => (await import('@codemirror/lang-html')).html(),
  htm: async () => (await import('@codemirror/lang-html')).html(),
  vue: async () => (await import('@codemirror/lang-html')).html(),
  xml: async () => (await import('@codemirror/lang-xml')).xml(),
  svg: async () => (await import('@codemirror/lang-xml')).xml(),
  md: async () => (await import('@codemirror/lang-markdown')).markdown(),
  markdown: async () => (await import('@codemirror/lang-markdown')).markdown(),
  py: async () => (await import('@codemirror/lang-python')).python(),
  yaml: async () => (await import('@codemirror/lang-yaml')).yaml(),
  yml: async () => (await import('@codemirror/lang-yaml')).yaml(),
  sh: legacy(async () => (await import('@codemirror/legacy-modes/mode/shell')).shell),
  bash: legacy(async () => (await import('@codemirror/legacy-modes/mode/shell')).shell),
  zsh: legacy(async () => (await import('@codemirror/legacy-modes/mode/shell')).shell),
  toml: legacy(async () => (await import('@codemirror/legacy-modes/mode/toml')).toml),
  ini: legacy(async () => (await import('@codemirror/legacy-modes/mode/properties')).properties),
  conf: legacy(async () => (await import('@codemirror/legacy-modes/mode/properties')).properties),
  properties: legacy(async () => (await import('@codemirror/legacy-modes/mode/properties')).properties),
  go: legacy(async () => (await import('@codemirror/legacy-modes/mode/go')).go),
  rs: legacy(async () => (await import('@codemirror/legacy-modes/mode/rust')).rust),
  c: legacy(async () => (await import('@codemirror/legacy-modes/mode/clike')).c),
  h: legacy(async () => (await import('@codemirror/legacy-modes/mode/clike')).c),
  cpp: legacy(async () => (await import('@codemirror/legacy-modes/mode/clike')).cpp),
  hpp: legacy(async () => (await import('@codemirror/legacy-modes/mode/clike')).cpp),
  java: legacy(async () => (await import('@codemirror/legacy-modes/mode/clike')).java),
  kt: legacy(async () => (await import('@codemirror/legacy-modes/mode/clike')).kotlin),
  cs: legacy(async () => (await import('@codemirror/legacy-modes/mode/clike')).csharp),
  sql: legacy(async () => (await import('@codemirror/legacy-modes/mode/sql')).standardSQL),
  lua: legacy(async () => (await import('@codemirror/legacy-modes/mode/lua')).lua),
  rb: legacy(async () => (await import('@codemirror/legacy-modes/mode/ruby')).ruby),
  diff: legacy(async () => (await import('@codemirror/legacy-modes/mode/diff')).diff),
  patch: legacy(async () => (await import('@codemirror/legacy-modes/mode/diff')).diff),
};

/** The language of a kind, or null for plain text. */
export async function languageFor(kind: string): Promise<Extension | null> {
  const load = LANGUAGES[kind];
  return load ? load().catch(() => null) : null;
}

// Colours that read on the dark theme as well (the default style is tuned for white).
const darkHighlight = HighlightStyle.define([
  { tag: t.keyword, color: '#d9a55e' },
  { tag: [t.string, t.special(t.string)], color: '#9ccc65' },
  { tag: t.comment, color: '#8d857a', fontStyle: 'italic' },
  { tag: [t.number, t.bool, t.null], color: '#f2a37f' },
  { tag: [t.typeName, t.className], color: '#80cbc4' },
  { tag: t.propertyName, color: '#9fc1f5' },
  { tag: t.heading, color: '#d9a55e', fontWeight: 'bold' },
  { tag: t.link, color: '#8ab4f8', textDecoration: 'underline' },
  { tag: [t.tagName, t.angleBracket], color: '#f2796f' },
  { tag: t.attributeName, color: '#e0c08a' },
]);

const theme = EditorView.theme({
  '&': { height: '100%', backgroundColor: 'var(--panel)', color: 'var(--text)' },
  '.cm-scroller': { fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, monospace', fontSize: '13px' },
  '.cm-gutters': { backgroundColor: 'var(--panel-2)', color: 'var(--muted)', borderRight: '1px solid var(--line)' },
  '.cm-activeLine': { backgroundColor: 'color-mix(in srgb, var(--accent-soft) 45%, transparent)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--accent-soft)' },
  '.cm-panels': { backgroundColor: 'var(--panel-2)', color: 'var(--text)' },
  '.cm-cursor': { borderLeftColor: 'var(--text)' },
});

export interface EditorOptions {
  parent: HTMLElement;
  doc: string;
  kind: string;
  readOnly: boolean;
  onChange?: (doc: EditorState['doc']) => void;
  onSave?: () => void;
}

export async function createEditor(o: EditorOptions): Promise<EditorView> {
  const language = new Compartment();
  const dark =
    (matchMedia('(prefers-color-scheme: dark)').matches && document.documentElement.dataset.theme !== 'light') ||
    document.documentElement.dataset.theme === 'dark';
  const view = new EditorView({
    parent: o.parent,
    state: EditorState.create({
      doc: o.doc,
      extensions: [
        basicSetup,
        keymap.of([
          indentWithTab,
          {
            key: 'Mod-s',
            preventDefault: true,
            run: () => {
              o.onSave?.();
              return true;
            },
          },
        ]),
        language.of([]),
        syntaxHighlighting(dark ? darkHighlight : defaultHighlightStyle, { fallback: true }),
        theme,
        EditorView.lineWrapping,
        EditorState.readOnly.of(o.readOnly),
        EditorView.editable.of(!o.readOnly),
        EditorView.contentAttributes.of({ 'aria-label': o.readOnly ? 'File text (read-only)' : 'File text' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) o.onChange?.(u.state.doc);
        }),
      ],
    }),
  });
  // The language arrives after the text is on screen (its chunk may still be loading).
  void languageFor(o.kind).then((ext) => {
    if (ext) view.dispatch({ effects: language.reconfigure(ext) });
  });
  return view;
}
