// One attempt at one e-mail: the event in a plain and an HTML body, sent through the
// administrator's SMTP server by nodemailer (STARTTLS required, TLS from the start, or none on
// a LAN relay). Every message carries its delivery id as Message-ID (the same on each attempt)
// and, for an event an account chose, RFC 8058 one-click unsubscribe: List-Unsubscribe with the
// account's link for this kind and List-Unsubscribe-Post.
import { KIND_LABELS } from './events.ts';
import type { Attempt } from './send.ts';
import type { EventBody, EventKind, WireSmtp } from './wire.ts';

export interface SmtpSettings {
  host: string;
  port: number;
  security: WireSmtp['security'];
  username: string | null;
  from: string;
  /** A certificate authority (PEM) trusted for this server besides the system ones. */
  tlsCa: string | null;
}

export interface MailTarget {
  kind: 'email';
  smtp: SmtpSettings;
  password: string | null;
  to: string;
  /**
   * The kind of the account's choice it is sent under (the delivery's): the event's own, but a
   * new device at a new address reaches an account that chose new addresses only as a new address.
   */
  choice: EventKind;
  /** The one-click link for this account and that kind (none on a test message or a digest). */
  unsubscribeUrl: string | null;
  /** Where the account's choices are (Settings → Notifications). */
  settingsUrl: string;
}

export function parseSmtp(text: string | null): SmtpSettings | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as SmtpSettings;
  } catch {
    return null;
  }
}

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c as '&' | '<' | '>' | '"' | "'"],
  );

/** The message's subject, plain text and HTML. */
export function compose(body: EventBody, target: Pick<MailTarget, 'choice' | 'unsubscribeUrl' | 'settingsUrl'>) {
  const label = KIND_LABELS[target.choice];
  const events = body.events ?? [];
  const lines = events.length ? [] : [body.text, ''];
  for (const e of events) lines.push(`${e.time}  ${e.title}`, `  ${e.text}`, '');
  if (events.length < body.count) lines.push(`… and ${body.count - events.length} more.`, '');
  if (body.paths.length) {
    lines.push(...body.paths.map((p) => `  ${p}`), '');
  }
  if (body.address) lines.push(`Address: ${body.address}`, '');
  lines.push(`When: ${body.time}`, '', '—');
  lines.push(`You receive this because of your choice “${label}” (${target.settingsUrl}).`);
  if (target.unsubscribeUrl) lines.push(`Stop these e-mails: ${target.unsubscribeUrl}`);
  const html = [
    '<!doctype html><html><head><meta charset="utf-8"></head>',
    '<body style="font-family: system-ui, sans-serif; font-size: 15px; line-height: 1.4; color: #1d1d1f">',
    `<h1 style="font-size: 18px">${escapeHtml(body.title)}</h1>`,
    events.length
      ? `<ul>${events.map((e) => `<li><strong>${escapeHtml(e.title)}</strong> — ${escapeHtml(e.text)} <span style="color: #6e6e73">${escapeHtml(e.time)}</span></li>`).join('')}</ul>${events.length < body.count ? `<p>… and ${body.count - events.length} more.</p>` : ''}`
      : `<p>${escapeHtml(body.text)}</p>`,
    body.paths.length ? `<ul>${body.paths.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul>` : '',
    body.address ? `<p>Address: ${escapeHtml(body.address)}</p>` : '',
    `<p style="color: #6e6e73">When: ${escapeHtml(body.time)}</p>`,
    '<hr style="border: none; border-top: 1px solid #d2d2d7">',
    `<p style="color: #6e6e73; font-size: 13px">You receive this because of your choice “${escapeHtml(label)}” in <a href="${escapeHtml(target.settingsUrl)}">Burrow’s notification settings</a>.`,
    target.unsubscribeUrl ? ` <a href="${escapeHtml(target.unsubscribeUrl)}">Stop these e-mails</a>.` : '',
    '</p></body></html>',
  ].join('');
  return { subject: body.title, text: lines.join('\n'), html };
}

/** A refusal another try will not change: a 5xx answer, the credentials, the addresses. */
function permanent(err: { responseCode?: number; code?: string }): boolean {
  if (typeof err.responseCode === 'number') return err.responseCode >= 500;
  return err.code === 'EAUTH' || err.code === 'EENVELOPE';
}

export async function sendMail(
  target: MailTarget,
  body: EventBody,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<Attempt> {
  const { smtp } = target;
  // Loaded on the first e-mail (issue 33: ~5 MB of heap an installation without SMTP never uses).
  const { createTransport } = await import('nodemailer');
  const transport = createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.security === 'tls',
    requireTLS: smtp.security === 'starttls',
    ignoreTLS: smtp.security === 'none',
    ...(smtp.username ? { auth: { user: smtp.username, pass: target.password ?? '' } } : {}),
    tls: { minVersion: 'TLSv1.2', ...(smtp.tlsCa ? { ca: [smtp.tlsCa] } : {}) },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  const abort = () => transport.close();
  stop.addEventListener('abort', abort, { once: true });
  const deadline = setTimeout(abort, timeoutMs);
  try {
    const { subject, text, html } = compose(body, target);
    const domain = smtp.from.split('@').pop() || 'burrow.invalid';
    const info = await transport.sendMail({
      from: { name: 'Burrow', address: smtp.from },
      to: target.to,
      subject,
      text,
      html,
      messageId: `<${body.id}@${domain}>`,
      headers: {
        'Auto-Submitted': 'auto-generated',
        'X-Burrow-Event': body.kind,
        ...(target.unsubscribeUrl ? { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } : {}),
      },
      ...(target.unsubscribeUrl ? { list: { unsubscribe: target.unsubscribeUrl } } : {}),
    });
    if (info.rejected.length) return { ok: false, status: null, error: `refused ${target.to}`, permanent: true };
    return { ok: true, status: 250 };
  } catch (err) {
    const e = err as Error & { responseCode?: number; code?: string; response?: string };
    return {
      ok: false,
      status: typeof e.responseCode === 'number' ? e.responseCode : null,
      error: stop.aborted
        ? 'stopped'
        : e.response
          ? `the mail server answered: ${e.response.slice(0, 300)}`
          : `could not send (${e.code ?? e.message})`,
      permanent: permanent(e),
    };
  } finally {
    clearTimeout(deadline);
    stop.removeEventListener('abort', abort);
    transport.close();
  }
}
