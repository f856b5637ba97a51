// The page an e-mail's unsubscribe link opens in a browser: static HTML, no script, one form
// that POSTs the RFC 8058 body back to the same address.
const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c as '&' | '<' | '>' | '"' | "'"],
  );

export function unsubscribePage(title: string, done: boolean): string {
  const what = escapeHtml(title);
  const body = done
    ? `<h1>E-mails are off</h1><p>You will no longer receive e-mails about “${what}”. Turn them on again in Burrow under Settings → Notifications.</p>`
    : `<h1>Stop these e-mails?</h1><p>E-mails about “${what}” will stop. Other notifications stay as they are.</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Stop these e-mails</button></form>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>Burrow e-mails</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}h1{font-size:1.4rem}button{font:inherit;padding:.6rem 1.2rem;border-radius:.5rem;border:1px solid currentColor;background:#2563eb;color:#fff;cursor:pointer}</style>
</head><body>${body}</body></html>`;
}
