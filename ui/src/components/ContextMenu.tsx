// One context menu at a time, placed at the pointer and kept on screen; arrow keys move
// between entries and Escape closes it.
import { signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';

export interface MenuEntry {
  label: string;
  action: () => void;
  disabled?: boolean;
  danger?: boolean;
  shortcut?: string;
}
export type MenuItem = MenuEntry | 'separator';

const menu = signal<{ x: number; y: number; items: MenuItem[]; restore: HTMLElement | null } | null>(null);

export function openMenu(x: number, y: number, items: MenuItem[]): void {
  menu.value = { x, y, items, restore: document.activeElement as HTMLElement | null };
}

export function closeMenu(): void {
  const m = menu.value;
  menu.value = null;
  m?.restore?.focus?.();
}

export function ContextMenuHost() {
  const m = menu.value;
  const ref = useRef<HTMLUListElement>(null);
  useEffect(() => {
    if (!m) return;
    const el = ref.current!;
    const r = el.getBoundingClientRect();
    el.style.left = `${Math.max(4, Math.min(m.x, window.innerWidth - r.width - 4))}px`;
    el.style.top = `${Math.max(4, Math.min(m.y, window.innerHeight - r.height - 4))}px`;
    (el.querySelector('button:not([disabled])') as HTMLElement | null)?.focus();
    const away = (e: Event) => {
      if (!el.contains(e.target as Node)) closeMenu();
    };
    const t = setTimeout(() => {
      document.addEventListener('pointerdown', away);
      window.addEventListener('blur', closeMenu);
      window.addEventListener('resize', closeMenu);
    });
    return () => {
      clearTimeout(t);
      document.removeEventListener('pointerdown', away);
      window.removeEventListener('blur', closeMenu);
      window.removeEventListener('resize', closeMenu);
    };
  }, [m]);
  if (!m) return null;
  const onKey = (e: KeyboardEvent) => {
    const buttons = [...ref.current!.querySelectorAll<HTMLButtonElement>('button:not([disabled])')];
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      closeMenu();
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      buttons[(i + 1) % buttons.length]?.focus();
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      buttons[(i - 1 + buttons.length) % buttons.length]?.focus();
    } else if (e.key === 'Tab') {
      e.preventDefault();
    }
  };
  return (
    <ul ref={ref} class="context-menu" role="menu" onKeyDown={onKey} onContextMenu={(e) => e.preventDefault()}>
      {m.items.map((it, i) =>
        it === 'separator' ? (
          <li key={i} role="separator" class="sep" />
        ) : (
          <li key={i} role="none">
            <button
              type="button"
              role="menuitem"
              class={it.danger ? 'danger' : undefined}
              disabled={it.disabled}
              onClick={() => {
                closeMenu();
                it.action();
              }}
            >
              <span>{it.label}</span>
              {it.shortcut && <kbd>{it.shortcut}</kbd>}
            </button>
          </li>
        ),
      )}
    </ul>
  );
}
