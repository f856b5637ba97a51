// Administration: users, activity log, installation settings.
import { Tabs, currentTab } from '../components/Tabs.tsx';
import { Activity } from './Activity.tsx';
import { Installation } from './Installation.tsx';
import { Users } from './Users.tsx';

export default function Admin() {
  const tab = currentTab('/admin', ['users', 'activity', 'installation']);
  return (
    <section class="page">
      <h1>Administration</h1>
      <Tabs tabs={[{ to: '/admin/users', label: 'Users' }, { to: '/admin/activity', label: 'Activity log' }, { to: '/admin/installation', label: 'Installation' }]} />
      {tab === 'users' && <Users />}
      {tab === 'activity' && <Activity />}
      {tab === 'installation' && <Installation />}
    </section>
  );
}
