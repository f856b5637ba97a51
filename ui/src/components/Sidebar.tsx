// Volumes, favourites (drag to reorder), trash, settings, administration.
import { useState } from 'preact/hooks';
import { favorites, isAdmin, volumes } from '../state/session.ts';
import { filesUrl, folderOf, location, navigate } from '../state/router.ts';
import { reorderFavorites } from '../folder/actions.ts';
import { tagUrl, tagVocabulary } from '../tags/tags.tsx';
import { dropOnto } from '../folder/interact.ts';
import { Icon } from './common.tsx';
import { QuotaMeter } from './QuotaMeter.tsx';

function NavLink({
  to,
  icon,
  label,
  current,
  onDropItems,
}: {
  to: string;
  icon: string;
  label: string;
  current: boolean;
  onDropItems?: (e: DragEvent) => void;
}) {
  return (
    <a
      href={to}
      class={current ? 'current' : undefined}
      aria-current={current ? 'page' : undefined}
      dir="auto"
      onClick={(e) => {
        e.preventDefault();
        navigate(to);
      }}
      onDragOver={
        onDropItems &&
        ((e: DragEvent) => {
          if (e.dataTransfer?.types.includes('application/x-burrow-items')) {
            e.preventDefault();
            e.dataTransfer.dropEffect = e.altKey ? 'copy' : 'move';
          }
        })
      }
      onDrop={
        onDropItems &&
        ((e: DragEvent) => {
          e.preventDefault();
          onDropItems(e);
        })
      }
    >
      <Icon name={icon as any} size={18} />
      <span>{label}</span>
    </a>
  );
}

export function Sidebar({ onNavigate }: { onNavigate?: () => void }) {
  const loc = location.value;
  const folder = folderOf(loc);
  const [dragging, setDragging] = useState<string | null>(null);
  const favs = favorites.value;
  const reorderTo = (targetId: string) => {
    if (!dragging || dragging === targetId) return;
    const ids = favs.map((f) => f.id).filter((id) => id !== dragging);
    ids.splice(
      ids.indexOf(targetId) +
        (favs.findIndex((f) => f.id === dragging) < favs.findIndex((f) => f.id === targetId) ? 1 : 0),
      0,
      dragging,
    );
    void reorderFavorites(ids);
  };
  return (
    <nav
      class="sidebar"
      aria-label="Places"
      onClick={(e) => {
        if ((e.target as HTMLElement).closest('a')) onNavigate?.();
      }}
    >
      <NavLink to="/" icon="home" label="Home" current={loc.path === '/'} />
      <h2>Volumes</h2>
      {volumes.value.map((v) => (
        <NavLink
          key={v.path}
          to={filesUrl(v.path)}
          icon="folder"
          label={v.name}
          current={folder !== null && (folder === v.path || folder.startsWith(`${v.path}/`))}
          onDropItems={(e) => dropOnto(e, null, v.path)}
        />
      ))}
      {favs.length > 0 && <h2>Favourites</h2>}
      <ul class="favorites" aria-label="Favourites">
        {favs.map((f) => (
          <li
            key={f.id}
            draggable
            class={dragging === f.id ? 'dragging' : undefined}
            onDragStart={(e) => {
              setDragging(f.id);
              e.dataTransfer!.setData('application/x-burrow-favorite', f.id);
              e.dataTransfer!.effectAllowed = 'move';
            }}
            onDragEnd={() => setDragging(null)}
            onDragOver={(e) => {
              if (e.dataTransfer?.types.includes('application/x-burrow-favorite')) e.preventDefault();
            }}
            onDrop={(e) => {
              if (e.dataTransfer?.types.includes('application/x-burrow-favorite')) {
                e.preventDefault();
                reorderTo(f.id);
                setDragging(null);
              }
            }}
          >
            <NavLink
              to={filesUrl(f.path)}
              icon="star"
              label={f.label || f.path.slice(f.path.lastIndexOf('/') + 1)}
              current={folder === f.path}
              onDropItems={(e) => dropOnto(e, null, f.path)}
            />
          </li>
        ))}
      </ul>
      {tagVocabulary.value.length > 0 && <h2>Tags</h2>}
      <ul class="favorites sidebar-tags" aria-label="Tags">
        {tagVocabulary.value.map((t) => (
          <li key={t.name}>
            <NavLink
              to={tagUrl(t.name)}
              icon="tag"
              label={t.name}
              current={loc.path === '/tags' && loc.query.get('tag')?.toLowerCase() === t.name.toLowerCase()}
            />
          </li>
        ))}
      </ul>
      <hr />
      <NavLink to="/search" icon="search" label="Search" current={loc.path === '/search'} />
      <NavLink to="/shared" icon="external" label="Shared by me" current={loc.path === '/shared'} />
      <NavLink to="/shared-with-me" icon="download" label="Shared with me" current={loc.path === '/shared-with-me'} />
      <NavLink to="/trash" icon="trash" label="Trash" current={loc.path === '/trash'} />
      <NavLink to="/settings" icon="gear" label="Settings" current={loc.path.startsWith('/settings')} />
      {isAdmin.value && (
        <NavLink to="/admin" icon="shield" label="Administration" current={loc.path.startsWith('/admin')} />
      )}
      <QuotaMeter />
    </nav>
  );
}
