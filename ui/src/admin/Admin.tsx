// Administration: users, groups, permissions, volumes, activity log, WebDAV locks, notifications, installation settings.
import { Tabs, currentTab } from '../components/Tabs.tsx';
import { Activity } from './Activity.tsx';
import { Groups } from './Groups.tsx';
import { Permissions } from './Permissions.tsx';
import { Installation } from './Installation.tsx';
import { Locks } from './Locks.tsx';
import { Notifications } from './Notifications.tsx';
import { Users } from './Users.tsx';
import { Lazy } from '../components/Lazy.tsx';
import { features } from '../state/session.ts';
import { Volumes } from './Volumes.tsx';
import { Quotas } from './Quotas.tsx';

export default function Admin() {
  const terminalOn = features.value.terminal?.enabled === true;
  const tab = currentTab('/admin', [
    'users',
    'groups',
    'permissions',
    'volumes',
    'quotas',
    'activity',
    'locks',
    'notifications',
    'installation',
    ...(terminalOn ? ['terminal'] : []),
  ]);
  return (
    <section class="page">
      <h1>Administration</h1>
      <Tabs
        tabs={[
          { to: '/admin/users', label: 'Users' },
          { to: '/admin/groups', label: 'Groups' },
          { to: '/admin/permissions', label: 'Permissions' },
          { to: '/admin/volumes', label: 'Volumes' },
          { to: '/admin/quotas', label: 'Quotas' },
          { to: '/admin/activity', label: 'Activity log' },
          { to: '/admin/locks', label: 'Locks' },
          { to: '/admin/notifications', label: 'Notifications' },
          { to: '/admin/installation', label: 'Installation' },
          ...(terminalOn ? [{ to: '/admin/terminal', label: 'Terminal' }] : []),
        ]}
      />
      {tab === 'users' && <Users />}
      {tab === 'groups' && <Groups />}
      {tab === 'permissions' && <Permissions />}
      {tab === 'volumes' && <Volumes />}
      {tab === 'quotas' && <Quotas />}
      {tab === 'activity' && <Activity />}
      {tab === 'locks' && <Locks />}
      {tab === 'notifications' && <Notifications />}
      {tab === 'installation' && <Installation />}
      {tab === 'terminal' && <Lazy load={() => import('../terminal/Terminal.tsx')} props={{}} />}
    </section>
  );
}
