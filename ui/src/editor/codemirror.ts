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
import { EditorView, keymap, ViewPlugin } from '@codemirror/view';
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

// Colours that read on the dark theme (the default style is tuned for white: its blue and purple
// names all but vanish on the dark panel).
const darkHighlight = HighlightStyle.define([
  { tag: [t.keyword, t.modifier, t.controlKeyword, t.operatorKeyword, t.definitionKeyword], color: '#e6b673' },
  { tag: [t.string, t.special(t.string), t.inserted, t.character], color: '#a5d67a' },
  { tag: [t.regexp, t.escape], color: '#e8a0d8' },
  { tag: [t.comment, t.lineComment, t.blockComment, t.docComment], color: '#9a9185', fontStyle: 'italic' },
  { tag: [t.number, t.bool, t.null, t.atom, t.unit], color: '#f5ad8c' },
  { tag: [t.typeName, t.className, t.namespace], color: '#86d4cb' },
  {
    tag: [t.definition(t.variableName), t.function(t.variableName), t.function(t.propertyName), t.macroName],
    color: '#9fc6ff',
  },
  { tag: [t.propertyName, t.definition(t.propertyName)], color: '#b8d2ff' },
  { tag: [t.self, t.special(t.variableName), t.labelName], color: '#d0b3ff' },
  { tag: [t.meta, t.processingInstruction, t.documentMeta, t.annotation], color: '#b0a79b' },
  { tag: t.heading, color: '#e6b673', fontWeight: 'bold' },
  { tag: t.strong, fontWeight: 'bold' },
  { tag: t.emphasis, fontStyle: 'italic' },
  { tag: t.strikethrough, textDecoration: 'line-through' },
  { tag: [t.link, t.url], color: '#8ab4f8', textDecoration: 'underline' },
  { tag: [t.tagName, t.angleBracket], color: '#f58b82' },
  { tag: t.attributeName, color: '#e6c891' },
  { tag: t.deleted, color: '#f58b82' },
  { tag: t.invalid, color: '#ff8a80' },
]);

const theme = EditorView.theme({
  '&': { height: '100%', backgroundColor: 'var(--panel)', color: 'var(--text)' },
  '.cm-scroller': { fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, monospace', fontSize: '13px' },
  '.cm-gutters': { backgroundColor: 'var(--panel-2)', color: 'var(--muted)', borderRight: '1px solid var(--line)' },
  '.cm-activeLine': { backgroundColor: 'color-mix(in srgb, var(--accent-soft) 45%, transparent)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--accent-soft)' },
  '.cm-panels': { backgroundColor: 'var(--panel-2)', color: 'var(--text)' },
  '.cm-cursor': { borderLeftColor: 'var(--text)' },
  '.cm-tooltip': { backgroundColor: 'var(--panel)', color: 'var(--text)', border: '1px solid var(--line)' },
  '.cm-panel input, .cm-panel button': { color: 'var(--text)' },
});

/** The app's theme now: the person's choice (`data-theme`), else the system's. */
export function appIsDark(): boolean {
  const chosen = document.documentElement.dataset.theme;
  return chosen === 'dark' || (chosen !== 'light' && matchMedia('(prefers-color-scheme: dark)').matches);
}

/** Syntax colours and CodeMirror's own light/dark base (selection, search panel, tooltips). */
const palette = (dark: boolean): Extension => [
  syntaxHighlighting(dark ? darkHighlight : defaultHighlightStyle),
  EditorView.theme({}, { dark }),
];

/** Follows the app's theme while the editor lives: a change in Settings or in the system's. */
const followTheme = (compartment: Compartment) =>
  ViewPlugin.define((view) => {
    let dark = appIsDark();
    const update = () => {
      if (appIsDark() === dark) return;
      dark = !dark;
      view.dispatch({ effects: compartment.reconfigure(palette(dark)) });
    };
    const media = matchMedia('(prefers-color-scheme: dark)');
    media.addEventListener('change', update);
    const observer = new MutationObserver(update);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return {
      destroy() {
        media.removeEventListener('change', update);
        observer.disconnect();
      },
    };
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
  const colours = new Compartment();
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
        // Not a fallback: basicSetup's own fallback (the light style) would win over it.
        colours.of(palette(appIsDark())),
        followTheme(colours),
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
