// "Notify this browser": subscribes this browser's service worker with the installation's VAPID
// key and hands the subscription to Burrow (or removes it). Needs the installed service worker
// and a secure origin (https, or localhost).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import { toastError } from '../state/toasts.ts';

const supported = () => typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window;

async function currentSubscription(): Promise<PushSubscription | null> {
  const reg = await navigator.serviceWorker.getRegistration();
  return (await reg?.pushManager.getSubscription()) ?? null;
}

export function ThisBrowser() {
  const [on, setOn] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!supported()) return;
    void currentSubscription().then((s) => setOn(s !== null));
  }, []);
  if (!supported())
    return (
      <p class="muted small">
        This browser cannot show notifications from Burrow (it needs https and a service worker).
      </p>
    );
  const turnOn = async () => {
    if ((await Notification.requestPermission()) !== 'granted')
      throw new Error('Notifications are blocked for this site in the browser’s settings.');
    const reg = await navigator.serviceWorker.ready;
    const { publicKey } = await api('GET /api/notify/push/key');
    const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: publicKey });
    const json = sub.toJSON() as { endpoint: string; keys: { p256dh: string; auth: string } };
    await api('POST /api/notify/push/subscriptions', { body: { endpoint: json.endpoint, keys: json.keys } });
  };
  const turnOff = async () => {
    const sub = await currentSubscription();
    if (!sub) return;
    const mine = (await api('GET /api/notify/push/subscriptions')).subscriptions.find(
      (s) => s.endpoint === sub.endpoint,
    );
    if (mine) await api('DELETE /api/notify/push/subscriptions/:id', { params: { id: mine.id } });
    await sub.unsubscribe();
  };
  const flip = () => {
    setBusy(true);
    (on ? turnOff() : turnOn()).then(() => setOn(!on), toastError).finally(() => setBusy(false));
  };
  return (
    <label class="check">
      <input type="checkbox" checked={on === true} disabled={busy || on === null} onChange={flip} /> Show notifications
      in this browser (also when no Burrow tab is open)
    </label>
  );
}
