// Wire shapes of the terminal rows.
import { z } from 'zod';

export const terminalSessionRequest = z
  .object({
    cols: z.number().int().min(1).max(1000).optional(),
    rows: z.number().int().min(1).max(1000).optional(),
  })
  .strict();

export const terminalTicket = z.object({
  /** One-time ticket for the WebSocket: `GET {socketPath}?ticket=…` from the same page, within seconds. */
  ticket: z.string(),
  expiresAt: z.string(),
  /** Where the browser opens the WebSocket (ws: or wss: on this origin). */
  socketPath: z.string(),
});
export type TerminalTicket = z.infer<typeof terminalTicket>;
