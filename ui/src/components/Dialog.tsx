// Modal dialogs on the native <dialog> element (focus trap, Escape, backdrop for free), plus
// promise-returning helpers so an action can ask a question in one line.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { signal } from '@preact/signals';
import { ErrorNote } from './common.tsx';
import { useSubmit } from './useSubmit.ts';

export function Dialog({
  title,
  onClose,
  children,
  wide,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current!;
    if (!d.open) d.showModal();
    const cancel = (e: Event) => {
      e.preventDefault();
      onClose();
    };
    d.addEventListener('cancel', cancel);
    return () => {
      d.removeEventListener('cancel', cancel);
      if (d.open) d.close();
    };
  }, []);
  return (
    <dialog ref={ref} class={wide ? 'wide' : undefined} aria-label={title}>
      <header class="dialog-head">
        <h2>{title}</h2>
        <button type="button" class="icon-button" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </header>
      <div class="dialog-body">{children}</div>
    </dialog>
  );
}

type Render = (close: () => void) => ComponentChildren;
interface Open {
  id: number;
  render: Render;
}
export const openDialogs = signal<Open[]>([]);
let nextId = 1;

/** Shows a dialog; `render` gets a `close` function. Returns that close function. */
export function showDialog(render: Render): () => void {
  const id = nextId++;
  const close = () => {
    openDialogs.value = openDialogs.value.filter((d) => d.id !== id);
  };
  openDialogs.value = [...openDialogs.value, { id, render }];
  return close;
}

export function DialogHost() {
  return (
    <>
      {openDialogs.value.map((d) => (
        <DialogSlot key={d.id} render={d.render} id={d.id} />
      ))}
    </>
  );
}

function DialogSlot({ render, id }: { render: Render; id: number }) {
  const close = () => {
    openDialogs.value = openDialogs.value.filter((d) => d.id !== id);
  };
  return <>{render(close)}</>;
}

/** Asks for one line of text. `action` may throw: its error is shown and the dialog stays. */
export function askText(opts: {
  title: string;
  label: string;
  value?: string;
  confirm: string;
  selectStem?: boolean;
  secret?: boolean;
  action: (value: string) => Promise<void> | void;
}): void {
  showDialog((close) => <TextDialog {...opts} close={close} />);
}

function TextDialog({
  title,
  label,
  value = '',
  confirm,
  selectStem,
  secret,
  action,
  close,
}: Parameters<typeof askText>[0] & { close: () => void }) {
  const [text, setText] = useState(value);
  const { busy, error, setError, run } = useSubmit();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const el = input.current!;
    el.focus();
    const dot = selectStem ? value.lastIndexOf('.') : -1;
    el.setSelectionRange(0, dot > 0 ? dot : value.length);
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!text.trim()) {
      setError(new Error('A name is needed.'));
      return;
    }
    await run(async () => {
      await action(text);
      close();
    });
  };
  return (
    <Dialog title={title} onClose={close}>
      <form onSubmit={submit} class="stack">
        <label>
          {label}
          {secret ? (
            <input
              ref={input}
              type="password"
              autocomplete="new-password"
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          ) : (
            <input ref={input} value={text} onInput={(e) => setText(e.currentTarget.value)} spellcheck={false} />
          )}
        </label>
        <ErrorNote error={error} />
        <div class="actions">
          <button type="button" onClick={close}>
            Cancel
          </button>
          <button class="primary" disabled={busy}>
            {confirm}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** A yes/no question with optional detail; resolves true when confirmed. */
export function confirmDialog(opts: {
  title: string;
  body: ComponentChildren;
  confirm: string;
  danger?: boolean;
}): Promise<boolean> {
  return new Promise((resolve) => {
    showDialog((close) => (
      <Dialog
        title={opts.title}
        onClose={() => {
          close();
          resolve(false);
        }}
      >
        <div class="stack">
          <div>{opts.body}</div>
          <div class="actions">
            <button
              type="button"
              onClick={() => {
                close();
                resolve(false);
              }}
            >
              Cancel
            </button>
            <button
              type="button"
              class={opts.danger ? 'danger' : 'primary'}
              autoFocus
              onClick={() => {
                close();
                resolve(true);
              }}
            >
              {opts.confirm}
            </button>
          </div>
        </div>
      </Dialog>
    ));
  });
}
