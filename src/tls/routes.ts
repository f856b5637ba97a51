// HTTPS's rows: the certificate authority to trust (public: a certificate is public, and a
// device downloads it before it can sign in over HTTPS) and what the certificate covers.
import { route } from '../http/route.ts';
import { AppError } from '../core/errors.ts';
import { AUTHORITY_PATH } from '../http/secure.ts';
import { certificateInfo, type CertificateInfoView } from './wire.ts';

const tags = ['System'];

export interface TlsRowsDeps {
  authority: () => string | null;
  info: () => CertificateInfoView;
}

export function tlsRoutes(deps: TlsRowsDeps) {
  return [
    route({
      method: 'GET',
      path: AUTHORITY_PATH,
      access: 'public',
      tags,
      summary: 'The certificate authority Burrow made for HTTPS (PEM), to trust on a device; never its key',
      responses: {
        200: { description: 'The certificate (application/x-x509-ca-cert)', contentType: 'application/x-x509-ca-cert' },
        404: 'HTTPS is off or uses TLS_CERT',
      },
      handler: ({ req, res }) => {
        const pem = deps.authority();
        if (!pem)
          throw new AppError(
            'NOT_FOUND',
            'Burrow has no certificate authority of its own here (HTTPS is off, or TLS_CERT is used).',
          );
        res.writeHead(200, {
          'Content-Type': 'application/x-x509-ca-cert',
          'Content-Disposition': 'attachment; filename="Burrow local CA.crt"',
          'Content-Length': Buffer.byteLength(pem),
          'Cache-Control': 'no-cache',
        });
        res.end(req.method === 'HEAD' ? undefined : pem);
      },
    }),
    route({
      method: 'GET',
      path: '/api/tls',
      access: 'account',
      tags,
      summary: 'The HTTPS certificate: where it comes from, the names it covers, when it ends',
      responses: { 200: { description: 'The certificate', schema: certificateInfo } },
      handler: () => deps.info(),
    }),
  ];
}
