import { location, navigate } from '../state/router.ts';

export function Tabs({ tabs }: { tabs: { to: string; label: string }[] }) {
  const here = location.value.path;
  const current =
    [...tabs].sort((a, b) => b.to.length - a.to.length).find((t) => here === t.to || here.startsWith(`${t.to}/`))?.to ??
    tabs[0]!.to;
  return (
    <nav class="tabs" aria-label="Sections">
      {tabs.map((t) => (
        <a
          key={t.to}
          href={t.to}
          aria-current={t.to === current ? 'page' : undefined}
          onClick={(e) => {
            e.preventDefault();
            navigate(t.to);
          }}
        >
          {t.label}
        </a>
      ))}
    </nav>
  );
}

export function currentTab(base: string, names: string[]): string {
  const rest = location.value.path.slice(base.length).replace(/^\//, '').split('/')[0] ?? '';
  return names.includes(rest) ? rest : names[0]!;
}
