// "Secure connection": HTTPS on this server, the certificate authority to trust on each device
// (GET /api/tls/ca.crt) with the steps per system, and what the certificate covers (GET /api/tls).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import { ErrorNote } from '../components/common.tsx';
import { features } from '../state/session.ts';

type Info = Awaited<ReturnType<typeof api<'GET /api/tls'>>>;

export function SecureAccess() {
  const https = features.value.https;
  const [info, setInfo] = useState<Info | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api('GET /api/tls').then(setInfo, setError);
  }, []);
  if (!https?.enabled) return <p class="muted">HTTPS is turned off on this server (HTTPS_PORT=off).</p>;
  const { protocol, hostname } = window.location;
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  const secureUrl = https.port ? `https://${host}:${https.port}/` : null;
  return (
    <div class="stack">
      {protocol === 'https:' ? (
        <p>This page came over HTTPS: what you send to Burrow cannot be read on the network.</p>
      ) : (
        <p>
          This page came over plain HTTP.
          {secureUrl && (
            <>
              {' '}
              The secure address is <a href={secureUrl}>{secureUrl}</a>.
            </>
          )}
        </p>
      )}
      {error ? <ErrorNote error={error} /> : null}
      {info && (
        <p class="small">
          Certificate{' '}
          {info.source === 'given' ? 'given by the administrator (TLS_CERT)' : "from this server's own authority"} for{' '}
          <code>{info.names.join(', ')}</code>
          {info.notAfter && <>, valid until {new Date(info.notAfter).toLocaleDateString()}</>}.
        </p>
      )}
      {https.authority && (
        <>
          <p>
            Burrow signs its certificate with a certificate authority of its own. Trust it once on each device and the
            browser opens the secure address without a warning.{' '}
            <a class="button" href="/api/tls/ca.crt" download="Burrow local CA.crt">
              Download the certificate authority
            </a>
          </p>
          {info?.authorityFingerprint && (
            <p class="small">
              Its SHA-256 fingerprint, to compare when the device shows it: <code>{info.authorityFingerprint}</code>
            </p>
          )}
          <dl class="mount-list">
            <dt>Windows</dt>
            <dd>
              Open the file → <b>Install Certificate</b> → Local Machine → “Place all certificates in the following
              store” → <b>Trusted Root Certification Authorities</b>.
            </dd>
            <dt>macOS</dt>
            <dd>
              Open the file (Keychain Access adds it to System) → double-click “Burrow local authority” → Trust → “When
              using this certificate”: <b>Always Trust</b>.
            </dd>
            <dt>iPhone, iPad</dt>
            <dd>
              Open the download in Safari → Allow; Settings → <b>Profile Downloaded</b> → Install; then Settings →
              General → About → <b>Certificate Trust Settings</b> → turn on “Burrow local authority”.
            </dd>
            <dt>Android</dt>
            <dd>
              Settings → Security → Encryption &amp; credentials → <b>Install a certificate</b> → CA certificate → pick
              the downloaded file.
            </dd>
            <dt>Linux</dt>
            <dd>
              <code>
                sudo cp "Burrow local CA.crt" /usr/local/share/ca-certificates/burrow.crt && sudo update-ca-certificates
              </code>
              ; Chromium reads the system store.
            </dd>
            <dt>Firefox</dt>
            <dd>
              It keeps its own store: Settings → Privacy &amp; Security → Certificates → <b>View Certificates</b> →
              Authorities → Import → tick “Trust this CA to identify websites”.
            </dd>
          </dl>
        </>
      )}
    </div>
  );
}
