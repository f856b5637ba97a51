// Wire shapes of HTTPS's rows.
import { z } from 'zod';

export const certificateInfo = z.object({
  enabled: z.boolean().describe('HTTPS is served (HTTPS_PORT is not off)'),
  port: z.number().int().nullable().describe('The HTTPS port, null while it is not listening'),
  source: z
    .enum(['generated', 'given'])
    .nullable()
    .describe("generated: Burrow's own certificate authority signed it; given: TLS_CERT/TLS_KEY"),
  names: z.array(z.string()).describe('The host names and addresses the certificate is valid for'),
  notAfter: z
    .string()
    .nullable()
    .describe('When the certificate ends (ISO 8601); Burrow renews its own 30 days before'),
  fingerprint: z.string().nullable().describe("SHA-256 of the server's certificate"),
  authorityFingerprint: z
    .string()
    .nullable()
    .describe("SHA-256 of the certificate authority's certificate, to compare on the device that trusts it"),
  authorityUrl: z.string().nullable().describe('Where to download the certificate authority (generated only)'),
});
export type CertificateInfoView = z.infer<typeof certificateInfo>;
